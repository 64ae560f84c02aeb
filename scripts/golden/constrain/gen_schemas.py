#!/usr/bin/env python3
"""Generate the JSON-schema corpus for the structured-output tests (standard library only).

Writes tests/golden/constrain/schemas.jsonl: one line per schema,
  {"id": N, "compact": bool, "schema": {...}}
where "compact" selects disable_any_whitespace. Every schema is "bounded" (strings have maxLength,
a format, an enum or a bounded pattern; arrays have maxItems; additional properties are off or
bounded) so that a random walk, or a random-weight model, terminates. oneOf branches are
disjoint; allOf branches are mergeable. Prints a coverage table: how many schemas use each
keyword (occurrences). Seeded: the output is identical on every run.
Usage: gen_schemas.py [--count N] [--out PATH]
"""
import argparse
import collections
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "tests", "golden"))
SEED = 20260601

KEYWORDS = ["type", "type-list", "properties", "required", "additionalProperties:false",
            "additionalProperties:true", "additionalProperties:schema", "enum", "const", "items",
            "prefixItems", "minItems", "maxItems", "minLength", "maxLength", "pattern",
            "format:date", "format:date-time", "format:time", "format:uuid", "format:email",
            "format:ipv4", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
            "integer", "number", "boolean", "null", "anyOf", "oneOf", "allOf", "$ref", "$defs",
            "recursion", "nullable", "disable_any_whitespace"]

PATTERNS = [r"^[a-z]{1,8}$", r"^[A-Z][a-z]{0,6}$", r"^\d{3}-\d{4}$", r"^(foo|bar|baz)[0-9]?$",
            r"^[a-f0-9]{4,8}$", r"^\w{2,6}$", r"^(ab|cd)+$", r"^x\.y\.z$", r"^[^\"\\]{0,5}$", r"^(\+|-)?\d{1,3}$",
            r"ab", r"^[A-Z]{2}\d{2}", r"[0-9]$", r"^v(\d+\.){2}\d+$", r"^[\u00e9\u00e8a-z]{1,5}$"]
