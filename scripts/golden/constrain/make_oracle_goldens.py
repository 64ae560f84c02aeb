#!/usr/bin/env python3
"""Oracle goldens for the grammar engine: accept/reject labels from xgrammar (pinned below).

For every schema of tests/golden/constrain/schemas.jsonl, candidate texts are built from:
  * valid-looking instances drawn by a small independent generator (this file),
  * gemmad's own walk outputs, if given (--walk-outputs, from constrain_schema_walk_test),
  * re-spacings of those (compact / json.dumps / indented within gemmad's whitespace bounds),
  * mutations (deleted, inserted, replaced characters; truncations; wrong types).
Each (schema, text) pair is labelled by xgrammar's full-match acceptance and written to
tests/golden/constrain/oracle_cases.jsonl with the MANIFEST beside it. Whitespace in candidates
stays within gemmad's documented bounds, so the two engines' grammars agree by construction.
Dev-time only (xgrammar is never needed in CI): /work/venv-dev/bin/pip install xgrammar==0.2.8
Usage: make_oracle_goldens.py [--walk-outputs PATH]
"""
import argparse
import copy
import json
import os
import random
import sys

import xgrammar
from xgrammar import testing as xgt

XGRAMMAR_VERSION = "0.2.8"
SEED = 424242
HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "..", "tests", "golden", "constrain")


def denullable(s):
    if isinstance(s, list):
        return [denullable(x) for x in s]
    if not isinstance(s, dict):
        return s
    out = {k: denullable(v) for k, v in s.items() if k != "nullable"}
    if s.get("nullable") is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


class Instance:
    """Draws JSON values that usually satisfy a schema (patterns/formats from a small table)."""

    SAMPLES = {"date": "2024-02-28", "date-time": "1999-12-31T23:59:59Z", "time": "08:30:00+02:00",
               "uuid": "123e4567-e89b-12d3-a456-426614174000", "email": "ann.lee@example.org", "ipv4": "192.168.0.1"}

    def __init__(self, rng, root):
        self.rng = rng
        self.root = root

    def resolve(self, ref):
        node = self.root
        for part in ref.lstrip("#/").split("/"):
            if part:
                node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def value(self, s, depth=0):
        r = self.rng
        if s is True or s == {}:
            return r.choice([1, "x", None, True, [1], {"k": 2}])
        if s is False:
            return None
        if "$ref" in s:
            return self.value(self.resolve(s["$ref"]), depth + 1) if depth < 6 else None
        if "allOf" in s:
            out = {}
            for b in s["allOf"]:
                v = self.value(b, depth + 1)
                if isinstance(v, dict):
                    out.update(v)
            return out
        for k in ("anyOf", "oneOf"):
            if k in s:
                return self.value(r.choice(s[k]), depth + 1)
        if "const" in s:
            return s["const"]
        if "enum" in s:
            return r.choice(s["enum"])
        t = s.get("type", "object")
        if isinstance(t, list):
            t = r.choice(t)
        if t == "null":
            return None
        if t == "boolean":
            return r.random() < 0.5
        if t in ("integer", "number"):
            lo = s.get("minimum", s.get("exclusiveMinimum", -50))
            hi = s.get("maximum", s.get("exclusiveMaximum", 50))
            if t == "integer":
                import math
                a, b = math.ceil(lo), math.floor(hi)
                if "exclusiveMinimum" in s and a == lo:
                    a += 1
                if "exclusiveMaximum" in s and b == hi:
                    b -= 1
                return r.randint(a, b) if a <= b else a
            v = round(r.uniform(lo, hi), r.choice([0, 1, 3]))
            return v
        if t == "string":
            if "format" in s and s["format"] in self.SAMPLES:
                return self.SAMPLES[s["format"]]
            lo_len = s.get("minLength", 0)
            n = r.randint(lo_len, max(lo_len, min(s.get("maxLength", 8), 12)))
            return "".join(r.choice("abcxyz0129é-") for _ in range(n))
        if t == "array":
            items = s.get("items", True)
            pre = s.get("prefixItems", [])
            n = r.randint(s.get("minItems", 0), max(s.get("minItems", 0), s.get("maxItems", 3)))
            out = []
            for i in range(n):
                if i < len(pre):
                    out.append(self.value(pre[i], depth + 1))
                elif items is not False:
                    out.append(self.value(items, depth + 1))
            return out
        props = s.get("properties", {})
        req = set(s.get("required", []))
        out = {}
        for k, v in props.items():
            if k in req or r.random() < 0.6:
                out[k] = self.value(v, depth + 1)
        return out


