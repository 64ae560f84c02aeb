#!/usr/bin/env python3
"""Batch-1 decode at long contexts: gemmad and llama.cpp on one GGUF file (issue 26, item 4).

For each context length D (interleaved: llama.cpp then gemmad at each D, --rounds times):
- llama.cpp: `llama-bench -m GGUF -p 0 -n TG -d D -r 1 -t THREADS -o json`: tg TG tokens after a
  D-token context (the context's prefill is not timed), avg_ts.
- gemmad: `gemmad bench latency MODEL --input-len D --output-len TG --batch-size 1 --threads THREADS
  --kv-cache-dtype bfloat16` (MODEL: --gemmad-model, default the GGUF itself; --gemmad-args adds flags,
  e.g. `--quantization int4` for the safetensors checkpoint the GGUF was converted from):
  decode tokens/s = 1000 / "Avg decode step time (TPOT)" (the D-token prefill is not in it), and
  the prefill's prompt tokens/s, reported beside.
Both sides start from the same D tokens of context and decode TG more; both keep 16-bit KV (gemmad
bf16, llama.cpp f16). This script builds nothing and contains no llama.cpp code.

Usage: bench/long_context.py --llama-bench PATH --gemmad build/release/gemmad --gguf F.gguf
       [--gemmad-model DIR] [--gemmad-args "..."] [--contexts 1024,8192] [--tg 32] [--threads 2] [--rounds 1]
"""
import argparse
import json
import re
import subprocess
import sys
import time


def llama_tg(args, depth):
    cmd = [args.llama_bench, "-m", args.gguf, "-p", "0", "-n", str(args.tg), "-d", str(depth), "-r", "1",
           "-t", str(args.threads), "-o", "json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = json.loads(out)
    return rows[0]["avg_ts"]


def gemmad_tg(args, depth):
    cmd = [args.gemmad, "bench", "latency", args.gemmad_model or args.gguf, "--input-len", str(depth),
           "--output-len", str(args.tg), "--batch-size", "1", "--threads", str(args.threads),
           "--num-iters-warmup", "0", "--num-iters", "1", "--max-model-len", str(depth + args.tg + 16),
           "--kv-cache-dtype", "bfloat16"] + args.gemmad_args.split()
    res = subprocess.run(cmd, capture_output=True, text=True)
    text = res.stdout + res.stderr
    tpot = re.search(r"Avg decode step time \(TPOT\): ([0-9.]+) ms", text)
    pp = re.search(r"\(([0-9.]+) prompt tokens/s\)", text)
    if res.returncode != 0 or tpot is None:
        sys.stderr.write(text[-2000:])
        raise SystemExit(f"gemmad failed at context {depth}")
    return 1000.0 / float(tpot.group(1)), float(pp.group(1)) if pp else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llama-bench", required=True)
    ap.add_argument("--gemmad", required=True)
    ap.add_argument("--gguf", required=True)
    ap.add_argument("--gemmad-model", help="what gemmad runs (default: the GGUF)")
    ap.add_argument("--gemmad-args", default="", help="extra gemmad flags, e.g. '--quantization int4'")
    ap.add_argument("--contexts", default="1024,8192")
    ap.add_argument("--tg", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    contexts = [int(c) for c in args.contexts.split(",")]
    print("| round | context | llama.cpp tg t/s | gemmad tg t/s | ratio | gemmad prefill t/s | wall s |")
    print("|---|---|---|---|---|---|---|")
    for rnd in range(1, args.rounds + 1):
        for depth in contexts:
            t0 = time.time()
            ll = llama_tg(args, depth)
            gm, pp = gemmad_tg(args, depth)
            print(f"| {rnd} | {depth} | {ll:.2f} | {gm:.2f} | **{gm / ll:.2f}** | {pp:.1f} | {time.time() - t0:.0f} |",
                  flush=True)


if __name__ == "__main__":
    main()
