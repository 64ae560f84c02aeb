#!/usr/bin/env python3
"""Checks that the Dockerfile builds gemmad the way the README says and can run what it builds.

Usage: check_dockerfile.py [--root DIR] [--binary PATH]   check (default root: the repo)
       check_dockerfile.py --self-test                     prove the checks fail on broken inputs
Without a container engine on the machines that run CI, the image itself is not built there; this
keeps it honest instead:
  1. the build stage's last RUN is the README's set-up command (its part before the first
     `build/release/gemmad`), so the image and a fresh clone build the same way;
  2. the runtime stage installs, for each shared library the binary needs (readelf NEEDED), the
     Debian package that ships it (dpkg -S on this machine), unless debian:12-slim has it;
  3. the runtime user is not root, the Hugging Face cache is a VOLUME at HF_HOME, port 8000 is
     exposed, and the entry point is `gemmad serve`;
  4. every `docker run` line of the README mounts the cache at that VOLUME and names the image
     the README's `docker build -t` makes.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
# In debian:12-slim already (essential and apt's own dependencies).
BASE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6"}


def stages(dockerfile):
    out, cur = [], None
    for raw in re.sub(r"\\\n", " ", dockerfile).splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word.upper() == "FROM":
            cur = {"from": rest.strip(), "lines": []}
            out.append(cur)
        elif cur is not None:
            cur["lines"].append((word.upper(), rest.strip()))
    return out


def readme_build_command(readme):
    m = re.search(r"```bash\n(scripts/setup\.sh[^\n]*)\n```", readme)
    if not m:
        return None
    line = m.group(1)
    return line.split(" && build/release/gemmad", 1)[0].strip()


def needed_packages(binary):
    out = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    libs = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    # A sanitizer build's runtimes are not what the image ships (it builds the release preset).
    libs = [lib for lib in libs if not re.match(r"lib(a|ub|t|l|hwa)san\.so", lib)]
    packages = {}
    for lib in libs:
        found = subprocess.run(["dpkg", "-S", lib], capture_output=True, text=True).stdout
        pkgs = {l.split(":")[0] for l in found.splitlines() if l and "-dev" not in l.split(":")[0]}
        pkgs = {p for p in pkgs if not p.endswith(("-i386", "-amd64-cross", "-arm64-cross"))}
        packages[lib] = pkgs
    return packages


def check(dockerfile, readme, packages):
    errors = []
    st = stages(dockerfile)
    if len(st) < 2:
        return ["the Dockerfile needs a build stage and a runtime stage"]
    build, run = st[0], st[-1]
    if not all(s["from"].startswith("debian:12") for s in st):
        errors.append("every stage must be Debian 12")
    want = readme_build_command(readme)
    runs = [rest for word, rest in build["lines"] if word == "RUN"]
    if want is None:
        errors.append("README: no set-up command (```bash scripts/setup.sh ...```)")
    elif not runs or runs[-1] != want:
        errors.append(f"build stage: last RUN {runs[-1] if runs else None!r} is not the README's {want!r}")
    run_text = " ".join(rest for word, rest in run["lines"] if word == "RUN")
    installed = set(re.findall(r"\b([a-z0-9][a-z0-9.+-]+)\b", run_text))
    for lib, pkgs in sorted(packages.items()):
        if not pkgs:
            errors.append(f"{lib}: no Debian package ships it here (dpkg -S)")
        elif not (pkgs & BASE_PACKAGES) and not (pkgs & installed):
            errors.append(f"runtime stage: the binary needs {lib} ({', '.join(sorted(pkgs))}), which it does not install")
    kv = {word: rest for word, rest in run["lines"]}
    users = [rest for word, rest in run["lines"] if word == "USER"]
    if not users or users[-1] in ("root", "0"):
        errors.append("runtime stage: USER must be a non-root user")
    env = dict(re.findall(r"(\w+)=(\S+)", " ".join(rest for word, rest in run["lines"] if word == "ENV")))
    volume = kv.get("VOLUME", "")
    if not env.get("HF_HOME") or volume != env.get("HF_HOME"):
        errors.append(f"runtime stage: VOLUME {volume!r} must be HF_HOME {env.get('HF_HOME')!r}")
    if kv.get("EXPOSE") != "8000":
        errors.append("runtime stage: EXPOSE 8000")
    if kv.get("ENTRYPOINT") != '["gemmad", "serve"]':
        errors.append("runtime stage: ENTRYPOINT must be [\"gemmad\", \"serve\"]")
    tag = re.search(r"docker build -t (\S+) \.", readme)
    runs_readme = re.findall(r"docker run [^\n]*", readme)
    if not tag or not runs_readme:
        errors.append("README: no `docker build -t NAME .` and `docker run` lines")
    for line in runs_readme:
        if volume and f":{volume}" not in line:
            errors.append(f"README: {line!r} does not mount the cache at {volume}")
        if tag and f" {tag.group(1)} " not in line + " ":
            errors.append(f"README: {line!r} does not run the image {tag.group(1)}")
    return errors


def self_test():
    root = ROOT
    dockerfile = open(os.path.join(root, "Dockerfile")).read()
    readme = open(os.path.join(root, "README.md")).read()
    packages = {"libfmt.so.9": {"libfmt9"}, "libc.so.6": {"libc6"}}
    if check(dockerfile, readme, packages):
        print("self-test: the real files were rejected: %r" % check(dockerfile, readme, packages), file=sys.stderr)
        return 1
    broken = [
        (dockerfile.replace("scripts/setup.sh && scripts/build.sh", "scripts/build.sh"), readme, packages, "last RUN"),
        (dockerfile, readme, {**packages, "libvips.so.42": {"libvips42"}}, "libvips"),
        (dockerfile.replace("USER gemmad", "USER root"), readme, packages, "non-root"),
        (dockerfile.replace("VOLUME /home/gemmad/.cache/huggingface", "VOLUME /data"), readme, packages, "VOLUME"),
        (dockerfile, readme.replace(":/home/gemmad/.cache/huggingface", ":/root/.cache/huggingface"), packages, "mount"),
    ]
    for d, r, p, what in broken:
        errs = check(d, r, p)
        if not any(what in e for e in errs):
            print(f"self-test: a broken input ({what}) was accepted: {errs!r}", file=sys.stderr)
            return 1
    print("self-test passed: broken Dockerfiles and READMEs are detected")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    root = argv[argv.index("--root") + 1] if "--root" in argv else ROOT
    binary = argv[argv.index("--binary") + 1] if "--binary" in argv else os.path.join(root, "build", "release", "gemmad")
    if not os.path.exists(binary):
        print(f"{binary}: no binary to read the shared libraries of", file=sys.stderr)
        return 1
    errors = check(open(os.path.join(root, "Dockerfile")).read(), open(os.path.join(root, "README.md")).read(),
                   needed_packages(binary))
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        return 1
    print("Dockerfile ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