def respace(value, rng, compact):
    if compact:
        return [json.dumps(value, ensure_ascii=False)]
    variants = [json.dumps(value, ensure_ascii=False), json.dumps(value, ensure_ascii=False, separators=(",", ":")),
                json.dumps(value, ensure_ascii=False, indent=2)]
    return [rng.choice(variants)]


def mutate(text, rng):
    if not text:
        return "x"
    i = rng.randrange(len(text))
    op = rng.randrange(6)
    if op == 0:
        return text[:i] + text[i + 1:]
    if op == 1:
        return text[:i] + rng.choice('{}[]",:0a -\n') + text[i:]
    if op == 2:
        return text[:i] + rng.choice('{}[]",:0a -') + text[i + 1:]
    if op == 3:
        return text[:i]
    if op == 4:
        return text + rng.choice(["}", ",", "0", " x", "\n\n"])
    return text.replace("true", "1", 1) if "true" in text else text.replace('"', "'", 1)


def accepts(grammar, text):
    return bool(xgt._is_grammar_accept_string(grammar, text))


def jsonschema_accepts(text, schema):
    import jsonschema
    try:
        value = json.loads(text, object_pairs_hook=lambda pairs: dict(pairs))
        jsonschema.validate(value, schema, cls=jsonschema.Draft202012Validator,
                            format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        return True
    except Exception:
        return False


def within_ws_bounds(text):
    """gemmad's whitespace policy between tokens: <= 4 blanks, then optionally one newline and
    <= 40 blanks of indentation (docs/structured-outputs.md)."""
    in_str = esc = False
    run = ""
    for c in text + "x":
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
            continue
        if c in " \t\n":
            run += c
            continue
        if run:
            head, nl, tail = run.partition("\n")
            if len(head) > 4 or "\n" in tail or len(tail) > 40:
                return False
            run = ""
        if c == '"':
            in_str = True
    return True


def canonical(value, schema, root, depth=0):
    """True when some reading of `value` lists declared properties first, in schema order, and
    additional keys (after them) without characters that need escaping: the serialisations both
    grammar engines generate. Texts outside that form are not used as cases."""
    if depth > 20 or not isinstance(schema, dict):
        return True
    if "$ref" in schema:
        node = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            if part:
                node = node[part]
        return canonical(value, node, root, depth + 1)
    for k in ("anyOf", "oneOf"):
        if k in schema:
            return any(canonical(value, b, root, depth + 1) for b in schema[k])
    if isinstance(value, list):
        pre = schema.get("prefixItems", [])
        items = schema.get("items", True)
        return all(canonical(v, pre[i] if i < len(pre) else items, root, depth + 1) for i, v in enumerate(value))
    if not isinstance(value, dict):
        return True
    props = list(schema.get("properties", {}).keys())
    keys = list(value.keys())
    declared = [k for k in keys if k in props]
    extra_at = [i for i, k in enumerate(keys) if k not in props]
    if declared != [p for p in props if p in declared]:
        return False
    if extra_at and any(keys.index(d) > extra_at[0] for d in declared):
        return False
    if any(any(c in k for c in '"\\') or any(ord(c) < 32 for c in k) for k in keys if k not in props):
        return False
    addl = schema.get("additionalProperties", True)
    return all(canonical(v, schema.get("properties", {}).get(k, addl), root, depth + 1) for k, v in value.items())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--walk-outputs", default="")
    args = ap.parse_args()
    if xgrammar.__version__ != XGRAMMAR_VERSION if hasattr(xgrammar, "__version__") else False:
        sys.exit(f"xgrammar {XGRAMMAR_VERSION} required")
    rng = random.Random(SEED)
    walk = {}
    if args.walk_outputs:
        with open(args.walk_outputs, encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                walk[d["id"]] = d["output"]
    cases = []
    skipped = []
    dropped_disagree = 0
    dropped_order = 0
    with open(os.path.join(GOLDEN, "schemas.jsonl"), encoding="utf-8") as f:
        entries = [json.loads(line) for line in f]
    for e in entries:
        schema = denullable(e["schema"])
        if "allOf" in json.dumps(schema):
            skipped.append(f"{e['id']}: uses allOf (xgrammar 0.2.8 merges allOf only partially)")
            continue
        try:
            grammar = xgrammar.Grammar.from_json_schema(json.dumps(schema), any_whitespace=not e["compact"],
                                                        strict_mode=False)
        except RuntimeError as err:
            skipped.append(f"{e['id']}: {str(err).splitlines()[-1][:120]}")
            continue
        texts = set()
        if e["id"] in walk:
            texts.add(walk[e["id"]])
            try:
                texts.update(respace(json.loads(walk[e["id"]]), rng, e["compact"]))
            except ValueError:
                pass
        gen = Instance(rng, e["schema"])
        for _ in range(10):
            texts.update(respace(gen.value(copy.deepcopy(e["schema"])), rng, e["compact"]))
        base = sorted(texts)
        for t in base[:]:
            for _ in range(2):
                texts.add(mutate(t, rng))
            for _ in range(2):  # re-spaced variants within gemmad's whitespace bounds
                texts.add(t.replace(", ", ",\n  ", 1).replace(": ", ":", 1) if not e["compact"] else t)
        for t in sorted(texts):
            label = accepts(grammar, t)
            truth = jsonschema_accepts(t, schema)
            if label != truth:
                dropped_disagree += 1  # xgrammar and jsonschema differ: no trustworthy label
                continue
            if label and (not canonical(json.loads(t), schema, schema) or not within_ws_bounds(t)):
                dropped_order += 1
                continue
            cases.append({"id": e["id"], "compact": e["compact"], "text": t, "accept": label})
    rejects = sum(1 for c in cases if not c["accept"])
    with open(os.path.join(GOLDEN, "oracle_cases.jsonl"), "w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    with open(os.path.join(GOLDEN, "MANIFEST"), "w", encoding="utf-8") as f:
        f.write(f"oracle: xgrammar=={XGRAMMAR_VERSION} (Grammar.from_json_schema, strict_mode=False,"
                f" any_whitespace=not compact; nullable rewritten as anyOf null)\n")
        f.write(f"seed: {SEED}\nschemas: schemas.jsonl from gen_schemas.py (seed 20260601)\n")
        f.write(f"cases: {len(cases)} ({rejects} rejects, {100.0 * rejects / max(1, len(cases)):.1f}%)\n")
        import jsonschema
        f.write(f"python: {sys.version.split()[0]}, jsonschema=={jsonschema.__version__} (second opinion): kept"
                f" only cases where xgrammar and jsonschema agree; dropped {dropped_disagree} where they differ (xgrammar reads unanchored"
                f" patterns as anchored, counts escapes in lengths, ...) and {dropped_order} accepted texts whose"
                f" property order or additional keys fall outside the forms both engines generate\n")
        for sk in skipped:
            f.write(f"skipped schema (xgrammar refused it): {sk}\n")
    sys.path.insert(0, HERE)
    from gen_schemas import update_constrain_manifest
    update_constrain_manifest()  # tests/golden/MANIFEST.json: hashes of the whole constrain area
    print(f"{len(cases)} cases, {rejects} rejects ({100.0 * rejects / max(1, len(cases)):.1f}%)")


if __name__ == "__main__":
    main()
