#!/usr/bin/env python3
"""Batch-1 decode roofline of `gemmad generate` on a real-shape checkpoint (docs/cpu-performance.md).

1. Reads config.json and the safetensors headers of MODEL (a dense, or a compressed-tensors W4A16,
   FP8 or mobile QAT checkpoint: counted as gemmad holds them, Q4_0 blocks, FP8 rows, code-table rows
   (tensor/lut_rows.h) or int8 rows (tensor/i8b_rows.h)) and sums the bytes of the weights one
   decode step actually streams (text-model.md §4-§7): q/o of every layer, k/v of the KV-owning
   layers only (layers >= L - num_kv_shared_layers reuse a donor's cache and never read theirs),
   gate/up/down of every layer, the PLE per-layer gate/projection and the global
   per_layer_model_projection, router/experts if present (all experts counted: an upper bound),
   and embed_tokens once as the tied LM head. Not counted: norms (tiny), and the gathered rows
   of embed_tokens / embed_tokens_per_layer (one row per token).
2. Times the decode steps in process with `gemmad bench latency MODEL --batch-size 1 --input-len 3
   --output-len 1+N --num-iters REPS` (one warm-up iteration first): per iteration, decode time =
   (latency - time to first token) / N, which leaves out load (and the quantization's run-to-run
   jitter, which the older wall-difference method of `gemmad generate` runs folded into the step).
3. Runs bench_roofline's 4096 MiB read-bandwidth cases (1 and 2 threads, on 4 KiB pages and on
   transparent huge pages, the plain sequential read and the four prefetched streams a thread of
   BM_ReadBandwidthPrefetched, best of REPS) just before and just after the timing and reports
   tokens/s x bytes/token as a percentage of the highest reading of either page kind (the host's
   bandwidth drifts by 10-20% within minutes; huge pages read ~5% faster here, and gemmad's
   quantized weights live on them while bf16 is read from the mapped files' 4 KiB pages).
4. With --linear-json (output of `bench_linear --benchmark_format=json`), also sums the measured
   batch-1 cold Linear time of every matrix of the step: the part of the step the Linear kernel
   explains; the rest is everything else (attention, norms, softcap, sampling, dispatch).

Usage: bench/e2b_decode_roofline.py MODEL [--gemmad build/relassert/gemmad]
       [--roofline build/relassert/bench/bench_roofline] [--reps 3] [--tokens 32] [--threads 0]
       [--linear-json FILE]
"""
import argparse
import functools
import json
import os
import struct
import subprocess
import sys
import time

from gemmad_latency import decode_step_seconds

DTYPE_BYTES = {"BF16": 2, "F16": 2, "F32": 4}


def read_headers(model):
    tensors = {}
    for name in sorted(os.listdir(model)):
        if not name.endswith(".safetensors"):
            continue
        with open(os.path.join(model, name), "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(n))
        header.pop("__metadata__", None)
        tensors.update(header)
    return tensors


@functools.lru_cache(maxsize=None)
def read_header_and_offset(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n)), 8 + n


def weight_shape_values(model, name):
    """The two values of a compressed-tensors weight_shape tensor."""
    for fname in sorted(os.listdir(model)):
        if not fname.endswith(".safetensors"):
            continue
        header, base = read_header_and_offset(os.path.join(model, fname))
        if name in header:
            t = header[name]
            with open(os.path.join(model, fname), "rb") as f:
                f.seek(base + t["data_offsets"][0])
                raw = f.read(t["data_offsets"][1] - t["data_offsets"][0])
            return struct.unpack("<2q" if t["dtype"] == "I64" else "<2i", raw)
    raise KeyError(name)


