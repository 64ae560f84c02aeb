#!/usr/bin/env python3
"""Flags source files over 1,000 lines (ARCHITECTURE.md §1: over 1,000 is a defect).

Usage: check_file_size.py [--root DIR] [--max N]   check src/ tests/ bench/ fuzz/ scripts/ examples/
       check_file_size.py --self-test               prove the check fails on an oversized file
Generated and data files (tests/golden/, *.json, corpora) are not code and are skipped.
"""
import os
import sys
import tempfile

CODE_EXTS = (".h", ".hh", ".hpp", ".cc", ".cpp", ".cu", ".cuh", ".py", ".sh", ".cmake", ".jinja")
DIRS = ("src", "tests", "bench", "fuzz", "scripts", "examples", "cmake")
SKIP_PARTS = ("golden", "corpus", "fixtures", "__pycache__")


def check(root, limit):
    errors = []
    for top in DIRS:
        base = os.path.join(root, top)
        for dirpath, dirnames, files in os.walk(base):
            dirnames[:] = [d for d in dirnames if d not in SKIP_PARTS]
            for name in sorted(files):
                if not (name.endswith(CODE_EXTS) or name == "CMakeLists.txt"):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, "rb") as f:
                    n = sum(1 for _ in f)
                if n > limit:
                    errors.append(f"{os.path.relpath(path, root)}: {n} lines (limit {limit}); split it")
    return errors


def self_test():
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "src", "base"))
        small = os.path.join(d, "src", "base", "small.cc")
        with open(small, "w") as f:
            f.write("int x;\n" * 1000)
        if check(d, 1000):
            print("self-test: a 1000-line file was rejected", file=sys.stderr)
            return 1
        with open(os.path.join(d, "src", "base", "big.cc"), "w") as f:
            f.write("int x;\n" * 1001)
        errs = check(d, 1000)
        if len(errs) != 1 or "big.cc: 1001 lines" not in errs[0]:
            print("self-test: oversized file not detected: %r" % errs, file=sys.stderr)
            return 1
    print("self-test passed: an oversized file is detected")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    limit = 1000
    if "--root" in argv:
        root = argv[argv.index("--root") + 1]
    if "--max" in argv:
        limit = int(argv[argv.index("--max") + 1])
    errors = check(root, limit)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        return 1
    print("file sizes ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
