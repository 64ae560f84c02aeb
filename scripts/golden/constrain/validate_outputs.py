#!/usr/bin/env python3
"""Validate structured-output walk results with the `jsonschema` package (CI: .venv).

Usage: validate_outputs.py SCHEMAS.jsonl OUTPUTS.jsonl
SCHEMAS lines: {"id", "compact", "schema"}; OUTPUTS lines: {"id", "output"} (the generated text).
Every output listed (a subset of the schemas may be walked) must parse as JSON and validate (Draft 2020-12 with format checking) against its
schema, where OpenAPI's `nullable: true` (not part of JSON Schema) is rewritten as "or null".
With compact=true the spacing must be exactly json.dumps' (", " and ": ", nothing else). Exit 1 on any failure.
"""
import json
import sys

import jsonschema


def denullable(s):
    if isinstance(s, list):
        return [denullable(x) for x in s]
    if not isinstance(s, dict):
        return s
    out = {k: denullable(v) for k, v in s.items() if k != "nullable"}
    if s.get("nullable") is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def compact_spacing_ok(text):
    """Outside strings, whitespace is exactly one space after ',' or ':' (json.dumps spacing)."""
    in_str = esc = False
    prev = ""
    for i, c in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in " \t\r\n":
            if c != " " or prev not in (",", ":") or (i + 1 < len(text) and text[i + 1] in " \t\r\n"):
                return False
        elif c in ",:" and (i + 1 >= len(text) or text[i + 1] != " "):
            return False
        prev = c
    return True


def main():
    schemas = {}
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            schemas[d["id"]] = d
    failures = 0
    count = 0
    with open(sys.argv[2], encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            count += 1
            entry = schemas[d["id"]]
            text = d["output"]
            try:
                value = json.loads(text)
                jsonschema.validate(value, denullable(entry["schema"]), cls=jsonschema.Draft202012Validator,
                                    format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
                if entry["compact"] and not compact_spacing_ok(text):
                    raise ValueError("spacing differs from json.dumps' \", \" and \": \"")
            except Exception as e:  # report every failure, not just the first
                failures += 1
                print(f"schema {d['id']}: {type(e).__name__}: {str(e)[:300]}\n  output: {text[:300]!r}")
    print(f"validated {count} outputs, {failures} failures")
    if count == 0 or failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