WORDS = ["alpha", "beta", "gamma", "delta", "name", "id", "count", "tags", "x", "y", "kind",
         "value", "items", "note", "créé", "with space", "quote\"d", "back\\slash", "emoji😀", "n1"]


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.used = collections.Counter()

    def mark(self, k):
        self.used[k] += 1

    def string(self):
        r = self.rng.random()
        s = {"type": "string"}
        if r < 0.3:
            self.mark("format:" + (fmt := self.rng.choice(["date", "date-time", "time", "uuid", "email", "ipv4"])))
            s["format"] = fmt
            if self.rng.random() < 0.3:
                s["maxLength"] = 40
                self.mark("maxLength")
            return s
        if r < 0.55:
            s["pattern"] = self.rng.choice(PATTERNS)
            self.mark("pattern")
            s["maxLength"] = self.rng.randint(8, 14)  # every pattern above fits in 8
            self.mark("maxLength")
            return s
        s["maxLength"] = self.rng.randint(0, 16)
        self.mark("maxLength")
        if self.rng.random() < 0.5:
            s["minLength"] = self.rng.randint(0, s["maxLength"])
            self.mark("minLength")
        return s

    def number(self):
        integer = self.rng.random() < 0.5
        s = {"type": "integer" if integer else "number"}
        self.mark("integer" if integer else "number")
        lo = self.rng.choice([-1000, -5, 0, 1, 2.5, 10])
        hi = lo + self.rng.choice([1, 3, 10, 100, 1000.75])
        if integer:
            lo, hi = int(lo), int(hi)
        r = self.rng.random()
        if r < 0.3:
            s["minimum"], s["maximum"] = lo, hi
            self.mark("minimum"); self.mark("maximum")
        elif r < 0.6:
            s["exclusiveMinimum"], s["exclusiveMaximum"] = lo, hi + 1
            self.mark("exclusiveMinimum"); self.mark("exclusiveMaximum")
        elif r < 0.8:
            s["minimum"] = lo
            self.mark("minimum")
            s["maximum"] = hi
            self.mark("maximum")
        else:
            s["maximum"] = hi
            self.mark("maximum")
            s["minimum"] = -10 ** 6
            self.mark("minimum")
        return s

    def scalar(self, depth):
        r = self.rng.random()
        if r < 0.3:
            return self.string()
        if r < 0.55:
            return self.number()
        if r < 0.62:
            self.mark("boolean")
            return {"type": "boolean"}
        if r < 0.66:
            self.mark("null")
            return {"type": "null"}
        if r < 0.76:
            self.mark("enum")
            vals = self.rng.sample(["red", "green", "blue", 1, 2.5, True, None, "a\"b", "é"], self.rng.randint(1, 4))
            return {"enum": vals}
        if r < 0.82:
            self.mark("const")
            return {"const": self.rng.choice(["fixed", 42, False, None, {"k": [1, 2]}])}
        if r < 0.9:
            self.mark("type-list")
            base = self.string()
            base["type"] = ["string", "null"]
            self.mark("null")
            return base
        self.mark("nullable")
        base = self.rng.choice([self.string, self.number])()
        base["nullable"] = True
        return base

    def array(self, depth):
        self.mark("items")
        s = {"type": "array", "items": self.value(depth + 1), "maxItems": self.rng.randint(0, 4)}
        self.mark("maxItems")
        if self.rng.random() < 0.5:
            s["minItems"] = self.rng.randint(0, s["maxItems"])
            self.mark("minItems")
        if self.rng.random() < 0.25:
            s["prefixItems"] = [self.scalar(depth + 1) for _ in range(self.rng.randint(1, 2))]
            self.mark("prefixItems")
            if self.rng.random() < 0.3:
                s["items"] = False
        return s

    def obj(self, depth):
        self.mark("properties")
        names = self.rng.sample(WORDS, self.rng.randint(1, 5))
        props = {n: self.value(depth + 1) for n in names}
        s = {"type": "object", "properties": props}
        req = [n for n in names if self.rng.random() < 0.5]
        if req:
            s["required"] = req
            self.mark("required")
        r = self.rng.random()
        if r < 0.6:
            s["additionalProperties"] = False
            self.mark("additionalProperties:false")
        elif r < 0.8:
            s["additionalProperties"] = {"type": "integer", "minimum": 0, "maximum": 9}
            self.mark("additionalProperties:schema")
        else:
            s["additionalProperties"] = True  # walk-bounded by the test's completion heuristic
            self.mark("additionalProperties:true")
        return s

    def combinator(self, depth):
        r = self.rng.random()
        if r < 0.35:
            self.mark("anyOf")
            return {"anyOf": [self.value(depth + 1) for _ in range(self.rng.randint(2, 3))]}
        if r < 0.7:
            self.mark("oneOf")  # disjoint: distinct types
            kinds = self.rng.sample(["s", "i", "b", "n", "o"], 2)
            mk = {"s": self.string, "i": lambda: {"type": "integer", "minimum": 0, "maximum": 99},
                  "b": lambda: {"type": "boolean"}, "n": lambda: {"type": "null"},
                  "o": lambda: self.obj(depth + 1)}
            return {"oneOf": [mk[k]() for k in kinds]}
        self.mark("allOf")
        a = {"type": "object", "properties": {"a": self.string()}, "required": ["a"]}
        b = {"properties": {"b": self.number()}}
        branches = [a, b]
        if self.rng.random() < 0.5:  # closed: a third branch names every property
            branches.append({"properties": {"a": True, "b": True}, "additionalProperties": False})
            self.mark("additionalProperties:false")
        return {"allOf": branches}

    def value(self, depth):
        if depth >= 3:
            return self.scalar(depth)
        r = self.rng.random()
        if r < 0.45:
            return self.scalar(depth)
        if r < 0.65:
            return self.obj(depth)
        if r < 0.82:
            return self.array(depth)
        return self.combinator(depth)

    def root(self, i):
        self.mark("type")
        r = self.rng.random()
        if i % 7 == 0:
            self.mark("$ref"); self.mark("$defs"); self.mark("recursion")
            return {"$defs": {"node": {"type": "object", "properties": {
                "label": {"type": "string", "maxLength": 6},
                "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 2}},
                "required": ["label"], "additionalProperties": False}},
                "$ref": "#/$defs/node"}
        if i % 7 == 1:
            self.mark("$ref"); self.mark("$defs")
            return {"$defs": {"item": self.scalar(1)}, "type": "object",
                    "properties": {"first": {"$ref": "#/$defs/item"}, "rest": {"type": "array", "items": {"$ref": "#/$defs/item"}, "maxItems": 3}},
                    "required": ["first"], "additionalProperties": False}
        if r < 0.6:
            return self.obj(0)
        if r < 0.75:
            return self.array(0)
        if r < 0.9:
            return self.combinator(0)
        return self.scalar(0)


def update_constrain_manifest():
    """Records the constrain area in tests/golden/MANIFEST.json (called by this script and by
    make_oracle_goldens.py): its two generators, the schema seed, and the oracle's seed and
    versions as make_oracle_goldens.py wrote them into constrain/MANIFEST."""
    sys.path.insert(0, os.path.join(HERE, ".."))
    from check_manifest import update_manifest
    info = {"generator": ["scripts/golden/constrain/gen_schemas.py", "scripts/golden/constrain/make_oracle_goldens.py"],
            "schemas_seed": SEED, "versions": {}}
    oracle = os.path.join(GOLDEN_ROOT, "constrain", "MANIFEST")
    if os.path.exists(oracle):
        with open(oracle, encoding="utf-8") as f:
            text = f.read()
        for key, pattern in [("xgrammar", r"xgrammar==([0-9.]+)"), ("python", r"^python: ([0-9.]+)"),
                             ("jsonschema", r"jsonschema==([0-9.]+)")]:
            m = re.search(pattern, text, re.M)
            if m:
                info["versions"][key] = m.group(1)
        m = re.search(r"^seed: ([0-9]+)", text, re.M)
        if m:
            info["oracle_seed"] = int(m.group(1))
    update_manifest(GOLDEN_ROOT, "constrain", info)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=320)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "..", "tests", "golden", "constrain", "schemas.jsonl"))
    args = ap.parse_args()
    rng = random.Random(SEED)
    g = Gen(rng)
    lines = []
    for i in range(args.count):
        schema = g.root(i)
        compact = i % 3 == 2
        if compact:
            g.mark("disable_any_whitespace")
        lines.append(json.dumps({"id": i, "compact": compact, "schema": schema}, ensure_ascii=False))
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} schemas to {os.path.normpath(args.out)}")
    print(f"{'keyword':32s} occurrences")
    missing = []
    for k in KEYWORDS:
        print(f"{k:32s} {g.used[k]}")
        if g.used[k] == 0:
            missing.append(k)
    if missing:
        raise SystemExit(f"coverage gap: {missing}")
    if os.path.normpath(os.path.abspath(args.out)) == os.path.join(GOLDEN_ROOT, "constrain", "schemas.jsonl"):
        update_constrain_manifest()


if __name__ == "__main__":
    main()
