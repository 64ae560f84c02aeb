#!/usr/bin/env python3
"""Speculative decoding on a prompt whose answer repeats it: `gemmad serve MODEL` plainly and with a
--speculative-config, alternately (one round = plain server, then the speculative one), each answering the
same greedy completions of "Copy the following paragraph exactly"; prints whole-request tokens/s per
request, the ratio of the means per round, whether the texts were identical, and the spec-decode counters.

    bench/spec_copy_speed.py --gemmad build/release/gemmad --model /root/.cache/gemmad/real/gemma-3-270m-q4_k_m.gguf \
        --config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 2, "prompt_lookup_max": 4}'

Run it with nothing else on the machine and record `lscpu` beside the figures (docs/speculative-decoding.md)."""
import argparse
import json
import signal
import socket
import subprocess
import time
import urllib.request

TEXT = ("The committee met on Tuesday to review the budget for the new library. After a long discussion, "
        "the members agreed to fund the reading room, the children's section and the archive, and to "
        "postpone the cafe until next year.")
PROMPT = f"Copy the following paragraph exactly.\n\nParagraph: {TEXT}\n\nCopy: "


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(args, extra):
    port = free_port()
    p = subprocess.Popen([args.gemmad, "serve", args.model, "--host", "127.0.0.1", "--port", str(port),
                          "--max-model-len", "1024"] + extra, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(base + "/health", timeout=1)
            break
        except OSError:
            time.sleep(0.2)
    else:
        p.kill()
        raise SystemExit("server did not start")
    rates, texts = [], []
    for _ in range(args.requests):
        body = json.dumps({"model": args.model, "prompt": PROMPT, "max_tokens": args.max_tokens,
                           "temperature": 0}).encode()
        t = time.time()
        req = urllib.request.Request(base + "/v1/completions", body, {"Content-Type": "application/json"})
        r = json.load(urllib.request.urlopen(req, timeout=600))
        rates.append(r["usage"]["completion_tokens"] / (time.time() - t))
        texts.append(r["choices"][0]["text"])
    metrics = urllib.request.urlopen(base + "/metrics").read().decode()
    p.send_signal(signal.SIGTERM)
    p.wait(60)
    counters = {line.split("{")[0]: float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
                if line.startswith("vllm:spec_decode_num_") and "_total{" in line and "per_pos" not in line}
    return rates, texts, counters


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gemmad", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--config", required=True, help="the --speculative-config JSON")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--requests", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=64)
    args = ap.parse_args()
    for rnd in range(args.rounds):
        plain, plain_texts, _ = serve(args, [])
        spec, spec_texts, counters = serve(args, ["--speculative-config", args.config])
        ratio = (sum(spec) / len(spec)) / (sum(plain) / len(plain))
        print(f"round {rnd}: plain tokens/s {[round(x, 1) for x in plain]}, speculative {[round(x, 1) for x in spec]}, "
              f"ratio of means {ratio:.2f}x, identical text: {plain_texts == spec_texts}, {counters}")


if __name__ == "__main__":
    main()
