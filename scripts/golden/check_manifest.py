#!/usr/bin/env python3
"""Checks tests/golden/MANIFEST.json: every listed file exists with the recorded sha256, and every
file under an area the manifest covers (areas[...]) is listed. Standard library only (runs in CI).

Usage: check_manifest.py --root tests/golden     verify the committed goldens
       check_manifest.py --self-test             prove a changed byte, a missing file and an
                                                 unlisted file each make the check fail
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check(root):
    """Returns a list of problems (empty when the goldens match the manifest)."""
    path = os.path.join(root, "MANIFEST.json")
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        return [f"{path}: cannot read: {e}"]
    problems = []
    files = manifest.get("files", {})
    for rel, digest in sorted(files.items()):
        full = os.path.join(root, rel)
        if not os.path.isfile(full):
            problems.append(f"{rel}: listed in MANIFEST.json but missing")
        elif sha256_file(full) != digest:
            problems.append(f"{rel}: sha256 differs from MANIFEST.json (goldens must come from their script)")
    for area in sorted(manifest.get("areas", {})):
        for dirpath, _, names in os.walk(os.path.join(root, area)):
            for name in names:
                rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                if rel not in files:
                    problems.append(f"{rel}: not listed in MANIFEST.json")
    if not files:
        problems.append(f"{path}: lists no files")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "golden")
        os.makedirs(os.path.join(root, "area", "sub"))
        for rel, data in [("area/a.bin", b"\x00\x01\x02"), ("area/sub/b.json", b"{}\n")]:
            with open(os.path.join(root, rel), "wb") as f:
                f.write(data)
        manifest = {"areas": {"area": {}},
                    "files": {rel: sha256_file(os.path.join(root, rel)) for rel in ["area/a.bin", "area/sub/b.json"]}}
        with open(os.path.join(root, "MANIFEST.json"), "w") as f:
            json.dump(manifest, f)
        assert check(root) == [], check(root)
        with open(os.path.join(root, "area/a.bin"), "r+b") as f:  # flip one byte
            f.seek(1)
            f.write(b"\x07")
        assert any("sha256 differs" in p for p in check(root)), "a changed byte was not detected"
        with open(os.path.join(root, "area/a.bin"), "r+b") as f:
            f.seek(1)
            f.write(b"\x01")
        assert check(root) == []
        with open(os.path.join(root, "area/extra.bin"), "wb") as f:
            f.write(b"x")
        assert any("not listed" in p for p in check(root)), "an unlisted file was not detected"
        os.remove(os.path.join(root, "area/extra.bin"))
        shutil.rmtree(os.path.join(root, "area/sub"))
        assert any("missing" in p for p in check(root)), "a missing file was not detected"
    print("check_manifest self-test ok")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    problems = check(args.root)
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print("golden manifest ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
