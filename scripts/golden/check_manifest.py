#!/usr/bin/env python3
"""Checks tests/golden/MANIFEST.json, the record of every golden file: each file under the golden
root (except MANIFEST.json and CMakeLists.txt at the top) must be listed with its sha256, each
listed file must exist with that sha256, and each file must belong to an area (its first path
component) that names its generator script(s) in areas[...]. Standard library only (runs in CI).

The generators (scripts/golden/make_gemma4_goldens.py, tokenizer/make_goldens.py,
template/make_goldens.py, constrain/gen_schemas.py and constrain/make_oracle_goldens.py) call
update_manifest() for their area after writing it, so the manifest only changes with the goldens.

Usage: check_manifest.py --root tests/golden [--source-dir .]   verify the committed goldens (with
                                                    --source-dir: the generator scripts exist too)
       check_manifest.py --self-test                prove a changed byte, a missing file, an unlisted
                                                    file, a file outside every area and an area
                                                    without a generator each make the check fail
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile

MANIFEST = "MANIFEST.json"
NOT_GOLDEN = {MANIFEST, "CMakeLists.txt"}  # top-level files that are not goldens


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def golden_files(root):
    """Every file under root, relative with '/', except the top-level NOT_GOLDEN ones."""
    out = []
    for dirpath, dirnames, names in os.walk(root):
        dirnames.sort()
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
            if rel not in NOT_GOLDEN:
                out.append(rel)
    return out


def generators(info):
    g = info.get("generator") if isinstance(info, dict) else None
    return [g] if isinstance(g, str) else list(g) if isinstance(g, list) else []


def check(root, source_dir=None):
    """Returns a list of problems (empty when the goldens match the manifest)."""
    path = os.path.join(root, MANIFEST)
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        return [f"{path}: cannot read: {e}"]
    problems = []
    files = manifest.get("files", {})
    areas = manifest.get("areas", {})
    for rel, digest in sorted(files.items()):
        full = os.path.join(root, rel)
        if not os.path.isfile(full):
            problems.append(f"{rel}: listed in {MANIFEST} but missing")
        elif sha256_file(full) != digest:
            problems.append(f"{rel}: sha256 differs from {MANIFEST} (goldens must come from their script)")
        if rel.split("/")[0] not in areas or "/" not in rel:
            problems.append(f"{rel}: belongs to no area of {MANIFEST}")
    for rel in golden_files(root):
        if rel not in files:
            problems.append(f"{rel}: not listed in {MANIFEST}")
    for area, info in sorted(areas.items()):
        gens = generators(info)
        if not gens:
            problems.append(f"area {area}: names no generator script")
        for g in gens:
            if source_dir is not None and not os.path.isfile(os.path.join(source_dir, g)):
                problems.append(f"area {area}: generator {g} does not exist")
        if not any(rel.startswith(area + "/") for rel in files):
            problems.append(f"area {area}: lists no files")
    if not files:
        problems.append(f"{path}: lists no files")
    return problems


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, indent=1, sort_keys=True) + "\n")


def update_manifest(golden_root, area, info):
    """Rewrites <golden_root>/MANIFEST.json: the entries under <area>/ are replaced by the current
    files there (with sha256) and areas[area] by info (which names the generator and, where it has
    them, seeds and versions); other areas are kept as they are."""
    assert generators(info), f"{area}: info must name the generator script(s)"
    path = os.path.join(golden_root, MANIFEST)
    manifest = {"areas": {}, "files": {}}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    files = {k: v for k, v in manifest.get("files", {}).items() if not k.startswith(area + "/")}
    for rel in golden_files(golden_root):
        if rel.startswith(area + "/"):
            files[rel] = sha256_file(os.path.join(golden_root, rel))
    manifest["files"] = dict(sorted(files.items()))
    manifest.setdefault("areas", {})[area] = info
    manifest["areas"] = dict(sorted(manifest["areas"].items()))
    write_json(path, manifest)


def self_test():
    def write(root, rel, data):
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "wb") as f:
            f.write(data)

    def fails(root, what, **kw):
        problems = check(root, **kw)
        assert any(what in p for p in problems), f"expected a problem with {what!r}, got {problems}"

    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "golden")
        write(root, "area/a.bin", b"\x00\x01\x02")
        write(root, "area/sub/b.json", b"{}\n")
        write(root, "other/c.jsonl", b"x\n")
        write(root, "other/MANIFEST.json", b"{}\n")  # an area's own manifest is one of its goldens
        write(root, "CMakeLists.txt", b"# not a golden\n")
        update_manifest(root, "area", {"generator": "gen_area.py"})
        update_manifest(root, "other", {"generator": ["gen_1.py", "gen_2.py"], "versions": {"x": "1"}})
        assert check(root) == [], check(root)
        with open(os.path.join(root, MANIFEST), encoding="utf-8") as f:
            assert len(json.load(f)["files"]) == 4
        # A changed byte, in every area.
        for rel in ("area/a.bin", "other/c.jsonl", "other/MANIFEST.json"):
            with open(os.path.join(root, rel), "r+b") as f:
                old = f.read(1)
                f.seek(0)
                f.write(b"\x07")
            fails(root, "sha256 differs")
            with open(os.path.join(root, rel), "r+b") as f:
                f.write(old)
            assert check(root) == [], check(root)
        # Unlisted files: in an area, in a new directory, at the top level.
        for rel in ("area/extra.bin", "newarea/d.json", "stray.json"):
            write(root, rel, b"x")
            fails(root, f"{rel}: not listed")
            os.remove(os.path.join(root, rel))
        shutil.rmtree(os.path.join(root, "newarea"))
        assert check(root) == [], check(root)
        # Listed files of an area the manifest does not declare; an area without a generator.
        with open(os.path.join(root, MANIFEST), encoding="utf-8") as f:
            good = json.load(f)
        bad = json.loads(json.dumps(good))
        del bad["areas"]["other"]
        write_json(os.path.join(root, MANIFEST), bad)
        fails(root, "other/c.jsonl: belongs to no area")
        bad = json.loads(json.dumps(good))
        bad["areas"]["other"] = {"versions": {"x": "1"}}
        write_json(os.path.join(root, MANIFEST), bad)
        fails(root, "area other: names no generator")
        write_json(os.path.join(root, MANIFEST), good)
        fails(root, "generator gen_area.py does not exist", source_dir=tmp)
        write(tmp, "gen_area.py", b"")
        write(tmp, "gen_1.py", b"")
        write(tmp, "gen_2.py", b"")
        assert check(root, source_dir=tmp) == [], check(root, source_dir=tmp)
        # A missing file.
        shutil.rmtree(os.path.join(root, "area/sub"))
        fails(root, "area/sub/b.json: listed in MANIFEST.json but missing")
    print("check_manifest self-test ok")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root")
    ap.add_argument("--source-dir", help="repository root: also check that the generator scripts exist")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.root:
        ap.error("--root or --self-test is required")
    problems = check(args.root, args.source_dir)
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print("golden manifest ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
