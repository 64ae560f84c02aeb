#!/usr/bin/env python3
"""Decode streaming parameters on this machine: batch-1 Linear (bf16, int8 = Q8_R, int4 = Q4_0 and Q4_0x16)
under candidate GEMMAD_STREAM settings, against the read ceiling measured beside them.

Each round runs bench_roofline (1 GiB read, 1 and 2 threads, 4 KiB and huge pages) and then
bench_linear once per candidate (cold weights, batch 1, 1 and 2 threads, E2B shapes), so every
candidate and every ceiling reading shares the machine's state of that minute; rounds repeat the
whole sequence. Prints the CPU model, every ceiling reading, each case's GB/s per candidate and
round, the best round as a percentage of the best ceiling of the same thread count, and which
candidate has the highest geometric mean: the row to put in the per-family table of
src/kernels/stream_params_choice.cc (or to export as GEMMAD_STREAM).

--gguf adds the GGUF block kernels at the same shapes: Q8_0 and Q5_0 (bench_linear's LinearGguf
cases) and Q4_K and Q6_K (bench_linear_ggml_k, the table the CPU would use).

Usage: bench/stream_sweep.py --bench-dir build/release/bench [--rounds 2] [--rotate-mib 1024]
       [--gguf] [--candidate SPEC ...]   (SPEC as GEMMAD_STREAM takes it; "table" = this machine's row)
"""
import argparse
import collections
import json
import math
import os
import subprocess
import sys

DEFAULT_CANDIDATES = [
    "table",
    "level=off",
    "ahead_short=16384,ahead_short_int8=8192,ahead_long=4096,level=l1",  # the Intel row
    "ahead_short=8192,ahead_short_int8=8192,ahead_long=4096,level=l1",
    "ahead_short=16384,ahead_long=16384,level=l2",
    "ahead_short=32768,ahead_long=16384,level=l2",
]
# Q4_0x16 is what --quantization int4 reads on the avx512 and avx2 tables (docs §26, §29); Q4_0 elsewhere.
FILTER = r"^Linear(Q8_R|Q4_0|Q4_0x16)?/e2b\.(q_full|gate_up_2x|down_2x|lm_head)/[0-9x]+/n:1/threads:[12]/cold"
GGUF_FILTER = r"^LinearGguf/e2b\.[a-z_0-9]+/[0-9x]+/n:1/threads:[12]/(Q8_0|Q5_0)/"
GGML_K_FILTER = r"^(Q4_K|Q6_K)/e2b\.[a-z_0-9]+/[0-9x]+/n:1/threads:[12]/isa:(avx512|avx2|neon)/"


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True).stdout
    except OSError:
        return "unknown CPU"
    return next((l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("Model name")), "unknown CPU")


def run_json(cmd, env):
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {res.stderr.strip()[-500:]}")
    return json.loads(res.stdout)["benchmarks"]


def clean(name):
    return name.split("/min_time")[0].replace("/real_time", "").replace("/cold", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-dir", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--rotate-mib", type=int, default=1024)
    ap.add_argument("--gguf", action="store_true", help="also the GGUF block kernels")
    ap.add_argument("--candidate", action="append", help="GEMMAD_STREAM spec (repeatable); default: a fixed set")
    args = ap.parse_args()
    candidates = args.candidate or DEFAULT_CANDIDATES
    base_env = {k: v for k, v in os.environ.items() if k != "GEMMAD_STREAM"}
    base_env["GEMMAD_BENCH_ROTATE_MIB"] = str(args.rotate_mib)

    ceilings = collections.defaultdict(list)  # threads -> [GB/s]
    ceiling_rows = []
    rates = collections.defaultdict(list)  # (case, candidate) -> [GB/s per round]
    for rnd in range(args.rounds):
        print(f"[round {rnd + 1}/{args.rounds}] bench_roofline (load {os.getloadavg()[0]:.2f})", file=sys.stderr)
        for b in run_json([os.path.join(args.bench_dir, "bench_roofline"), "--benchmark_filter=MiB:1024/",
                           "--benchmark_format=json"], base_env):
            gbs = b["read_GB/s"]
            threads = int(b["name"].split("threads:")[1].split("/")[0])
            ceilings[threads].append(gbs)
            ceiling_rows.append((rnd + 1, clean(b["name"]), gbs))
        for cand in candidates:
            env = dict(base_env)
            if cand != "table":
                env["GEMMAD_STREAM"] = cand
            print(f"[round {rnd + 1}/{args.rounds}] bench_linear GEMMAD_STREAM={cand}", file=sys.stderr)
            runs = [("bench_linear", FILTER)]
            if args.gguf:
                runs += [("bench_linear", GGUF_FILTER), ("bench_linear_ggml_k", GGML_K_FILTER)]
            for binary, flt in runs:
                for b in run_json([os.path.join(args.bench_dir, binary), f"--benchmark_filter={flt}",
                                   "--benchmark_format=json"], env):
                    rates[(clean(b["name"]), cand)].append(b["weight_GB/s"])

    print(f"\nCPU: {cpu_model()} ({os.cpu_count()} logical CPUs); {args.rounds} round(s); "
          f"weights cold (rotation set {args.rotate_mib} MiB)\n")
    print("Read ceilings (bench_roofline, 1 GiB), every reading:\n")
    for rnd, name, gbs in ceiling_rows:
        print(f"- round {rnd}: {name}: {gbs:.1f} GB/s")
    best_ceiling = {t: max(v) for t, v in ceilings.items()}
    cases = sorted({c for c, _ in rates})
    print("\nBatch-1 Linear, weight GB/s per round (best as % of the best ceiling of its thread count):\n")
    print("| case | " + " | ".join(f"`{c}`" for c in candidates) + " |")
    print("|---|" + "---|" * len(candidates))
    for case in cases:
        threads = int(case.split("threads:")[1].split("/")[0])
        cells = []
        for cand in candidates:
            v = rates.get((case, cand), [])
            if not v:
                cells.append("-")
                continue
            cells.append(", ".join(f"{x:.1f}" for x in v) + f" ({100 * max(v) / best_ceiling[threads]:.0f}%)")
        print(f"| {case} | " + " | ".join(cells) + " |")
    print("\nGeometric mean of each case's best round:\n")
    scores = {}
    for cand in candidates:
        vals = [max(rates[(case, cand)]) for case in cases if rates.get((case, cand))]
        scores[cand] = math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else 0.0
        print(f"- `{cand}`: {scores[cand]:.2f} GB/s")
    best = max(scores, key=scores.get)
    print(f"\nBest: `{best}`")


if __name__ == "__main__":
    main()
