"""Shared by bench/vision_vs_hf.py and bench/audio_vs_hf.py: gemmad's side (one Google Benchmark
case of a bench binary), alternating timed rounds of gemmad and transformers per case, and the table
of each side's fastest and median round."""
import json
import os
import statistics
import subprocess
import sys
import time

# Seconds between the two sides: transformers' OpenMP workers keep spinning for a while after a
# forward (KMP_BLOCKTIME / GOMP_SPINCOUNT) and would take the cores from gemmad's next round.
SETTLE_S = 1.0


def alternate(cases, repeats, ours, theirs, label):
    """For each case: repeats + 1 rounds (round 0 warms up and is not kept), each timing ours(case)
    then theirs(case) (either None to skip). Returns [(case, our seconds, their seconds)]."""
    rows = []
    for case in cases:
        a, b = [], []
        for r in range(repeats + 1):
            if ours:
                time.sleep(SETTLE_S)
                t = ours(case)
                a += [t] if r else []
            if theirs:
                time.sleep(SETTLE_S)
                t = theirs(case)
                b += [t] if r else []
            print(f"{label(case)} round {r}: gemmad {a[-1] if a and r else '-'} transformers "
                  f"{b[-1] if b and r else '-'}", file=sys.stderr, flush=True)
        rows.append((case, a, b))
    return rows


def print_table(rows, first_columns, unit, repeats, threads):
    """first_columns: (header, width, fn(case)) for the leading columns."""
    print(f"threads {threads}; seconds per {unit}, fastest (median) of {repeats} rounds")
    print(" ".join(f"{h:>{w}}" for h, w, _ in first_columns) + f" {'gemmad':>16} {'transformers':>16} {'hf/gemmad':>10}")
    for case, ours, theirs in rows:
        def cell(v):
            return f"{min(v):.3f} ({statistics.median(v):.3f})" if v else "-"
        ratio = f"{min(theirs) / min(ours):.2f}" if ours and theirs else "-"
        lead = " ".join(f"{fn(case):>{w}}" for _, w, fn in first_columns)
        print(f"{lead} {cell(ours):>16} {cell(theirs):>16} {ratio:>10}")


def bench_seconds(build_dir, binary, threads, case_filter):
    """Seconds per iteration of the one case of bench/<binary> matching case_filter."""
    exe = os.path.join(build_dir, "bench", binary)
    env = dict(os.environ, GEMMAD_BENCH_THREADS=str(threads))
    res = subprocess.run([exe, f"--benchmark_filter={case_filter}", "--benchmark_format=json"], env=env, check=True,
                         capture_output=True, text=True)
    (b,) = json.loads(res.stdout)["benchmarks"]
    return b["real_time"] / 1e3
