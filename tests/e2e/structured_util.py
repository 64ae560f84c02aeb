"""Helpers for the structured-output end-to-end tests (not a test module itself).

The e2e model has random weights, so the grammar mask alone makes outputs valid. A random model
also likes to repeat tokens, which would keep unbounded parts (free strings, additional property
keys, fraction digits) going until max_tokens; TERMINATION_BIAS nudges it toward closing them
(`"`, `}`, `]` up, digits down). It only reorders tokens the mask allows: validity still comes
from the grammar alone.

The schema corpus is tests/golden/constrain/schemas.jsonl, written by
scripts/golden/constrain/gen_schemas.py (320 seeded schemas, every one bounded), the same
corpus the C++ schema walk checks on the real vocabulary.
"""
import collections
import concurrent.futures
import json
import os
import random
import sys
import time

import jsonschema

import gemmad_e2e as e2e

SCHEMAS_PATH = os.path.join(e2e.SOURCE_DIR, "tests", "golden", "constrain", "schemas.jsonl")
sys.path.insert(0, os.path.join(e2e.SOURCE_DIR, "scripts", "golden", "constrain"))
from validate_outputs import compact_spacing_ok, denullable  # noqa: E402


def load_schemas():
    with open(SCHEMAS_PATH, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def token_ids(server, text):
    status, _, body = e2e.http("POST", server.base_url + "/tokenize",
                               {"model": e2e.DEFAULT_REPO, "prompt": text, "add_special_tokens": False})
    assert status == 200, body
    return json.loads(body)["tokens"]


# Divides the logits of tokens already generated: breaks the random model's "2222…" loops.
REPETITION_PENALTY = 1.5
# Grows with each repeat: ends the loops the repetition penalty alone does not ("2222…" in a number
# of an any-JSON value).
FREQUENCY_PENALTY = 0.5


BYTE_TOKEN_BASE = 238  # Gemma 4's byte-fallback token <0xHH> is id 238 + HH


def detokenize(server, ids):
    status, _, body = e2e.http("POST", server.base_url + "/detokenize", {"model": e2e.DEFAULT_REPO, "tokens": ids})
    assert status == 200, body
    return json.loads(body)["prompt"]


def char_token_ids(server, ch):
    """The ids that spell the ASCII character `ch` alone: its normal token and its byte token."""
    ids = token_ids(server, ch)
    assert len(ids) == 1, (ch, ids)
    byte_id = BYTE_TOKEN_BASE + ord(ch)
    assert detokenize(server, [byte_id]) == ch, (ch, byte_id)
    return [ids[0], byte_id]


def termination_bias(server, extra=()):
    """logit_bias for the random model (module docstring); `extra`: more (char, value) pairs."""
    bias = {}
    for text, value in [('"', 60), ("}", 10), ("]", 10), (",", 6)] + [(str(d), -12) for d in range(10)] + list(extra):
        for t in char_token_ids(server, text):
            bias[str(t)] = value
    for stop in ("<turn|>", "<eos>"):  # end a complete top-level value rather than trailing whitespace
        ids = token_ids(server, stop)
        assert len(ids) == 1, (stop, ids)
        bias[str(ids[0])] = 10
    return bias


def validate(value, schema):
    jsonschema.validate(value, denullable(schema), cls=jsonschema.Draft202012Validator,
                        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


# Keywords counted for the coverage table (as gen_schemas.py names them).
FORMATS = ["date", "date-time", "time", "uuid", "email", "ipv4"]


def coverage(entries):
    """keyword -> number of schemas using it (each schema counted once per keyword)."""
    counts = collections.Counter()

    def walk(s, seen):
        if isinstance(s, list):
            for x in s:
                walk(x, seen)
            return
        if not isinstance(s, dict):
            return
        for k, v in s.items():
            if k == "properties" and isinstance(v, dict):
                seen.add("properties")
                for sub in v.values():
                    walk(sub, seen)
                continue
            if k == "$defs" and isinstance(v, dict):
                seen.add("$defs")
                for sub in v.values():
                    walk(sub, seen)
                continue
            if k == "type":
                for t in (v if isinstance(v, list) else [v]):
                    seen.add("type:" + t)
                if isinstance(v, list):
                    seen.add("type-list")
            elif k == "format":
                seen.add("format:" + v)
            elif k == "additionalProperties":
                seen.add("additionalProperties:" + ("false" if v is False else "true" if v is True else "schema"))
            elif k == "$ref":
                seen.add("$ref")
            else:
                seen.add(k)
            walk(v, seen)

    for d in entries:
        seen = set()
        walk(d["schema"], seen)
        if '"$ref": "#/$defs/node"' in json.dumps(d["schema"]) and "kids" in json.dumps(d["schema"]):
            seen.add("recursion")
        if d["compact"]:
            seen.add("disable_any_whitespace")
        counts.update(seen)
    return counts


REQUIRED_KEYWORDS = ["type:object", "type:array", "type:string", "type:integer", "type:number", "type:boolean",
                     "type:null", "type-list", "properties", "required", "additionalProperties:false",
                     "additionalProperties:true", "additionalProperties:schema", "enum", "const", "items",
                     "prefixItems", "minItems", "maxItems", "minLength", "maxLength", "pattern"] + \
                    ["format:" + f for f in FORMATS] + \
                    ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "anyOf", "oneOf", "allOf",
                     "$ref", "$defs", "recursion", "nullable", "disable_any_whitespace"]


def print_coverage(counts, total):
    print(f"\nschema keyword coverage over {total} schemas ({getattr(run_schemas, 'last_times', '')}):")
    print(f"  {'keyword':30s} schemas")
    for k in REQUIRED_KEYWORDS:
        print(f"  {k:30s} {counts.get(k, 0)}")


def run_schemas(server, entries, threads=8, max_tokens=800):
    """Sends one chat request per schema (8 at a time); returns the list of failures (strings)."""
    client = server.client(timeout=300)
    bias = termination_bias(server)

    def one(d):
        t0 = time.time()
        r = client.chat.completions.create(
            model=e2e.DEFAULT_REPO, messages=[{"role": "user", "content": "Answer in JSON."}],
            max_tokens=max_tokens, seed=d["id"], logit_bias=bias, frequency_penalty=FREQUENCY_PENALTY,
            extra_body={"structured_outputs": {"json": d["schema"], "disable_any_whitespace": d["compact"]},
                        "repetition_penalty": REPETITION_PENALTY})
        choice = r.choices[0]
        text = choice.message.content
        problems = []
        if choice.finish_reason != "stop":
            problems.append(f"finish_reason {choice.finish_reason!r}")
        try:
            validate(json.loads(text), d["schema"])
            if d["compact"] and not compact_spacing_ok(text):
                problems.append("spacing differs from json.dumps'")
        except Exception as e:  # noqa: BLE001 (every failure is reported)
            problems.append(f"{type(e).__name__}: {str(e)[:200]}")
        return d["id"], problems, text, time.time() - t0

    failures = []
    times = []
    with concurrent.futures.ThreadPoolExecutor(threads) as ex:
        for sid, problems, text, dt in ex.map(one, entries):
            times.append(dt)
            if problems:
                failures.append(f"schema {sid}: {'; '.join(problems)}\n  output: {text[:300]!r}…{text[-300:]!r}")
    times.sort()
    run_schemas.last_times = f"request time p50 {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s"
    return failures


def sample(entries, k, seed):  # a seeded subset (for local runs)
    rng = random.Random(seed)
    return sorted(rng.sample(entries, k), key=lambda d: d["id"])
