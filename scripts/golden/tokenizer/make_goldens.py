#!/usr/bin/env python3
"""Writes the tokenizer goldens under tests/golden/tokenizer/ with HF `tokenizers` (pinned 0.23.3).

    /work/venv-dev/bin/python scripts/golden/tokenizer/make_goldens.py [--retrain] [REPO_ROOT]

For the two shared tokenizers (../shared/data/tokenizers/{gemma3,gemma4}) and for small
tokenizers trained here (trained.py; their tokenizer.json files are written to
tests/golden/tokenizer/trained/), one JSON line per case:
  {"t": text, "e": ids, "es": ids with special tokens, "d": decode(es), "ds": decode(es, skip)}
  {"ids": random ids, "d": decode(ids), "ds": decode(ids, skip_special_tokens=True)}
unicode_sweep.jsonl hashes every code point through HF's pre-tokenizers and normalizers
(unicode_sweep.py). Everything is seeded; rerunning gives identical files. The trained tokenizer.json files are kept
when present: HF's BpeTrainer is not reproducible when it has to build a prefixed alphabet
(continuing_subword_prefix / end_of_word_suffix break count ties in hash order), so they are
trained once and committed; --retrain trains them all again. MANIFEST.json records versions, counts
and the check of ../shared/data/templates/gemma4/renders.json against HF.
"""
import json
import os
import platform
import sys

os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ["RAYON_NUM_THREADS"] = "1"

import tokenizers  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402
import trained  # noqa: E402
import unicode_sweep  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from check_manifest import update_manifest  # noqa: E402

PINNED = "0.23.3"
SEED = 20260520
NUM_SHARED_STRINGS = 2400
NUM_TRAINED_STRINGS = 360
NUM_DECODE_SEQS = 300
NUM_TRAINED_DECODE_SEQS = 150


def dump_line(f, obj):
    f.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")


def decodes(tok, ids, case):
    # HF panics on a few inputs (e.g. the Strip decoder on an empty string); such a decode has
    # no defined result and is left out of the golden (the key is absent).
    for key, skip in (("d", False), ("ds", True)):
        try:
            case[key] = tok.decode(ids, skip_special_tokens=skip)
        except BaseException as e:  # pyo3 PanicException derives from BaseException
            if type(e).__name__ != "PanicException":
                raise
    return case


def write_cases(tok, texts, id_seqs, path):
    with open(path, "w", encoding="utf-8") as f:
        for t in texts:
            e = tok.encode(t, add_special_tokens=False).ids
            es = tok.encode(t, add_special_tokens=True).ids
            dump_line(f, decodes(tok, es, {"t": t, "e": e, "es": es}))
        for ids in id_seqs:
            dump_line(f, decodes(tok, ids, {"ids": ids}))


def id_sequences(tok, seed, count):
    vocab = tok.get_vocab(with_added_tokens=True)
    specials = sorted(i for i, a in tok.get_added_tokens_decoder().items() if a.special)
    byte_ids = sorted(i for s, i in vocab.items() if len(s) == 6 and s.startswith("<0x") and s.endswith(">"))
    return corpus.random_id_sequences(seed, tok.get_vocab_size(with_added_tokens=True), specials, byte_ids,
                                      count)


def check_renders(shared, tok):
    rows = json.load(open(os.path.join(shared, "data", "templates", "gemma4", "renders.json"), encoding="utf-8"))
    bad = []
    for k, row in enumerate(rows):
        ids = tok.encode(row["prompt"], add_special_tokens=False).ids
        if ids != row["prompt_token_ids"]:
            bad.append(k)
    return {"rows": len(rows), "hf_mismatching_rows": bad}


def main():
    if tokenizers.__version__ != PINNED:
        sys.exit(f"need tokenizers=={PINNED}, have {tokenizers.__version__}")
    args = [a for a in sys.argv[1:] if a != "--retrain"]
    retrain = "--retrain" in sys.argv[1:]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    shared = os.path.join(root, "..", "shared")
    out = os.path.join(root, "tests", "golden", "tokenizer")
    os.makedirs(os.path.join(out, "trained"), exist_ok=True)
    manifest = {"tokenizers": tokenizers.__version__, "seed": SEED, "files": {}}

    texts = corpus.build(SEED, NUM_SHARED_STRINGS)
    for name in ("gemma3", "gemma4"):
        tok = Tokenizer.from_file(os.path.join(shared, "data", "tokenizers", name, "tokenizer.json"))
        write_cases(tok, texts, id_sequences(tok, SEED + 1, NUM_DECODE_SEQS), os.path.join(out, name + ".jsonl"))
        manifest["files"][name + ".jsonl"] = {"strings": len(texts), "decode_sequences": NUM_DECODE_SEQS}
        if name == "gemma4":
            manifest["renders_check"] = check_renders(os.path.join(root, "..", "shared"), tok)

    train_texts = corpus.build(SEED + 2, 3000)
    trained_texts = texts[:NUM_TRAINED_STRINGS // 2] + texts[-(NUM_TRAINED_STRINGS // 2):]
    for name, (build, edit) in trained.TOKENIZERS.items():
        path = os.path.join(out, "trained", name + ".json")
        if retrain or not os.path.exists(path):
            j = json.loads(build(train_texts).to_str())
            if edit is not None:
                edit(j)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(j, f, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
                f.write("\n")
        tok = Tokenizer.from_file(path)  # goldens come from the file as written
        write_cases(tok, trained_texts, id_sequences(tok, SEED + 3, NUM_TRAINED_DECODE_SEQS), os.path.join(out, "trained", name + ".jsonl"))
        manifest["files"]["trained/" + name + ".jsonl"] = {"strings": len(trained_texts),
                                                           "decode_sequences": NUM_TRAINED_DECODE_SEQS}
    with open(os.path.join(out, "unicode_sweep.jsonl"), "w", encoding="utf-8") as f:
        for line in unicode_sweep.lines():
            dump_line(f, line)
    manifest["files"]["unicode_sweep.jsonl"] = {"chunk": unicode_sweep.CHUNK}
    with open(os.path.join(out, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    update_manifest(os.path.join(root, "tests", "golden"), "tokenizer", {
        "generator": "scripts/golden/tokenizer/make_goldens.py", "seed": SEED,
        "versions": {"tokenizers": tokenizers.__version__, "python": platform.python_version()}})
    print(json.dumps(manifest["renders_check"]))


if __name__ == "__main__":
    main()
