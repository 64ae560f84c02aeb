#!/usr/bin/env python3
"""Rejects #include lines that break the module layering of docs/ARCHITECTURE.md §2.

Usage: check_layering.py [--src DIR]     check a source tree (default: <repo>/src)
       check_layering.py --self-test      prove the check fails on a violating tree
A file in src/<module>/ may include "<other>/..." only if <other> is in ALLOWED[<module>];
third-party headers are confined as the architecture says (HTTP only in server/, JSON never in
kernels/, kv/, sched/). src/main.cc counts as cli.
"""
import os
import re
import sys
import tempfile

L0 = {"base"}
L1 = L0 | {"io", "tensor"}
L2 = L1 | {"kernels", "tokenizer", "template", "parse", "constrain", "mm"}
L3 = L2 | {"model", "kv", "sample", "spec"}
ALLOWED = {
    "base": set(),
    "io": {"base", "tensor"},
    "tensor": {"base"},
    "kernels": {"base", "tensor", "io"},
    "tokenizer": {"base", "tensor", "io"},
    "template": {"base", "tensor", "io"},
    "parse": {"base", "tensor", "io", "tokenizer"},
    "constrain": {"base", "tensor", "io", "tokenizer"},
    "mm": {"base", "tensor", "io"},
    "model": L2 - {"tokenizer", "template", "parse", "constrain"},
    "kv": {"base"},  # kv knows no tensors
    "sample": L2,
    "spec": L2 | {"model", "sample"},
    "sched": {"base", "kv"},
    "runner": L3 | {"sched"},
    "engine": L3 | {"sched", "runner"},
    "api": {"base", "io", "tensor", "engine", "tokenizer", "template", "parse", "mm", "constrain", "sample"},
    "server": {"base", "io", "api", "engine"},
    "cli": None,  # composition root: anything
}
MODULES = set(ALLOWED)
# Third-party headers allowed only in some modules.
THIRD_PARTY = [
    (re.compile(r"^(httplib\.h|boost/(beast|asio))"), {"server"}, "the HTTP library"),
    (re.compile(r"^nlohmann/"), MODULES - {"kernels", "kv", "sched"}, "nlohmann JSON"),
    (re.compile(r"^cuda|^cublas|^nccl"), {"kernels", "cli"}, "CUDA headers"),
]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
EXTS = (".h", ".hh", ".hpp", ".cc", ".cpp", ".cu", ".cuh", ".inc")


def module_of(rel):
    parts = rel.split(os.sep)
    if len(parts) == 1:
        return "cli"  # src/main.cc
    return parts[0]


def check_tree(src):
    errors = []
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(EXTS):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            mod = module_of(rel)
            if mod not in MODULES:
                errors.append(f"{rel}: unknown module '{mod}' (add it to the layering table)")
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    header = m.group(2)
                    top = header.split("/")[0]
                    if m.group(1) == '"' and "/" in header and top in MODULES:
                        allowed = ALLOWED[mod]
                        if top != mod and allowed is not None and top not in allowed:
                            errors.append(f"{rel}:{lineno}: module '{mod}' may not include '{header}' "
                                          f"(allowed: {', '.join(sorted(allowed)) or 'none'})")
                        continue
                    for pattern, mods, what in THIRD_PARTY:
                        if pattern.match(header) and mod not in mods:
                            errors.append(f"{rel}:{lineno}: {what} ('{header}') may not be used in '{mod}'")
    return errors


def self_test():
    with tempfile.TemporaryDirectory() as d:
        def write(rel, text):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        write("base/ok.h", '#include <vector>\n')
        write("kv/ok.cc", '#include "base/ok.h"\n#include "kv/x.h"\n')
        if check_tree(d):
            print("self-test: a clean tree was rejected", file=sys.stderr)
            return 1
        write("kv/bad.cc", '#include "tensor/tensor_view.h"\n')
        write("sched/bad2.cc", '#include <nlohmann/json.hpp>\n')
        errs = check_tree(d)
        if len(errs) != 2 or "kv/bad.cc:1" not in errs[0] + errs[1]:
            print("self-test: violations not detected: %r" % errs, file=sys.stderr)
            return 1
    print("self-test passed: violations are detected")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src")
    if "--src" in argv:
        src = argv[argv.index("--src") + 1]
    errors = check_tree(src)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"{len(errors)} layering violation(s)", file=sys.stderr)
        return 1
    print("layering ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
