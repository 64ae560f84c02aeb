#!/usr/bin/env python3
"""Online serving, gemmad against llama.cpp's llama-server, measured by one client in one run.

Both servers run on this machine in turn (never together), on the same weights at the same bits:
gemmad serves MODEL (a safetensors checkpoint, `--quantization Q` if given) and llama-server serves
GGUF (a conversion of the same checkpoint, e.g. Q4_0 against int4, Q8_0 against int8, BF16 against
bf16) with `-np SLOTS -cb`. The client is `gemmad bench serve` (vLLM's `vllm bench serve
--dataset-name random`: random token-id prompts of --input-len tokens, --output-len tokens each
with ignore_eos, streamed, temperature 0), at each --concurrency level with
max(--min-prompts, --prompts-per-slot x level) requests. Every server first answers one warm-up
request. --rounds N repeats gemmad-then-llama.cpp N times; each round's ratios are printed, so
that a noisy minute on a shared VM costs one round, not the comparison.

Reported per level and side: output tokens/s, TTFT median and p99, TPOT median and p99 (ms), and
the ratio gemmad / llama-server of output tokens/s and of TTFT median (below 1 = gemmad faster).

Usage: bench/serve_side_by_side.py --gemmad build/release/gemmad --model DIR [--quantization int4]
       --llama-server PATH --gguf FILE [--threads 2] [--concurrency 1 4 16 64] [--input-len 128]
       [--output-len 64] [--rounds 1] [--slots 16] [--json OUT]
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lscpu_model():
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True).stdout
        return next((l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("Model name")), "unknown")
    except OSError:
        return "unknown"


class Server:
    """One server process on a free loopback port, stopped with SIGTERM (then SIGKILL)."""

    def __init__(self, cmd, port, log):
        self.port = port
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 600
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited with {self.proc.returncode}: {' '.join(cmd)} (log {log.name})")
            try:
                urllib.request.urlopen(self.base + "/health", timeout=2)
                return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise SystemExit(f"server did not become healthy: {' '.join(cmd)}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def bench_serve(a, base, concurrency, prompts, out_json):
    cmd = [a.gemmad, "bench", "serve", "--base-url", base, "--tokenizer", a.model,
           "--num-prompts", str(prompts), "--max-concurrency", str(concurrency),
           "--random-input-len", str(a.input_len), "--random-output-len", str(a.output_len),
           "--ignore-eos", "--temperature", "0", "--seed", str(a.seed), "--metric-percentiles", "50,99",
           "--result-json", out_json]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if res.returncode != 0:
        raise SystemExit(f"bench serve failed against {base}:\n{res.stdout[-2000:]}")
    with open(out_json) as f:
        return json.load(f)


def run_side(a, side, workdir, round_no):
    port = free_port()
    if side == "gemmad":
        # gemmad serve runs one thread per CPU (there is no serve flag for it): run this script on
        # a machine, or under `taskset`, with --threads CPUs.
        cmd = [a.gemmad, "serve", a.model, "--host", "127.0.0.1", "--port", str(port),
               "--max-model-len", str(a.input_len + a.output_len + 64)]
        if a.quantization:
            cmd += ["--quantization", a.quantization]
    else:
        cmd = [a.llama_server, "-m", a.gguf, "--host", "127.0.0.1", "--port", str(port), "-t", str(a.threads),
               "-tb", str(a.threads), "-np", str(a.slots), "-cb",
               "-c", str(a.slots * (a.input_len + a.output_len + 64))]
    log = open(os.path.join(a.log_dir or workdir, f"{side}-round{round_no}.log"), "w")
    server = Server(cmd, port, log)
    rows = {}
    try:
        bench_serve(a, server.base, 1, 1, os.path.join(workdir, "warmup.json"))
        for c in a.concurrency:
            prompts = max(a.min_prompts, a.prompts_per_slot * c)
            r = bench_serve(a, server.base, c, prompts, os.path.join(workdir, f"{side}-{round_no}-{c}.json"))
            if r.get("completed") != prompts:
                raise SystemExit(f"{side}: {r.get('completed')} of {prompts} requests completed at concurrency {c}")
            rows[c] = r
            print(f"round {round_no} {side:>12} c={c:<3} out {r['output_throughput']:8.2f} tok/s  "
                  f"TTFT p50 {r['median_ttft_ms']:9.1f} ms  TPOT p50 {r['median_tpot_ms']:8.1f} ms",
                  file=sys.stderr, flush=True)
    finally:
        server.stop()
        log.close()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gemmad", required=True)
    ap.add_argument("--model", required=True, help="gemmad checkpoint dir (also the client's tokenizer)")
    ap.add_argument("--quantization", help="gemmad --quantization (int4, int8); none for the stored dtype")
    ap.add_argument("--llama-server", required=True)
    ap.add_argument("--gguf", required=True, help="the same weights at the matching bits, as GGUF")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16, 64])
    ap.add_argument("--input-len", type=int, default=128)
    ap.add_argument("--output-len", type=int, default=64)
    ap.add_argument("--prompts-per-slot", type=int, default=2, help="requests per concurrency level = this x level")
    ap.add_argument("--min-prompts", type=int, default=4)
    ap.add_argument("--slots", type=int, default=16, help="llama-server -np")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="write every round's rows here")
    ap.add_argument("--log-dir", help="keep the servers' logs here (default: a temporary directory)")
    a = ap.parse_args()
    if a.log_dir:
        os.makedirs(a.log_dir, exist_ok=True)
    if a.threads != os.cpu_count():
        print(f"note: gemmad serve uses all {os.cpu_count()} CPUs; llama-server runs -t {a.threads}", file=sys.stderr)

    print(f"CPU: {lscpu_model()} ({os.cpu_count()} logical CPUs); threads {a.threads}; "
          f"input {a.input_len}, output {a.output_len} tokens; llama-server -np {a.slots} -cb; "
          f"gemmad --quantization {a.quantization or '(stored dtype)'} vs {os.path.basename(a.gguf)}")
    rounds = []
    with tempfile.TemporaryDirectory(prefix="serve-sbs-") as workdir:
        for r in range(a.rounds):
            ours = run_side(a, "gemmad", workdir, r)
            theirs = run_side(a, "llama-server", workdir, r)
            rounds.append({"gemmad": ours, "llama-server": theirs})
    print("\n| round | concurrency | gemmad out tok/s | llama-server out tok/s | ratio | gemmad TTFT p50 / p99 ms "
          "| llama-server TTFT p50 / p99 ms | TTFT p50 ratio | gemmad TPOT p50 / p99 ms | llama-server TPOT p50 / p99 ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r, row in enumerate(rounds):
        for c in a.concurrency:
            g, l = row["gemmad"][c], row["llama-server"][c]
            print(f"| {r} | {c} | {g['output_throughput']:.2f} | {l['output_throughput']:.2f} | "
                  f"**{g['output_throughput'] / l['output_throughput']:.2f}** | "
                  f"{g['median_ttft_ms']:.0f} / {g['p99_ttft_ms']:.0f} | {l['median_ttft_ms']:.0f} / {l['p99_ttft_ms']:.0f} | "
                  f"{g['median_ttft_ms'] / l['median_ttft_ms']:.2f} | "
                  f"{g['median_tpot_ms']:.1f} / {g['p99_tpot_ms']:.1f} | {l['median_tpot_ms']:.1f} / {l['p99_tpot_ms']:.1f} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"args": vars(a), "cpu": lscpu_model(), "rounds": rounds}, f, indent=1)


if __name__ == "__main__":
    main()
