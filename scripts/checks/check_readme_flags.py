#!/usr/bin/env python3
"""Keeps README.md's `gemmad serve` flag table honest.

    check_readme_flags.py --gemmad BIN --root SRC          check README.md
    check_readme_flags.py --gemmad BIN --root SRC --write  rewrite the table in README.md
    check_readme_flags.py --self-test                      prove the checks fail when violated

1. The block between `<!-- flags:begin -->` and `<!-- flags:end -->` equals the output of
   `gemmad serve --help=markdown`.
2. Every test the "tested by" column names exists:
   `e2e NAME`   -> tests/e2e/NAME.py, or a `def NAME(` in tests/e2e/*.py
   `unit NAME`, `golden NAME`, `parity NAME` -> a gtest suite `TEST(NAME,` / `TEST_F(NAME,` /
                   `TEST_P(NAME,` under src/ or tests/, or a ctest/e2e name as above.
   Entries are separated by commas; "e2e (every module)" is accepted as is.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

BEGIN = "<!-- flags:begin -->"
END = "<!-- flags:end -->"


def readme_block(text):
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        return None
    return text[b + len(BEGIN):e].strip("\n")


def tested_by_cells(markdown):
    cells = []
    for line in markdown.splitlines():
        if not line.startswith("| `--"):
            continue
        cols = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if len(cols) >= 5:
            cells.append((cols[0], cols[4]))
    return cells


def index_tests(root):
    e2e_files, e2e_funcs, suites = set(), set(), set()
    for f in glob.glob(os.path.join(root, "tests", "e2e", "*.py")):
        e2e_files.add(os.path.splitext(os.path.basename(f))[0])
        with open(f, encoding="utf-8") as fh:
            e2e_funcs.update(re.findall(r"^\s*def (test_\w+)\(", fh.read(), re.M))
    for f in glob.glob(os.path.join(root, "src", "**", "*.cc"), recursive=True) + \
            glob.glob(os.path.join(root, "tests", "**", "*.cc"), recursive=True):
        with open(f, encoding="utf-8", errors="replace") as fh:
            suites.update(re.findall(r"\bTEST(?:_F|_P)?\(\s*(\w+)\s*,", fh.read()))
            fh.seek(0)
            suites.update(re.findall(r"INSTANTIATE_TEST_SUITE_P\(\s*(\w+)\s*,", fh.read()))
    return e2e_files, e2e_funcs, suites


def check_references(markdown, root):
    e2e_files, e2e_funcs, suites = index_tests(root)
    errors = []
    for flag, cell in tested_by_cells(markdown):
        if cell in ("—", "-", ""):
            continue
        for entry in [x.strip() for x in cell.split(",")]:
            parts = entry.split()
            if entry == "e2e (every module)":
                continue
            if len(parts) < 2:
                errors.append(f"{flag}: 'tested by' entry '{entry}' is not '<label> <test>'")
                continue
            label, names = parts[0], parts[1:]
            for name in names:
                ok = name in e2e_files or name in e2e_funcs if label == "e2e" else \
                    name in suites or name in e2e_files or name in e2e_funcs
                if not ok:
                    errors.append(f"{flag}: 'tested by' names {label} test '{name}', which does not exist")
    return errors


def check(gemmad, root, write=False):
    out = subprocess.run([gemmad, "serve", "--help=markdown"], capture_output=True, text=True, check=True).stdout
    generated = out.strip("\n")
    path = os.path.join(root, "README.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    block = readme_block(text)
    if block is None:
        return [f"{path}: no {BEGIN} ... {END} block"]
    if write:
        b, e = text.find(BEGIN), text.find(END)
        text = text[:b + len(BEGIN)] + "\n" + generated + "\n" + text[e:]
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        block = generated
    errors = []
    if block != generated:
        errors.append(f"{path}: the flag table differs from `gemmad serve --help=markdown` "
                      "(run scripts/checks/check_readme_flags.py --write)")
    errors += check_references(generated, root)
    return errors


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "tests", "e2e"))
        os.makedirs(os.path.join(root, "src", "a"))
        with open(os.path.join(root, "tests", "e2e", "test_x.py"), "w") as f:
            f.write("def test_port():\n    pass\n")
        with open(os.path.join(root, "src", "a", "a_test.cc"), "w") as f:
            f.write("TEST(FlagSuite, Works) {}\n")
        good = ("| `--a` | x | y | yes | e2e test_x, unit FlagSuite | m |\n"
                "| `--b` | x | y | yes | e2e test_port | m |\n| `--c` | x | y | no | — | m |\n")
        bad = good + "| `--d` | x | y | yes | e2e test_missing | m |\n| `--e` | x | y | yes | unit NoSuite | m |\n"
        assert check_references(good, root) == [], check_references(good, root)
        errs = check_references(bad, root)
        assert len(errs) == 2 and "test_missing" in errs[0] and "NoSuite" in errs[1], errs
        assert readme_block("no markers") is None
        assert readme_block(f"a\n{BEGIN}\nT\n{END}\n") == "T"
    print("self-test passed: missing tests and a missing block are detected")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gemmad")
    ap.add_argument("--root")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    errors = check(a.gemmad, a.root, a.write)
    for e in errors:
        print("FAIL: " + e)
    if not errors:
        print("README flag table matches `gemmad serve --help=markdown`; every named test exists")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
