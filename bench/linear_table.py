#!/usr/bin/env python3
"""Markdown table of bench_linear results as a fraction of bench_roofline's ceilings.

Usage: bench/linear_table.py LINEAR_JSON ROOFLINE_JSON [--stat best|median]
                             [--format bf16|int8|int4|int4x16|gguf] [--batch N ...]

Both files come from `--benchmark_out=FILE --benchmark_out_format=json` (any number of
--benchmark_repetitions; `best` takes the highest rate per case, `median` the median).
Ceilings: read_GB/s at 4096 MiB (1 and 2 threads) for the batch-1 columns, the highest of BM_ReadBandwidth
(huge pages, else 4 KiB) and BM_ReadBandwidthPrefetched (four streams a thread, prefetched; any level and
page kind) where the file has it.
The batched columns (n = --batch, default 16) are the kernel's GFLOP/s (2·out·in·n per call)
against the compute peak of the instruction its inner loop is built on, same thread count:
bf16 (the `Linear` cases) against BM_FmaPeakAvx512 (BM_FmaPeakAvx2 where there is no AVX-512),
int8 (`LinearQ8_R`), int4 (`LinearQ4_0`; `LinearQ4_0x16`, rows in groups of 16, where the table reads
them) and GGUF (`LinearGguf`) against BM_VnniPeakAvx512 (one
u8·s8 product and its add = 2 ops). The BF16-dot peak is printed as the headroom of a bf16 kernel
that rounds its activations to bf16.
"""
import argparse
import collections
import json
import statistics

PREFIX = {"bf16": "Linear", "int8": "LinearQ8_R", "int4": "LinearQ4_0", "int4x16": "LinearQ4_0x16", "gguf": "LinearGguf"}


def load(path):
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    out = collections.defaultdict(list)
    for b in runs:
        if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
            continue
        name = b["name"].replace("/min_time:0.300", "").replace("/real_time", "")
        out[name].append(b)
    return out


def pick(values, stat):
    return max(values) if stat == "best" else statistics.median(values)


def ceiling(roof, name, counter, stat):
    runs = roof.get(name)
    return pick([b[counter] for b in runs], stat) if runs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("linear_json")
    ap.add_argument("roofline_json")
    ap.add_argument("--stat", choices=("best", "median"), default="best")
    ap.add_argument("--format", choices=sorted(PREFIX), default="bf16")
    ap.add_argument("--batch", type=int, nargs="+", default=[16])
    args = ap.parse_args()

    roof = load(args.roofline_json)
    threads = (1, 2)
    def read_ceiling(t):
        plain = (ceiling(roof, f"BM_ReadBandwidth/MiB:4096/threads:{t}/huge:1", "read_GB/s", args.stat)
                 or ceiling(roof, f"BM_ReadBandwidth/MiB:4096/threads:{t}/huge:0", "read_GB/s", args.stat))
        prefetched = [ceiling(roof, name, "read_GB/s", args.stat) for name in roof
                      if name.startswith(f"BM_ReadBandwidthPrefetched/MiB:4096/threads:{t}/")]
        readings = [v for v in [plain] + prefetched if v is not None]
        return max(readings) if readings else None

    bw = {t: read_ceiling(t) for t in threads}
    fma = {t: ceiling(roof, f"BM_FmaPeakAvx512/threads:{t}", "GFLOP/s", args.stat)
           or ceiling(roof, f"BM_FmaPeakAvx2/threads:{t}", "GFLOP/s", args.stat) for t in threads}
    vnni = {t: ceiling(roof, f"BM_VnniPeakAvx512/threads:{t}", "GOP/s", args.stat) for t in threads}
    bf16dot = {t: ceiling(roof, f"BM_Bf16DotPeakAvx512/threads:{t}", "GFLOP/s", args.stat) for t in threads}

    def fmt(d, unit):
        return " / ".join("—" if d[t] is None else f"{d[t]:.0f}" for t in threads) + f" {unit}"

    print(f"Ceilings ({args.stat}, 1 / 2 threads): read 4 GiB {fmt(bw, 'GB/s')}; FMA {fmt(fma, 'GFLOP/s')}; "
          f"VNNI {fmt(vnni, 'GOP/s')}; BF16 dot {fmt(bf16dot, 'GFLOP/s')}.\n")
    peak = fma if args.format == "bf16" else vnni

    lin = load(args.linear_json)
    prefix = PREFIX[args.format]
    shapes = []
    for name in lin:
        parts = name.split("/")
        shape = "/".join(parts[1:3])
        if parts[0] == prefix and shape not in shapes:
            shapes.append(shape)

    def run(shape, n, t, mode):
        return lin.get(f"{prefix}/{shape}/n:{n}/threads:{t}/{mode}")

    def rate(shape, n, t, mode, counter):
        runs = run(shape, n, t, mode)
        return pick([b[counter] for b in runs], args.stat) if runs else None

    def cell(v, ceil):
        if v is None:
            return "—"
        return f"{v:.1f}" if not ceil else f"{v:.1f} ({100 * v / ceil:.0f}%)"

    batched = [f"n={n} cold {t}T GFLOP/s" for n in args.batch for t in threads]
    print("| tensor | out×in | MB | n=1 cold 1T GB/s | n=1 cold 2T GB/s | " + " | ".join(batched) + " |")
    print("|---|---|---:|---:|---:|" + "---:|" * len(batched))
    for shape in shapes:
        tensor, dims = shape.split("/")
        out, inp = (int(x) for x in dims.split("x"))
        any_run = next((r for n in [1] + args.batch for t in threads for r in [run(shape, n, t, "cold")] if r), None)
        mb = any_run[0].get("MB", out * inp * 2 / 1e6) if any_run else out * inp * 2 / 1e6
        cells = [cell(rate(shape, n, t, "cold", "GFLOP/s"), peak[t]) for n in args.batch for t in threads]
        print(f"| {tensor} | {out}×{inp} | {mb:.1f} | "
              f"{cell(rate(shape, 1, 1, 'cold', 'weight_GB/s'), bw[1])} | "
              f"{cell(rate(shape, 1, 2, 'cold', 'weight_GB/s'), bw[2])} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
