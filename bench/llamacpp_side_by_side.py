#!/usr/bin/env python3
"""Side-by-side CPU throughput of llama.cpp and gemmad on the same Gemma 4 checkpoint.

Takes an existing llama-bench binary and GGUF conversions of MODEL (this script builds nothing and
contains no llama.cpp code; see docs/cpu-performance.md for how the peer was built and converted).
For each format (bf16, q8 = Q8_0 vs gemmad --quantization int8, q4 = Q4_0 vs int4), interleaved:

- llama.cpp: `llama-bench -m GGUF -p PP -n TG -r REPS -t THREADS -o json` (avg_ts and stddev_ts).
- gemmad, in process with `gemmad bench latency MODEL --batch-size 1 --kv-cache-dtype bfloat16
  [--threads T] [--quantization Q]` (one warm-up iteration, then REPS; the mean of the REPS
  iterations' rates, as llama-bench's avg_ts is the mean of its repetitions' rates; until
  2026-12-06 the best iteration):
  pp = PP / time to first token with --input-len PP --output-len 1;
  tg = TG / (latency - time to first token) with --input-len 3 --output-len 1+TG, as
  e2b_decode_roofline.py. (Until 2026-12-06 both were differences of `gemmad generate` walls
  minus a load wall, which folded the load-time quantization's run-to-run jitter into the rates.)
  The KV cache is bf16 on both sides' terms (llama-bench's is f16; a GGUF's `auto` is f32).
  A gemmad failure (e.g. --quantization not implemented yet) shows as "error" in the row.
--rounds N repeats the whole llama.cpp-then-gemmad sequence N times (format by format, so the two
sides of a format run minutes apart at most) and reports each side's best round, plus every
round's own ratios: on a shared VM a noisy minute then costs one round, not the comparison.

--same-file GGUF runs both sides on that one GGUF file (gemmad serves it as it is: format "gguf"),
instead of the per-format conversions.

--ct-w4a16 DIR / --ct-fp8 DIR add gemmad on a compressed-tensors checkpoint of the same weights
(`make-test-model --weight-format w4a16|fp8`), read as stored, against the nearest llama.cpp bits:
w4a16 (4.5 bits per weight) against --gguf-q4 (Q4_0), fp8 (8 bits + a row scale) against --gguf-q8
(Q8_0, 8.5 bits). --ct-mobile DIR (`--weight-format mobile`: int4 attention and MLP, int2 deep MLP and
embeddings, int8 PLE gates, static int8 activations; about 1.0 GB a decode step at E2B) runs against
--gguf-q4 too, the nearest llama.cpp file above its bits. --ct-only leaves out the dense formats.

Usage: bench/llamacpp_side_by_side.py --llama-bench PATH --gguf-bf16 F [--gguf-q8 F] [--gguf-q4 F]
       --gemmad build/release/gemmad --model DIR [--threads 2] [--pp 512] [--tg 64] [--reps 3]
       [--rounds 1]
       bench/llamacpp_side_by_side.py --llama-bench PATH --same-file F.gguf --gemmad BIN [...]
"""
import argparse
import json
import os
import subprocess
import sys

from gemmad_latency import bench_latency, decode_step_seconds

QUANT = {"bf16": None, "q8": "int8", "q4": "int4", "gguf": None, "w4a16": None, "fp8": None, "mobile": None}


def llama_bench(binary, gguf, pp, tg, reps, threads):
    cmd = [binary, "-m", gguf, "-p", str(pp), "-n", str(tg), "-r", str(reps), "-t", str(threads), "-o", "json"]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        return {"error": res.stderr.strip().splitlines()[-1:] or ["llama-bench failed"]}
    out = {}
    for row in json.loads(res.stdout):
        key = "pp" if row["n_prompt"] > 0 and row["n_gen"] == 0 else "tg"
        out[key] = (row["avg_ts"], row["stddev_ts"])
    return out


