#!/usr/bin/env python3
"""`gemmad tokenize` / `gemmad detokenize` end to end on the shared Gemma 3 and Gemma 4 tokenizers.

    cli_test.py GEMMAD_BINARY SOURCE_DIR SHARED_DIR

Feeds golden texts as arguments and as JSON lines on stdin (a model directory and a
tokenizer.json path), compares ids and decodes with the HF goldens, and checks the one-line exit-2 errors.
Standard library only.
"""
import json
import os
import subprocess
import sys

CASES = 150


def run(binary, args, stdin=None):
    p = subprocess.run([binary] + args, input=stdin, capture_output=True, text=True, encoding="utf-8")
    return p.returncode, p.stdout, p.stderr


def lines(out):
    # Not str.splitlines(): decoded text may hold U+2028, U+0085 and the like, which JSON
    # leaves unescaped; only "\n" separates the outputs.
    return [json.loads(l) for l in out.split("\n")[:-1]]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check_tokenizer(binary, golden, path):
    cases = []
    with open(golden, encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            if "t" in c and "\x00" not in c["t"]:
                cases.append(c)
            if len(cases) == CASES:
                break
    for special, key in ((False, "e"), (True, "es")):
        flag = ["--add-special-tokens"] if special else []
        stdin = "".join(json.dumps(c["t"]) + "\n" for c in cases)
        rc, out, err = run(binary, ["tokenize", "--tokenizer", path] + flag + ["-"], stdin)
        if rc != 0:
            fail(f"tokenize - rc={rc}: {err}")
        got = lines(out)
        want = [c[key] for c in cases]
        if got != want:
            bad = next(i for i in range(len(want)) if i >= len(got) or got[i] != want[i])
            fail(f"tokenize stdin {path} special={special} case {bad}: {cases[bad]['t']!r}")
    # Arguments (first 20 texts that do not start with '-').
    arg_cases = [c for c in cases if not c["t"].startswith("-")][:20]
    rc, out, err = run(binary, ["tokenize", "--tokenizer", path] + [c["t"] for c in arg_cases])
    if rc != 0 or lines(out) != [c["e"] for c in arg_cases]:
        fail(f"tokenize arguments {path}: rc={rc} {err}")
    for skip, key in ((False, "d"), (True, "ds")):
        flag = ["--skip-special-tokens"] if skip else []
        stdin = "".join(json.dumps(c["es"]) + "\n" for c in cases)
        rc, out, err = run(binary, ["detokenize", "--tokenizer", path] + flag + ["-"], stdin)
        if rc != 0 or lines(out) != [c[key] for c in cases]:
            fail(f"detokenize skip={skip}: rc={rc} {err}")
    rc, out, err = run(binary, ["detokenize", "--tokenizer", path, json.dumps(cases[0]["es"])])
    if rc != 0 or json.loads(out) != cases[0]["d"]:
        fail("detokenize argument")


def check_errors(binary, tok_path):
    for args, stdin in ((["tokenize", "x"], None), (["tokenize", "--tokenizer", "/nonexistent", "x"], None),
                        (["tokenize", "--tokenizer", tok_path, "-"], "not json\n"),
                        (["detokenize", "--tokenizer", tok_path, "[1,-1]"], None),
                        (["detokenize", "--tokenizer", tok_path, "-"], "\"a string\"\n")):
        rc, out, err = run(binary, args, stdin)
        if rc != 2 or err.count("\n") != 1 or not err.startswith("gemmad "):
            fail(f"{args}: expected one error line and exit 2, got rc={rc} err={err!r}")


def main():
    binary, source, shared = sys.argv[1:4]
    # A model directory for one, a tokenizer.json file for the other.
    for name, file in (("gemma3", ""), ("gemma4", "tokenizer.json")):
        check_tokenizer(binary, os.path.join(source, "tests", "golden", "tokenizer", name + ".jsonl"),
                        os.path.join(shared, "data", "tokenizers", name, file))
    check_errors(binary, os.path.join(source, "tests", "golden", "tokenizer", "trained", "split_llama3.json"))
    print("ok")


if __name__ == "__main__":
    main()