def packed_bytes(model, tensors, module):
    """Bytes gemmad holds for a pack-quantized module (model/ct_source.cc): int2-int4 per channel
    with static activation scales as code-table rows (64 + cols * bits / 8 bytes, bits 2 when an int2
    row is whole 64-groups, else 4); int2-int4 with f16-exact scales in groups of 32 (or per channel,
    weight-only) as Q4_0 blocks (18 bytes per 32); else bf16."""
    rows, cols = weight_shape_values(model, module + ".weight_shape")
    words = tensors[module + ".weight_packed"]["shape"][1]
    bits = words * 32 // cols
    per_channel = tensors[module + ".weight_scale"]["shape"][-1] == 1
    if module + ".input_scale" in tensors and per_channel and bits <= 4 and cols % 32 == 0:
        lut_bits = 2 if bits == 2 and cols % 64 == 0 else 4
        return (rows, cols), rows * (64 + cols * lut_bits // 8)
    if bits <= 4 and cols % 32 == 0 and module + ".input_scale" not in tensors:
        return (rows, cols), rows * (cols // 32) * 18
    return (rows, cols), rows * cols * 2


def quantized_bytes(shape, method):
    """Bytes of a [.., rows, in] matrix under gemmad's --quantization (tensor/quant_blocks.h):
    int8 = Q8_R (in + 4 bytes per row), int4 = Q4_0 (18 bytes per 32 weights). Rows that are not
    a multiple of 32 long stay as stored (None)."""
    rows = 1
    for d in shape[:-1]:
        rows *= d
    cols = shape[-1]
    if cols % 32:
        return None
    return rows * (cols + 4) if method == "int8" else rows * (cols // 32) * 18


def streamed_weights(model, quantization="none"):
    """Returns [(category, tensor name, shape, bytes)] of the weights one decode step reads."""
    with open(os.path.join(model, "config.json")) as f:
        cfg = json.load(f)
    tc = cfg.get("text_config", cfg)
    layers = tc["num_hidden_layers"]
    first_shared = layers - (tc.get("num_kv_shared_layers") or 0)
    tensors = read_headers(model)
    prefix = next(p for p in ("model.language_model.", "model.")
                  if p + "embed_tokens.weight" in tensors or p + "embed_tokens.weight_packed" in tensors)
    out = []

    def add(cat, short):
        name = prefix + short
        packed = name[: -len(".weight")] + ".weight_packed" if name.endswith(".weight") else None
        if name not in tensors and packed in tensors:
            shape, nbytes = packed_bytes(model, tensors, name[: -len(".weight")])
            out.append((cat, short, shape, nbytes))
            return
        if name in tensors and tensors[name]["dtype"] == "I8":
            # compressed-tensors int-quantized int8: kI8BR rows {fp32 scale; bytes} where the scales are
            # bf16 (tensor/i8b_rows.h), else a bf16 copy
            rows, cols = tensors[name]["shape"]
            scale = tensors.get(name[: -len(".weight")] + ".weight_scale", {})
            nbytes = rows * (cols + 4) if scale.get("dtype") == "BF16" else rows * cols * 2
            out.append((cat, short, (rows, cols), nbytes))
            return
        if name in tensors and tensors[name]["dtype"] == "F8_E4M3":
            rows, cols = tensors[name]["shape"]  # compressed-tensors FP8: kF8R rows {fp32 scale; bytes}
            out.append((cat, short, (rows, cols), rows * (cols + 4)))
            return
        if name in tensors:
            t = tensors[name]
            nbytes = DTYPE_BYTES[t["dtype"]]
            for d in t["shape"]:
                nbytes *= d
            if quantization != "none" and "router" not in short:
                nbytes = quantized_bytes(t["shape"], quantization) or nbytes
            out.append((cat, short, tuple(t["shape"]), nbytes))

    for l in range(layers):
        p = f"layers.{l}."
        for proj in ("q_proj", "o_proj") + (("k_proj", "v_proj") if l < first_shared else ()):
            add("attention", p + "self_attn." + proj + ".weight")
        for proj in ("gate_proj", "up_proj", "down_proj"):
            add("mlp", p + "mlp." + proj + ".weight")
        add("ple", p + "per_layer_input_gate.weight")
        add("ple", p + "per_layer_projection.weight")
        add("moe", p + "router.proj.weight")
        add("moe", p + "experts.gate_up_proj")
        add("moe", p + "experts.down_proj")
    add("ple", "per_layer_model_projection.weight")
    add("lm_head", "embed_tokens.weight")
    return out


def time_generate(gemmad, model, max_tokens, threads, quantization="none"):
    cmd = [gemmad, "generate", model, "--prompt-ids", "1,2,3", "--max-tokens", str(max_tokens), "--ignore-eos"]
    if threads:
        cmd += ["--threads", str(threads)]
    if quantization != "none":
        cmd += ["--quantization", quantization]
    start = time.perf_counter()
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    wall = time.perf_counter() - start
    got = sum(1 for line in res.stdout.splitlines() if line.startswith('{"id"'))
    if got != max_tokens:
        sys.exit(f"expected {max_tokens} tokens, got {got}: {res.stderr[-500:]}")
    return wall


def read_bandwidth(roofline, reps):
    res = subprocess.run(
        [roofline, "--benchmark_filter=BM_ReadBandwidth(Prefetched)?/MiB:4096/", f"--benchmark_repetitions={reps}",
         "--benchmark_format=json"], stdout=subprocess.PIPE, check=True, text=True)
    best = {}  # (threads, huge pages 0|1) -> GB/s
    for b in json.loads(res.stdout)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        threads = int(b["name"].split("threads:")[1].split("/")[0])
        huge = int(b["name"].split("huge:")[1].split("/")[0]) if "huge:" in b["name"] else 0
        best[(threads, huge)] = max(best.get((threads, huge), 0.0), b["read_GB/s"])
    return best


def linear_seconds(linear_json, weights, threads):
    with open(linear_json) as f:
        runs = json.load(f)["benchmarks"]
    by_shape = {}
    for b in runs:
        name = b["name"]
        if b.get("run_type", "iteration") != "iteration" or f"/n:1/threads:{threads}/cold" not in name:
            continue
        out, inp = name.split("/")[2].split("x")
        t = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        key = (int(out), int(inp))
        by_shape[key] = min(by_shape.get(key, t), t)
    total, missing = 0.0, set()
    for _, _, shape, _ in weights:
        if len(shape) == 2 and shape in by_shape:
            total += by_shape[shape]
        else:
            missing.add(shape)
    return total, missing


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--gemmad", default="build/relassert/gemmad")
    ap.add_argument("--roofline", default="build/relassert/bench/bench_roofline")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--threads", type=int, default=0, help="gemmad --threads (0 = all cores)")
    ap.add_argument("--linear-json")
    ap.add_argument("--quantization", default="none", choices=["none", "int8", "int4"],
                    help="gemmad --quantization; bytes per token are counted in the quantized format")
    args = ap.parse_args()

    weights = streamed_weights(args.model, args.quantization)
    per_cat = {}
    for cat, _, _, nbytes in weights:
        per_cat[cat] = per_cat.get(cat, 0) + nbytes
    bytes_per_token = sum(per_cat.values())
    print("weights streamed per decode token:")
    for cat, nbytes in per_cat.items():
        print(f"  {cat:10s} {nbytes / 1e9:8.3f} GB")
    print(f"  {'total':10s} {bytes_per_token / 1e9:8.3f} GB ({len(weights)} tensors)")

    print(f"load average before: {os.getloadavg()[0]:.2f}")
    bw_before = read_bandwidth(args.roofline, args.reps)
    q = args.quantization
    time_generate(args.gemmad, args.model, 1, args.threads, q)  # page cache warm-up
    steps = decode_step_seconds(args.gemmad, args.model, args.tokens, args.reps, args.threads, q)
    print(f"decode step per bench latency iteration ({args.tokens} steps each): "
          + " ".join(f"{t * 1e3:.1f}" for t in steps) + " ms")
    step = min(steps)
    median_step = sorted(steps)[len(steps) // 2]
    print(f"decode step: best {step * 1e3:.1f} ms ({1 / step:.2f} tok/s), "
          f"median {median_step * 1e3:.1f} ms ({1 / median_step:.2f} tok/s)")
    achieved = bytes_per_token / step / 1e9
    print(f"weight bytes streamed: {achieved:.2f} GB/s (best step)")

    bw_after = read_bandwidth(args.roofline, args.reps)
    # The host's bandwidth drifts within minutes: the ceiling is the highest of the readings taken
    # just before and just after the timing, of either page kind (the conservative choice).
    for threads in sorted({t for t, _ in bw_after}):
        readings = {k: (bw_before.get(k, 0.0), bw_after.get(k, 0.0)) for k in bw_after if k[0] == threads}
        gbs = max(max(v) for v in readings.values())
        kinds = ", ".join(f"{'huge' if huge else '4 KiB'} pages {b:.2f} before / {a:.2f} after"
                          for (_, huge), (b, a) in sorted(readings.items()))
        print(f"bench_roofline read 4 GiB, {threads} thread(s): {kinds} GB/s -> decode at "
              f"{100 * achieved / gbs:.1f}% of the highest (roofline {gbs * 1e9 / bytes_per_token:.2f} tok/s)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")

    if args.linear_json:
        threads = args.threads or os.cpu_count()
        lin, missing = linear_seconds(args.linear_json, weights, min(threads, 2))
        print(f"sum of bench_linear n:1 cold times over the step's matrices ({min(threads, 2)} threads): "
              f"{lin * 1e3:.1f} ms = {100 * lin / step:.0f}% of the measured step"
              + (f" (no figure for shapes {sorted(missing)})" if missing else ""))


if __name__ == "__main__":
    main()
