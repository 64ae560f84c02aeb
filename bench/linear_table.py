#!/usr/bin/env python3
"""Markdown table of bench_linear results as a fraction of bench_roofline's ceilings.

Usage: bench/linear_table.py LINEAR_JSON ROOFLINE_JSON [--stat best|median]

Both files come from `--benchmark_out=FILE --benchmark_out_format=json` (any number of
--benchmark_repetitions; `best` takes the highest rate per case, `median` the median).
Ceilings: read_GB/s of BM_ReadBandwidth at 4096 MiB (1 and 2 threads) for the batch-1 columns,
GFLOP/s of BM_FmaPeakAvx2 (1 and 2 threads) for the batch-16 columns (the Linear kernels are
AVX2; the AVX-512 peak is printed as well, as the headroom of a wider kernel).
"""
import argparse
import collections
import json
import statistics


def load(path):
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    out = collections.defaultdict(list)
    for b in runs:
        if b.get("run_type", "iteration") != "iteration":
            continue
        name = b["name"].replace("/min_time:0.300", "").replace("/real_time", "")
        out[name].append(b)
    return out


def pick(values, stat):
    return max(values) if stat == "best" else statistics.median(values)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("linear_json")
    ap.add_argument("roofline_json")
    ap.add_argument("--stat", choices=("best", "median"), default="best")
    args = ap.parse_args()

    roof = load(args.roofline_json)
    bw = {t: pick([b["read_GB/s"] for b in roof[f"BM_ReadBandwidth/MiB:4096/threads:{t}"]], args.stat) for t in (1, 2)}
    fma = {t: pick([b["GFLOP/s"] for b in roof[f"BM_FmaPeakAvx2/threads:{t}"]], args.stat) for t in (1, 2)}
    fma512 = {t: pick([b["GFLOP/s"] for b in roof.get(f"BM_FmaPeakAvx512/threads:{t}", [{"GFLOP/s": 0}])], args.stat)
              for t in (1, 2)}
    print(f"Ceilings ({args.stat}): read 4 GiB {bw[1]:.1f} GB/s (1 thread), {bw[2]:.1f} GB/s (2 threads); "
          f"AVX2 FMA {fma[1]:.0f} / {fma[2]:.0f} GFLOP/s; AVX-512 FMA {fma512[1]:.0f} / {fma512[2]:.0f} GFLOP/s.\n")

    lin = load(args.linear_json)
    shapes = []
    for name in lin:
        shape = "/".join(name.split("/")[1:3])
        if shape not in shapes:
            shapes.append(shape)

    def rate(shape, n, t, mode, counter):
        runs = lin.get(f"Linear/{shape}/n:{n}/threads:{t}/{mode}")
        return pick([b[counter] for b in runs], args.stat) if runs else None

    def cell(v, ceiling):
        return "—" if v is None else f"{v:.1f} ({100 * v / ceiling:.0f}%)"

    print("| tensor | out×in | MB | n=1 cold 1T GB/s | n=1 cold 2T GB/s | n=1 hot 1T GB/s | "
          "n=16 cold 1T GFLOP/s | n=16 cold 2T GFLOP/s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for shape in shapes:
        tensor, dims = shape.split("/")
        out, inp = (int(x) for x in dims.split("x"))
        mb = out * inp * 2 / 1e6
        print(f"| {tensor} | {out}×{inp} | {mb:.1f} | "
              f"{cell(rate(shape, 1, 1, 'cold', 'weight_GB/s'), bw[1])} | "
              f"{cell(rate(shape, 1, 2, 'cold', 'weight_GB/s'), bw[2])} | "
              f"{cell(rate(shape, 1, 1, 'hot', 'weight_GB/s'), bw[1])} | "
              f"{cell(rate(shape, 16, 1, 'cold', 'GFLOP/s'), fma[1])} | "
              f"{cell(rate(shape, 16, 2, 'cold', 'GFLOP/s'), fma[2])} |")


if __name__ == "__main__":
    main()
