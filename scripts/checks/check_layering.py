#!/usr/bin/env python3
"""Rejects #include lines and CMake module dependencies that break the layering table of
docs/ARCHITECTURE.md ("Module layering"), which this script reads: the table is the rule, there
is no second copy of it here and no exception list.

Usage: check_layering.py [--src DIR] [--doc FILE]   check a source tree (default: <repo>/src)
       check_layering.py --self-test                 prove the check fails on violating trees
A file in src/<module>/ may include "<other>/..." only if <other> is in the table's row for
<module> ("anything" = the composition root); src/CMakeLists.txt's `gemmad_module(<m> DEPS ...)`
may only name modules of that row. Third-party headers are confined as the architecture says
(HTTP only in server/, JSON never in kernels/, kv/, sched/). src/main.cc counts as cli.
"""
import os
import re
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TABLE_BEGIN = "<!-- layering-table: begin -->"
TABLE_END = "<!-- layering-table: end -->"
ROW = re.compile(r"^\|\s*(L\d+)\s*\|\s*`([a-z_]+)`\s*\|\s*([^|]*)\|")
# Third-party headers allowed only in some modules (None = every module but those listed).
THIRD_PARTY = [
    (re.compile(r"^(httplib\.h|boost/(beast|asio))"), {"server"}, None, "the HTTP library"),
    (re.compile(r"^nlohmann/"), None, {"kernels", "kv", "sched"}, "nlohmann JSON"),
    (re.compile(r"^cuda|^cublas|^nccl"), {"kernels", "cli"}, None, "CUDA headers"),
]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
MODULE_DECL = re.compile(r"^\s*gemmad_module\(\s*(\w+)([^)]*)\)", re.M)
EXTS = (".h", ".hh", ".hpp", ".cc", ".cpp", ".cu", ".cuh", ".inc")


def read_table(doc_text):
    """{module: set of allowed modules, or None for 'anything'} from the marked table."""
    if TABLE_BEGIN not in doc_text or TABLE_END not in doc_text:
        raise ValueError(f"the layering table markers ({TABLE_BEGIN}) are missing")
    body = doc_text.split(TABLE_BEGIN, 1)[1].split(TABLE_END, 1)[0]
    allowed = {}
    for line in body.splitlines():
        m = ROW.match(line.strip())
        if not m:
            continue
        module, deps = m.group(2), m.group(3).strip()
        if module in allowed:
            raise ValueError(f"module '{module}' has two rows")
        if deps.startswith("anything"):
            allowed[module] = None
        elif deps in ("", "none", "—", "-"):
            allowed[module] = set()
        else:
            allowed[module] = set(re.findall(r"`([a-z_]+)`", deps))
    if not allowed:
        raise ValueError("the layering table has no rows")
    for module, deps in allowed.items():
        for d in deps or ():
            if d not in allowed:
                raise ValueError(f"module '{module}' may use '{d}', which has no row")
    return allowed


def module_of(rel):
    parts = rel.split(os.sep)
    return "cli" if len(parts) == 1 else parts[0]  # src/main.cc is the composition root


def check_includes(src, allowed):
    errors = []
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(EXTS):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            mod = module_of(rel)
            if mod not in allowed:
                errors.append(f"{rel}: module '{mod}' has no row in the layering table")
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    header = m.group(2)
                    top = header.split("/")[0]
                    if m.group(1) == '"' and "/" in header and top in allowed:
                        ok = allowed[mod]
                        if top != mod and ok is not None and top not in ok:
                            errors.append(f"{rel}:{lineno}: module '{mod}' may not include '{header}' "
                                          f"(allowed: {', '.join(sorted(ok)) or 'none'})")
                        continue
                    for pattern, only, never, what in THIRD_PARTY:
                        if not pattern.match(header):
                            continue
                        if (only is not None and mod not in only) or (never is not None and mod in never):
                            errors.append(f"{rel}:{lineno}: {what} ('{header}') may not be used in '{mod}'")
    return errors


def check_cmake(src, allowed):
    path = os.path.join(src, "CMakeLists.txt")
    if not os.path.exists(path):
        return []
    errors = []
    text = open(path, encoding="utf-8").read()
    for m in MODULE_DECL.finditer(text):
        mod, rest = m.group(1), m.group(2)
        words = rest.split()
        deps = []
        if "DEPS" in words:
            for w in words[words.index("DEPS") + 1:]:
                if w.isupper():  # the next keyword (LIBS, ...)
                    break
                deps.append(w)
        if mod not in allowed:
            errors.append(f"CMakeLists.txt: module '{mod}' has no row in the layering table")
            continue
        for d in deps:
            if allowed[mod] is not None and d != mod and d not in allowed[mod]:
                errors.append(f"CMakeLists.txt: gemmad_module({mod}) depends on '{d}', which the table does not allow")
    return errors


def check_tree(src, doc_text):
    allowed = read_table(doc_text)
    return check_includes(src, allowed) + check_cmake(src, allowed)


def self_test():
    doc = "\n".join([
        "| layer | module | may use |", "|---|---|---|", TABLE_BEGIN,
        "| L0 | `base` | none |", "| L1 | `kv` | `base` |", "| L1 | `sched` | `base`, `kv` |",
        "| L9 | `cli` | anything |", TABLE_END])
    with tempfile.TemporaryDirectory() as d:
        def write(rel, text):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        write("base/ok.h", "#include <vector>\n")
        write("kv/ok.cc", '#include "base/ok.h"\n#include "kv/x.h"\n')
        write("cli/main.cc", '#include "sched/s.h"\n#include "kv/k.h"\n')
        write("CMakeLists.txt", "gemmad_module(base LIBS fmt::fmt)\ngemmad_module(kv DEPS base LIBS x::y)\n")
        if check_tree(d, doc):
            print("self-test: a clean tree was rejected", file=sys.stderr)
            return 1
        write("kv/bad.cc", '#include "sched/s.h"\n')
        write("sched/bad2.cc", "#include <nlohmann/json.hpp>\n")
        write("CMakeLists.txt", "gemmad_module(base)\ngemmad_module(kv DEPS base sched)\n")
        write("tensor/x.h", "\n")
        errs = check_tree(d, doc)
        want = ["kv/bad.cc:1", "sched/bad2.cc:1", "gemmad_module(kv) depends on 'sched'", "module 'tensor' has no row"]
        missing = [w for w in want if not any(w in e for e in errs)]
        if missing or len(errs) != len(want):
            print("self-test: expected violations %r, got %r" % (want, errs), file=sys.stderr)
            return 1
        for broken in (doc.replace(TABLE_BEGIN, ""), doc.replace("`base`, `kv`", "`base`, `mm`")):
            try:
                read_table(broken)
            except ValueError:
                continue
            print("self-test: a broken table was accepted", file=sys.stderr)
            return 1
    print("self-test passed: violations are detected")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    src = os.path.join(ROOT, "src")
    doc = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
    if "--src" in argv:
        src = argv[argv.index("--src") + 1]
    if "--doc" in argv:
        doc = argv[argv.index("--doc") + 1]
    try:
        errors = check_tree(src, open(doc, encoding="utf-8").read())
    except ValueError as e:
        print(f"{doc}: {e}", file=sys.stderr)
        return 1
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"{len(errors)} layering violation(s)", file=sys.stderr)
        return 1
    print("layering ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
