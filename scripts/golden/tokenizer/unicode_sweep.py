"""Every code point through HF's pre-tokenizers and normalizers, hashed (unicode_sweep.jsonl).

The code points 0..0x10FFFF (without surrogates) are cut into chunks of CHUNK; each chunk is run
as one string ("plain") and with every code point between "x" and " " ("spaced"), and the
result is hashed (SHA-256, first 16 hex digits): the pieces of a pre-tokenizer joined by U+0000, or the
output of a normalizer. A C++ test recomputes the hashes; any code point classified or mapped
differently from HF changes the hash of its chunk.
"""
import hashlib

from tokenizers import Regex, normalizers, pre_tokenizers

import trained

CHUNK = 8192

PRE_TOKENIZERS = [
    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
    {"type": "Split", "pattern": {"Regex": trained.LLAMA3}, "behavior": "Isolated", "invert": False},
    {"type": "Split", "pattern": {"Regex": trained.O200K}, "behavior": "Isolated", "invert": False},
    {"type": "Split", "pattern": {"Regex": r"\w+|\d|\s+|[\p{P}\p{S}]+|\p{Lu}\p{Ll}*|\p{M}|\p{C}"},
     "behavior": "Isolated", "invert": False},
    {"type": "Whitespace"},
    {"type": "WhitespaceSplit"},
    {"type": "Digits", "individual_digits": True},
    {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
]
NORMALIZERS = [{"type": t} for t in ("NFC", "NFD", "NFKC", "NFKD", "Lowercase", "StripAccents")]


def digest(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def chunk_strings():
    cps = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for i in range(0, len(cps), CHUNK):
        part = cps[i:i + CHUNK]
        yield "".join(chr(c) for c in part), "".join("x" + chr(c) + " " for c in part)


def _pre(spec):
    t = spec["type"]
    if t == "ByteLevel":
        return pre_tokenizers.ByteLevel(add_prefix_space=spec["add_prefix_space"], use_regex=spec["use_regex"])
    if t == "Split":
        return pre_tokenizers.Split(Regex(spec["pattern"]["Regex"]), spec["behavior"].lower(), invert=spec["invert"])
    if t == "Whitespace":
        return pre_tokenizers.Whitespace()
    if t == "WhitespaceSplit":
        return pre_tokenizers.WhitespaceSplit()
    if t == "Digits":
        return pre_tokenizers.Digits(individual_digits=spec["individual_digits"])
    if t == "Metaspace":
        return pre_tokenizers.Metaspace(replacement=spec["replacement"], prepend_scheme=spec["prepend_scheme"],
                                        split=spec["split"])
    raise ValueError(t)


def _norm(spec):
    return getattr(normalizers, spec["type"])()


def lines():
    chunks = list(chunk_strings())
    for spec in PRE_TOKENIZERS:
        pre = _pre(spec)
        for variant in (0, 1):
            hashes = [digest("\x00".join(p for p, _ in pre.pre_tokenize_str(c[variant]))) for c in chunks]
            yield {"pre_tokenizer": spec, "variant": variant, "chunk": CHUNK, "hashes": hashes}
    for spec in NORMALIZERS:
        norm = _norm(spec)
        for variant in (0, 1):
            hashes = [digest(norm.normalize_str(c[variant])) for c in chunks]
            yield {"normalizer": spec, "variant": variant, "chunk": CHUNK, "hashes": hashes}
