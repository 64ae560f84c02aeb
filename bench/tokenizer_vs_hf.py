#!/usr/bin/env python3
"""Encode throughput of gemmad's tokenizer against HF `tokenizers` on the same documents and
thread counts; prints MB/s for both and the ratio (gemmad / HF), plus load times.

    /work/venv-dev/bin/python bench/tokenizer_vs_hf.py BUILD_DIR [--threads 1,2,4]

BUILD_DIR holds bench/bench_tokenizer (build it with the release or relassert preset). HF runs
`encode_batch` over the documents with RAYON_NUM_THREADS=T (a fresh process per T, since the
rayon pool size is fixed at first use), repeated for at least 2 seconds; gemmad's BM_Encode has
T threads each encoding all documents (aggregate MB/s).
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SHARED = os.path.join(ROOT, "..", "shared")
TOK = os.path.join(SHARED, "data", "tokenizers", "gemma4", "tokenizer.json")


def docs(which):
    if which == 0:
        out = []
        with open(os.path.join(ROOT, "tests", "golden", "tokenizer", "gemma4.jsonl"), encoding="utf-8") as f:
            for line in f:
                c = json.loads(line)
                if "t" in c:
                    out.append(c["t"])
        return out
    rows = json.load(open(os.path.join(SHARED, "data", "templates", "gemma4", "renders.json"), encoding="utf-8"))
    return [r["prompt"] for r in rows]


HF_CHILD = r"""
import json, sys, time
from tokenizers import Tokenizer
docs = json.loads(sys.stdin.read())
t0 = time.perf_counter(); tok = Tokenizer.from_file(sys.argv[1]); load = time.perf_counter() - t0
nbytes = sum(len(d.encode("utf-8")) for d in docs)
tok.encode_batch(docs, add_special_tokens=False)  # warm up (and start the pool)
n, t0 = 0, time.perf_counter()
while time.perf_counter() - t0 < 2.0:
    tok.encode_batch(docs, add_special_tokens=False); n += 1
print(json.dumps({"mbps": n * nbytes / (time.perf_counter() - t0) / 1e6, "load_s": load}))
"""


def hf(which, threads):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads), TOKENIZERS_PARALLELISM="true")
    p = subprocess.run([sys.executable, "-c", HF_CHILD, TOK], input=json.dumps(docs(which)), env=env,
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def gemmad(build, threads):
    exe = os.path.join(build, "bench", "bench_tokenizer")
    p = subprocess.run([exe, "--benchmark_format=json", "--benchmark_filter=BM_Encode|BM_Load"],
                       capture_output=True, text=True, check=True)
    out = {}
    for b in json.loads(p.stdout)["benchmarks"]:
        if b["name"].startswith("BM_Load"):
            out["load_s"] = b["real_time"] / 1e3
            continue
        # BM_Encode/<which>/real_time/threads:<T>
        parts = b["name"].split("/")
        which, t = int(parts[1]), int(parts[-1].split(":")[1])
        if t in threads:
            out[(which, t)] = b["bytes_per_second"] / 1e6
    return out


def main():
    build = sys.argv[1]
    threads = [1, 2, 4]
    if "--threads" in sys.argv:
        threads = [int(x) for x in sys.argv[sys.argv.index("--threads") + 1].split(",")]
    g = gemmad(build, threads)
    print(f"{'corpus':<14}{'threads':>8}{'gemmad MB/s':>14}{'HF MB/s':>10}{'ratio':>8}")
    hf_load = None
    for which, name in ((0, "golden"), (1, "chat prompts")):
        for t in threads:
            h = hf(which, t)
            hf_load = h["load_s"]
            print(f"{name:<14}{t:>8}{g[(which, t)]:>14.2f}{h['mbps']:>10.2f}{g[(which, t)] / h['mbps']:>8.2f}")
    print(f"load gemma4 tokenizer.json: gemmad {g['load_s']:.3f} s, HF {hf_load:.3f} s")


if __name__ == "__main__":
    main()