def gemmad_bench(gemmad, model, pp, tg, reps, threads, quant):
    # In process, so that neither the load nor the load-time quantization (whose time varies by a
    # second or more from run to run) enters a rate: pp = PP / time to first token of a PP-token
    # prompt; tg = TG / (latency - time to first token) of a 3-token prompt and 1 + TG tokens.
    bf16_kv = ("--kv-cache-dtype", "bfloat16")
    try:
        _, ttfts = bench_latency(gemmad, model, pp, 1, reps, threads, quant, bf16_kv)
        steps = decode_step_seconds(gemmad, model, tg, reps, threads, quant, bf16_kv)
    except (RuntimeError, OSError, ValueError, KeyError) as e:
        return {"error": str(e)}
    # The mean of the iterations' rates: llama-bench's avg_ts is the mean of its repetitions' rates.
    return {"pp": sum(pp / t for t in ttfts) / len(ttfts), "tg": sum(1.0 / s for s in steps) / len(steps)}


def machine_header(llama_bench_bin):
    """The CPU model, the peer's build flags and commit, and the page-cache state, for the record."""
    cpu = "unknown CPU"
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True).stdout
        cpu = next((l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("Model name")), cpu)
    except OSError:
        pass
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(llama_bench_bin))))
    def read(name):
        try:
            with open(os.path.join(root, name)) as f:
                return f.read().strip()
        except OSError:
            return "(not recorded by scripts/build_llamacpp_peer.sh)"
    return (f"CPU: {cpu} ({os.cpu_count()} logical CPUs)\n"
            f"llama.cpp: commit {read('COMMIT')[:7]}, {read('ISA_FLAGS')}\n"
            "page cache: warm (each side reads the file once before its timed runs; nothing is evicted); "
            f"{page_cache_state()}")


def page_cache_state():
    """The page cache's size and how much of it is in 2 MiB folios, at the time of the call (a file
    read into small folios streams slower through 4 KiB mappings: docs/cpu-performance.md §13)."""
    want = {"Cached": None, "FileHugePages": None}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in want:
                    want[key] = int(rest.split()[0]) / (1 << 20)
    except (OSError, ValueError):
        return "/proc/meminfo unreadable"
    return ", ".join(f"{k} {v:.1f} GiB" for k, v in want.items() if v is not None) + " (at the end of the run)"


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, tuple):
        return f"{v[0]:.2f} ± {v[1]:.2f}"
    return f"{v:.2f}"


