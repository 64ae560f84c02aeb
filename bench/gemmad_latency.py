"""`gemmad bench latency` run from the bench scripts: batch 1, in process, so that neither the load
nor the load-time quantization (whose time varies by a second or more from run to run) enters a
rate. Shared by e2b_decode_roofline.py and llamacpp_side_by_side.py."""
import json
import os
import subprocess


def bench_latency(gemmad, model, input_len, output_len, reps, threads=0, quantization=None, extra=()):
    """(latencies, ttfts) in seconds of each timed iteration of one `gemmad bench latency` run with
    a batch of 1; raises RuntimeError with gemmad's last stderr line when the run fails."""
    out = f"/tmp/gemmad_bench_latency_{os.getpid()}.json"
    cmd = [gemmad, "bench", "latency", model, "--batch-size", "1", "--input-len", str(input_len),
           "--output-len", str(output_len), "--num-iters-warmup", "1", "--num-iters", str(reps),
           "--output-json", out, *extra]
    if threads:
        cmd += ["--threads", str(threads)]
    if quantization and quantization != "none":
        cmd += ["--quantization", quantization]
    try:
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if res.returncode != 0:
            raise RuntimeError((res.stderr.strip().splitlines() or ["no output"])[-1])
        with open(out) as f:
            got = json.load(f)
    finally:
        if os.path.exists(out):
            os.remove(out)
    return got["latencies"], got["ttfts"]


def decode_step_seconds(gemmad, model, tokens, reps, threads=0, quantization=None, extra=()):
    """Seconds per decode step of each timed iteration: a 3-token prompt and 1 + tokens outputs,
    (latency − time to first token) / tokens."""
    lats, ttfts = bench_latency(gemmad, model, 3, 1 + tokens, reps, threads, quantization, extra)
    return [(lat - ttft) / tokens for lat, ttft in zip(lats, ttfts)]
