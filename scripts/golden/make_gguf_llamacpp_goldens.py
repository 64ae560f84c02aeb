#!/usr/bin/env python3
"""llama.cpp's greedy continuations and top-5 logprobs on the converter-made Gemma 4 GGUFs of
tests/golden/gguf (make_gguf_goldens.py), for the prompts of their transformers goldens.

The peer is llama.cpp 0c1e570 (the llama-cpp-python 0.3.36 sdist's vendor/llama.cpp), built by
scripts/build_llamacpp_peer.sh, driven through its C API with make_gguf_real_goldens.py's ctypes
bindings (their struct layouts checked against llama.h first); no llama.cpp code is committed.

Model T2 only (MoE, no KV sharing). T1 shares KV across layers in a way llama.cpp's loader does not
take: on its conversion llama_init_from_model aborts with
`GGML_ASSERT(map_layer_ids.find(il_reuse) != map_layer_ids.end())` (llama-kv-cache.cpp), so it has
no llama.cpp golden.

For each file (f32, q8_0, q4_0, q4_k_m) and each prompt of gemma4/t2/golden_f32.json (token ids
fed as they are): the prompt in one batch, then N_GEN greedy steps (argmax of the fp32 logits,
lowest id on a tie), 2 threads, an f32 KV cache and flash attention off (llama.cpp's most exact CPU
configuration). Per step: the top-5 (id, logprob) of the log-softmax in float64 and the margin
logprob(top-1) - logprob(top-2). Writes tests/golden/gguf_llamacpp/gemma4_t2.json and its manifest
entry; tests/e2e/test_gguf.py serves the same files and compares.

Usage: make_gguf_llamacpp_goldens.py [--lib DIR] [--out tests/golden]
"""
import argparse
import ctypes
import json
import os
import platform
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_gguf_real_goldens as real  # noqa: E402
from check_manifest import update_manifest, write_json  # noqa: E402

AREA = "gguf_llamacpp"
FILES = ["f32", "q8_0", "q4_0", "q4_k_m"]
N_GEN = 16
N_CTX = 256


def run(llama, model, n_vocab, ids):
    c = llama.lib.llama_context_default_params()
    c.n_ctx = c.n_batch = c.n_ubatch = N_CTX
    c.n_seq_max = 1
    c.n_threads = c.n_threads_batch = 2
    c.no_perf = True
    c.flash_attn_type = real.FLASH_ATTN["off"]
    c.type_k = c.type_v = real.KV_TYPE["f32"]
    ctx = llama.lib.llama_init_from_model(model, c)
    if not ctx:
        sys.exit("llama_init_from_model failed")
    batch = llama.lib.llama_batch_init(N_CTX, 0, 1)
    try:
        real.decode(llama, ctx, batch, ids, 0)
        out, steps = [], []
        for s in range(N_GEN):
            logits = np.ctypeslib.as_array(llama.lib.llama_get_logits_ith(ctx, -1), shape=(n_vocab,)).copy()
            lp = real.log_softmax(logits)
            order = np.lexsort((np.arange(n_vocab), -lp))[:real.TOP_K]
            tok = int(order[0])
            steps.append({"top": [[int(i), float(lp[i])] for i in order], "margin": float(lp[order[0]] - lp[order[1]])})
            out.append(tok)
            if s + 1 < N_GEN:
                real.decode(llama, ctx, batch, [tok], len(ids) + s)
        return out, steps
    finally:
        llama.lib.llama_batch_free(batch)
        llama.lib.llama_free(ctx)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="/work/peer/llama.cpp-build/build/bin")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "tests", "golden"))
    args = ap.parse_args()
    lib_dir = os.path.abspath(args.lib)
    build_root = os.path.dirname(os.path.dirname(lib_dir))
    src = os.path.join(build_root, "src")
    real.check_layout([os.path.join(src, "include"), os.path.join(src, "ggml", "include")])
    with open(os.path.join(build_root, "COMMIT")) as f:
        commit = f.read().strip()
    with open(os.path.join(args.out, "gemma4", "t2", "golden_f32.json"), encoding="utf-8") as f:
        prompts = json.load(f)["prompts"]
    llama = real.Llama(lib_dir, False)
    doc = {"model": "gemma4_t2", "llama_cpp": commit, "threads": 2, "kv_type": "f32", "flash_attn": "off",
           "n_gen": N_GEN, "cpu": real.cpu_model(), "files": {}}
    for kind in FILES:
        path = os.path.join(args.out, "gguf", f"gemma4_t2_{kind}.gguf")
        mparams = llama.lib.llama_model_default_params()
        mparams.n_gpu_layers = 0
        model = llama.lib.llama_model_load_from_file(path.encode(), mparams)
        if not model:
            sys.exit(f"cannot load {path}: {''.join(llama.log[-3:])}")
        n_vocab = llama.lib.llama_vocab_n_tokens(llama.lib.llama_model_get_vocab(model))
        runs = []
        for p in prompts:
            ids, steps = run(llama, model, n_vocab, p["token_ids"])
            runs.append({"name": p["name"], "token_ids": p["token_ids"], "greedy_ids": ids, "steps": steps,
                         "transformers_greedy_ids": p["greedy_ids"][:N_GEN]})
            same = sum(a == b for a, b in zip(ids, p["greedy_ids"]))
            print(f"{kind} {p['name']}: {same}/{N_GEN} greedy ids as transformers (f32 weights)")
        doc["files"][os.path.basename(path)] = runs
        llama.lib.llama_model_free(model)
    out_dir = os.path.join(args.out, AREA)
    os.makedirs(out_dir, exist_ok=True)
    write_json(os.path.join(out_dir, "gemma4_t2.json"), doc)
    update_manifest(args.out, AREA, {
        "generator": "scripts/golden/make_gguf_llamacpp_goldens.py",
        "peer": f"llama.cpp {commit} (llama-cpp-python 0.3.36 sdist)",
        "versions": {"numpy": np.__version__, "python": platform.python_version()},
    })


if __name__ == "__main__":
    main()