def ratio(a, b):
    a = a[0] if isinstance(a, tuple) else a
    return f"{b / a:.2f}" if a and b else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llama-bench", required=True)
    ap.add_argument("--gguf-bf16")
    ap.add_argument("--gguf-q8")
    ap.add_argument("--gguf-q4")
    ap.add_argument("--gemmad", required=True)
    ap.add_argument("--model", help="gemmad checkpoint dir the GGUFs were converted from")
    ap.add_argument("--same-file", help="one GGUF both sides run (gemmad reads it directly)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--pp", type=int, default=512)
    ap.add_argument("--tg", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--ct-w4a16", help="compressed-tensors W4A16 dir of the same weights (against --gguf-q4)")
    ap.add_argument("--ct-fp8", help="compressed-tensors FP8-dynamic dir of the same weights (against --gguf-q8)")
    ap.add_argument("--ct-mobile", help="compressed-tensors mobile QAT dir of the same weights (against --gguf-q4)")
    ap.add_argument("--ct-only", action="store_true",
                    help="run only the --ct-* formats (the --gguf-* files serve as their peers)")
    args = ap.parse_args()

    formats = [(f, g, None) for f, g in (("bf16", args.gguf_bf16), ("q8", args.gguf_q8), ("q4", args.gguf_q4)) if g]
    if args.ct_w4a16 and args.gguf_q4:
        formats.append(("w4a16", args.gguf_q4, args.ct_w4a16))
    if args.ct_fp8 and args.gguf_q8:
        formats.append(("fp8", args.gguf_q8, args.ct_fp8))
    if args.ct_mobile and args.gguf_q4:
        formats.append(("mobile", args.gguf_q4, args.ct_mobile))
    if args.ct_only:
        formats = [f for f in formats if f[2] is not None]
    if args.same_file:
        formats = [("gguf", args.same_file, None)]
        args.model = args.same_file
    if not formats:
        sys.exit("give --same-file, or at least one of --gguf-bf16/--gguf-q8/--gguf-q4 with --model")
    if not args.model:
        sys.exit("--model is needed with --gguf-*")
    per_round = {name: [] for name, _, _ in formats}  # (llama.cpp, gemmad, load before, load after)
    for rnd in range(args.rounds):
        for name, gguf, model in formats:
            load = os.getloadavg()[0]
            print(f"[round {rnd + 1}/{args.rounds}] [{name}] llama-bench (load {load:.2f}) ...", file=sys.stderr, flush=True)
            lc = llama_bench(args.llama_bench, gguf, args.pp, args.tg, args.reps, args.threads)
            print(f"[round {rnd + 1}/{args.rounds}] [{name}] gemmad --quantization {QUANT[name] or '(none)'} ...",
                  file=sys.stderr, flush=True)
            gm = gemmad_bench(args.gemmad, model or args.model, args.pp, args.tg, args.reps, args.threads, QUANT[name])
            per_round[name].append((lc, gm, load, os.getloadavg()[0]))
    rows = []
    for name, _, _ in formats:
        runs = per_round[name]
        best_lc = {}
        for key in ("pp", "tg"):
            got = [r[0][key] for r in runs if key in r[0]]
            if got:
                best_lc[key] = max(got, key=lambda v: v[0])
        if not best_lc:
            best_lc = runs[0][0]
        ok = [r[1] for r in runs if "error" not in r[1]]
        best_gm = {"pp": max(g["pp"] for g in ok), "tg": max(g["tg"] for g in ok)} if ok else runs[0][1]
        rows.append((name, best_lc, best_gm, min(r[2] for r in runs), max(r[3] for r in runs), runs))

    print("\n" + machine_header(args.llama_bench))
    print(f"\n{args.threads} thread(s), pp{args.pp}, tg{args.tg}, mean of {args.reps} (gemmad) / "
          f"mean ± stddev (llama.cpp), best of {args.rounds} round(s) per side; ratio = gemmad / llama.cpp\n")
    print(f"| format | llama.cpp pp{args.pp} t/s | gemmad pp{args.pp} t/s | ratio | "
          "llama.cpp tg t/s | gemmad tg t/s | ratio | load avg |")
    print("|---|---|---|---|---|---|---|---|")
    for name, lc, gm, l0, l1, _ in rows:
        if "error" in gm:
            gpp = gtg = None
        else:
            gpp, gtg = gm["pp"], gm["tg"]
        lpp, ltg = lc.get("pp"), lc.get("tg")
        print(f"| {name} | {fmt(lpp)} | {fmt(gpp)} | {ratio(lpp, gpp)} | {fmt(ltg)} | {fmt(gtg)} | "
              f"{ratio(ltg, gtg)} | {l0:.1f}-{l1:.1f} |")
    if args.rounds > 1:
        print("\nEach round's own ratios (pp / tg):\n")
        for name, _, _, _, _, runs in rows:
            cells = []
            for lc, gm, _, _ in runs:
                if "error" in gm:
                    cells.append("error")
                else:
                    cells.append(f"{ratio(lc.get('pp'), gm['pp'])} / {ratio(lc.get('tg'), gm['tg'])}")
            print(f"- {name}: " + ", ".join(cells))
    for name, lc, gm, _, _, _ in rows:
        for who, r in (("llama.cpp", lc), ("gemmad", gm)):
            if "error" in r:
                print(f"\n{name}: {who} error: {r['error']}")


if __name__ == "__main__":
    main()
