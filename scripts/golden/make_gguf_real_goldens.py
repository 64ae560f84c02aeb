#!/usr/bin/env python3
"""llama.cpp's greedy continuations and top-5 logprobs on the real Gemma 3 270M GGUF (Q4_K_M).

The peer is llama.cpp 0c1e570, the vendor/llama.cpp of the llama-cpp-python 0.3.36 sdist, built by
scripts/build_llamacpp_peer.sh (shared libraries). This script drives its C API through ctypes
(llama_model_load_from_file, llama_init_from_model, llama_tokenize, llama_batch_init +
llama_decode, llama_get_logits_ith, llama_detokenize); it contains no llama.cpp code. The ctypes
structs are checked against llama.h by compiling a small offsetof/sizeof probe with `cc` first.

For each prompt of PROMPTS (plain text, base model, no chat template): tokenize with BOS
(add_special, no special parsing), decode the whole prompt in one ubatch, then greedy decoding of
32 tokens with one sequence (argmax of the fp32 logits, lowest id on a tie; EOS does not stop it).
The main run uses --threads (2) and llama.cpp's context defaults otherwise (f16 KV cache, flash
attention auto, which resolves to enabled on the CPU). At each of the 32 steps: the top-5
(id, logprob) of the full-vocabulary log-softmax of the fp32 logits (computed in float64), and the
margin = logprob(top-1) - logprob(top-2) in nats; per prompt the smallest margin and the first step
under TIGHT_MARGIN. Then each of VARIANTS (1 thread; flash attention off; flash attention off with
an f32 KV cache) is run along the main run's continuation (its tokens fed, not its own argmax) and
recorded per step: its top-5, margin, argmax, and the largest |logprob difference| from the main
run over the main run's top-5 ids. That is llama.cpp's spread against itself on this model.

Output: tests/golden/gguf_real/gemma3_270m_q4_k_m.json and its tests/golden/MANIFEST.json entry.
--out PATH writes elsewhere without touching the manifest (and is required by --only,
--flash-attn, --kv-type, --no-variants, which change the run); --compare PATH then reports how the
main run differs from another output's (the determinism check of docs/gguf-real-weights.md).

Usage: make_gguf_real_goldens.py [--lib DIR] [--gguf FILE] [--threads 2] [--out PATH]
                                 [--compare PATH] [--only NAMES] [--flash-attn auto|on|off]
                                 [--kv-type f16|f32] [--no-variants] [--verbose]
  --lib  the directory holding libllama.so and libggml*.so (default
         /work/peer/llama.cpp-build/build/bin); its ../../COMMIT names the llama.cpp commit.
"""
import argparse
import ctypes
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from check_manifest import update_manifest, write_json  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
GOLDEN_ROOT = os.path.join(REPO, "tests", "golden")
AREA = "gguf_real"
OUT_NAME = "gemma3_270m_q4_k_m.json"
GGUF_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
N_GEN = 32
TOP_K = 5
TIGHT_MARGIN = 0.05  # nats
N_CTX = 1024  # > the longest prompt + N_GEN; prompts are decoded in a single ubatch of this size


def counting_prompt(last):
    return "Counting from one: " + ", ".join(str(i) for i in range(1, last + 1)) + ","


PLANETS = [
    ("Mercury", "first", "rocky", "the smallest planet and has no moons"),
    ("Venus", "second", "rocky", "the hottest planet because of its thick carbon dioxide atmosphere"),
    ("Earth", "third", "rocky", "the only planet known to support life and has one moon"),
    ("Mars", "fourth", "rocky", "called the Red Planet because of the iron oxide on its surface"),
    ("Jupiter", "fifth", "gas giant", "the largest planet and has a storm called the Great Red Spot"),
    ("Saturn", "sixth", "gas giant", "famous for its bright rings made of ice and rock"),
    ("Uranus", "seventh", "ice giant", "tilted on its side and rotates at an angle of about 98 degrees"),
    ("Neptune", "eighth", "ice giant", "the farthest planet and has the strongest winds"),
]


def planets_prompt():
    parts = ["The Solar System formed about 4.6 billion years ago from a collapsing cloud of gas and "
             "dust. At its centre is the Sun, a star that contains more than 99 percent of the mass "
             "of the whole system. Eight planets orbit the Sun, together with dwarf planets, moons, "
             "asteroids and comets."]
    for name, order, kind, fact in PLANETS:
        parts.append(f"{name} is the {order} planet from the Sun. {name} is a {kind} planet. "
                     f"{name} is {fact}. Astronomers have studied {name} with telescopes on the "
                     f"ground and with spacecraft that flew past it or orbited it, and every mission "
                     f"has taught us something new about how {name} formed and how it has changed "
                     f"over billions of years.")
    parts.append("The four inner planets are small and rocky, while the four outer planets are large "
                 "and made mostly of gas and ice. Between Mars and Jupiter lies the asteroid belt, "
                 "and beyond Neptune lies the Kuiper belt, home of Pluto and many other icy bodies.")
    parts.append("To summarise, the eight planets of the Solar System, in order from the Sun, are")
    return " ".join(parts)


# (name, text). The two long ones exceed Gemma 3's 512-token sliding window.
PROMPTS = [
    ("capital_france", "The capital of France is"),
    ("once_upon", "Once upon a time,"),
    ("fibonacci", "def fibonacci(n):"),
    ("primary_colors", "The three primary colors are"),
    ("water_boils", "Water boils at a temperature of"),
    ("days_of_week", "The days of the week are Monday, Tuesday,"),
    ("long_counting", counting_prompt(200)),
    ("long_planets", planets_prompt()),
]


# --- ctypes view of llama.h (0c1e570) -------------------------------------------------------------

class ModelParams(ctypes.Structure):
    _fields_ = [
        ("devices", ctypes.c_void_p), ("tensor_buft_overrides", ctypes.c_void_p),
        ("n_gpu_layers", ctypes.c_int32), ("split_mode", ctypes.c_int), ("load_mode", ctypes.c_int),
        ("lazy_mode", ctypes.c_int), ("main_gpu", ctypes.c_int32), ("tensor_split", ctypes.c_void_p),
        ("progress_callback", ctypes.c_void_p), ("progress_callback_user_data", ctypes.c_void_p),
        ("kv_overrides", ctypes.c_void_p),
        ("vocab_only", ctypes.c_bool), ("check_tensors", ctypes.c_bool), ("use_extra_bufts", ctypes.c_bool),
        ("no_host", ctypes.c_bool), ("no_alloc", ctypes.c_bool), ("load_mtp", ctypes.c_bool),
    ]


class ContextParams(ctypes.Structure):
    _fields_ = [
        ("n_ctx", ctypes.c_uint32), ("n_batch", ctypes.c_uint32), ("n_ubatch", ctypes.c_uint32),
        ("n_seq_max", ctypes.c_uint32), ("n_rs_seq", ctypes.c_uint32), ("n_outputs_max", ctypes.c_uint32),
        ("n_outputs_max_per_seq", ctypes.c_uint32),
        ("n_threads", ctypes.c_int32), ("n_threads_batch", ctypes.c_int32),
        ("ctx_type", ctypes.c_int), ("rope_scaling_type", ctypes.c_int), ("pooling_type", ctypes.c_int),
        ("attention_type", ctypes.c_int), ("flash_attn_type", ctypes.c_int),
        ("rope_freq_base", ctypes.c_float), ("rope_freq_scale", ctypes.c_float),
        ("yarn_ext_factor", ctypes.c_float), ("yarn_attn_factor", ctypes.c_float),
        ("yarn_beta_fast", ctypes.c_float), ("yarn_beta_slow", ctypes.c_float),
        ("yarn_orig_ctx", ctypes.c_uint32), ("defrag_thold", ctypes.c_float),
        ("cb_eval", ctypes.c_void_p), ("cb_eval_user_data", ctypes.c_void_p),
        ("type_k", ctypes.c_int), ("type_v", ctypes.c_int),
        ("abort_callback", ctypes.c_void_p), ("abort_callback_data", ctypes.c_void_p),
        ("embeddings", ctypes.c_bool), ("offload_kqv", ctypes.c_bool), ("no_perf", ctypes.c_bool),
        ("op_offload", ctypes.c_bool), ("swa_full", ctypes.c_bool), ("kv_unified", ctypes.c_bool),
        ("samplers", ctypes.c_void_p), ("n_samplers", ctypes.c_size_t), ("ctx_other", ctypes.c_void_p),
    ]


class Batch(ctypes.Structure):
    _fields_ = [
        ("n_tokens", ctypes.c_int32), ("token", ctypes.POINTER(ctypes.c_int32)),
        ("embd", ctypes.POINTER(ctypes.c_float)), ("pos", ctypes.POINTER(ctypes.c_int32)),
        ("n_seq_id", ctypes.POINTER(ctypes.c_int32)),
        ("seq_id", ctypes.POINTER(ctypes.POINTER(ctypes.c_int32))), ("logits", ctypes.POINTER(ctypes.c_int8)),
    ]


STRUCTS = {"llama_model_params": ModelParams, "llama_context_params": ContextParams, "llama_batch": Batch}


def check_layout(include_dirs):
    """Compiles a probe printing sizeof and every field's offsetof from llama.h; fails on a mismatch."""
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "llama.h"', "int main(void) {"]
    for cname, py in STRUCTS.items():
        lines.append(f'  printf("{cname} sizeof %zu\\n", sizeof(struct {cname}));')
        for field, _ in py._fields_:
            lines.append(f'  printf("{cname} {field} %zu\\n", offsetof(struct {cname}, {field}));')
    lines += ["  return 0;", "}"]
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        cmd = ["cc", "-std=c11", "-o", exe, src] + [f"-I{d}" for d in include_dirs]
        subprocess.run(cmd, check=True)
        out = subprocess.run([exe], check=True, stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        cname, field, value = line.split()
        py = STRUCTS[cname]
        want = ctypes.sizeof(py) if field == "sizeof" else getattr(py, field).offset
        if int(value) != want:
            sys.exit(f"ctypes layout of {cname}.{field} is {want}, llama.h says {value}")


class Llama:
    def __init__(self, lib_dir, verbose):
        # libggml* first, so that libllama.so resolves them from the same directory.
        for dep in ("libggml-base.so", "libggml-cpu.so", "libggml.so"):
            path = os.path.join(lib_dir, dep)
            if os.path.exists(path):
                ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        lib = ctypes.CDLL(os.path.join(lib_dir, "libllama.so"))
        self.lib = lib
        self.log = []
        vp, i32, b = ctypes.c_void_p, ctypes.c_int32, ctypes.c_bool
        sig = {
            "llama_backend_init": (None, []),
            "llama_model_default_params": (ModelParams, []),
            "llama_context_default_params": (ContextParams, []),
            "llama_model_load_from_file": (vp, [ctypes.c_char_p, ModelParams]),
            "llama_init_from_model": (vp, [vp, ContextParams]),
            "llama_model_get_vocab": (vp, [vp]),
            "llama_vocab_n_tokens": (i32, [vp]),
            "llama_vocab_eos": (i32, [vp]),
            "llama_vocab_get_add_bos": (b, [vp]),
            "llama_model_desc": (i32, [vp, ctypes.c_char_p, ctypes.c_size_t]),
            "llama_model_n_swa": (i32, [vp]),
            "llama_tokenize": (i32, [vp, ctypes.c_char_p, i32, ctypes.POINTER(i32), i32, b, b]),
            "llama_detokenize": (i32, [vp, ctypes.POINTER(i32), i32, ctypes.c_char_p, i32, b, b]),
            "llama_batch_init": (Batch, [i32, i32, i32]),
            "llama_batch_free": (None, [Batch]),
            "llama_decode": (i32, [vp, Batch]),
            "llama_get_logits_ith": (ctypes.POINTER(ctypes.c_float), [vp, i32]),
            "llama_free": (None, [vp]),
            "llama_model_free": (None, [vp]),
            "llama_print_system_info": (ctypes.c_char_p, []),
            "llama_log_set": (None, [vp, vp]),
        }
        for name, (res, args) in sig.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args

        log_cb_type = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)

        def on_log(level, text, _user):
            msg = text.decode("utf-8", "replace")
            self.log.append(msg)
            if verbose:
                sys.stderr.write(msg)

        self._log_cb = log_cb_type(on_log)  # kept alive for the library's lifetime
        lib.llama_log_set(ctypes.cast(self._log_cb, ctypes.c_void_p), None)
        lib.llama_backend_init()


def tokenize(llama, vocab, text):
    raw = text.encode("utf-8")
    buf = (ctypes.c_int32 * (len(raw) + 8))()
    n = llama.lib.llama_tokenize(vocab, raw, len(raw), buf, len(buf), True, False)
    if n < 0:
        sys.exit(f"llama_tokenize failed ({n})")
    return list(buf[:n])


def detokenize(llama, vocab, ids):
    arr = (ctypes.c_int32 * len(ids))(*ids)
    size = 64 + 64 * len(ids)
    buf = ctypes.create_string_buffer(size)
    n = llama.lib.llama_detokenize(vocab, arr, len(ids), buf, size, False, True)
    if n < 0:
        sys.exit(f"llama_detokenize failed ({n})")
    return buf.raw[:n].decode("utf-8", "replace")


def decode(llama, ctx, batch, ids, start_pos):
    """Feeds ids at positions start_pos.. of sequence 0; logits only for the last one."""
    batch.n_tokens = len(ids)
    for i, tok in enumerate(ids):
        batch.token[i] = tok
        batch.pos[i] = start_pos + i
        batch.n_seq_id[i] = 1
        batch.seq_id[i][0] = 0
        batch.logits[i] = 1 if i == len(ids) - 1 else 0
    rc = llama.lib.llama_decode(ctx, batch)
    if rc != 0:
        sys.exit(f"llama_decode returned {rc}")


def log_softmax(logits):
    x = logits.astype(np.float64)
    m = x.max()
    return x - (m + np.log(np.exp(x - m).sum()))


FLASH_ATTN = {"auto": -1, "off": 0, "on": 1}
KV_TYPE = {"f16": 1, "f32": 0}  # enum ggml_type
# llama.cpp configurations scored against the main run (threads, flash attention): on prompts whose
# KV cache reaches 512 cells the CPU flash-attention decode splits the cache across the threads
# (ggml_compute_forward_flash_attn_ext_f16's split-KV path), so its results depend on the count.
# The last one is the most exact configuration llama.cpp offers on the CPU (no f16 rounding of the
# KV cache or of the attention accumulator).
VARIANTS = [("threads1", 1, "auto", "f16"), ("threads2_flash_attn_off", 2, "off", "f16"),
            ("threads2_flash_attn_off_kv_f32", 2, "off", "f32")]


def run_prompt(llama, model, vocab, n_vocab, text, threads, flash_attn, kv_type, forced=None):
    """Greedy run of N_GEN steps; with forced (a token list), those tokens are fed instead of the
    argmax (a variant run scored along the main run's continuation). Returns the prompt ids, the
    generated (or forced) ids, the steps and each step's log-softmax (float64, full vocabulary)."""
    cparams = llama.lib.llama_context_default_params()
    cparams.n_ctx = N_CTX
    cparams.n_batch = N_CTX
    cparams.n_ubatch = N_CTX
    cparams.n_seq_max = 1
    cparams.n_threads = threads
    cparams.n_threads_batch = threads
    cparams.no_perf = True
    cparams.flash_attn_type = FLASH_ATTN[flash_attn]
    cparams.type_k = cparams.type_v = KV_TYPE[kv_type]
    ctx = llama.lib.llama_init_from_model(model, cparams)
    if not ctx:
        sys.exit("llama_init_from_model failed")
    batch = llama.lib.llama_batch_init(N_CTX, 0, 1)
    try:
        prompt_ids = tokenize(llama, vocab, text)
        if len(prompt_ids) + N_GEN > N_CTX:
            sys.exit(f"prompt of {len(prompt_ids)} tokens does not fit N_CTX = {N_CTX}")
        decode(llama, ctx, batch, prompt_ids, 0)
        generated, steps, lps = [], [], []
        for step in range(N_GEN):
            ptr = llama.lib.llama_get_logits_ith(ctx, -1)
            logits = np.ctypeslib.as_array(ptr, shape=(n_vocab,)).copy()  # fp32
            lp = log_softmax(logits)
            order = np.lexsort((np.arange(n_vocab), -lp))[:TOP_K]  # by logprob, then lowest id
            tok = int(np.argmax(logits))
            assert tok == int(order[0])
            steps.append({
                "top": [[int(i), float(lp[i])] for i in order],
                "margin": float(lp[order[0]] - lp[order[1]]),
            })
            lps.append(lp)
            generated.append(tok if forced is None else forced[step])
            if step + 1 < N_GEN:
                decode(llama, ctx, batch, [generated[-1]], len(prompt_ids) + step)
    finally:
        llama.lib.llama_batch_free(batch)
        llama.lib.llama_free(ctx)
    return prompt_ids, generated, steps, lps


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def generate(args):
    lib_dir = os.path.abspath(args.lib)
    build_root = os.path.dirname(os.path.dirname(lib_dir))  # DEST of build_llamacpp_peer.sh
    src = os.path.join(build_root, "src")
    check_layout([os.path.join(src, "include"), os.path.join(src, "ggml", "include")])
    with open(os.path.join(build_root, "COMMIT")) as f:
        commit = f.read().strip()
    digest = sha256_file(args.gguf)
    if digest != GGUF_SHA256:
        sys.exit(f"{args.gguf}: sha256 {digest}, expected {GGUF_SHA256}")

    llama = Llama(lib_dir, args.verbose)
    mparams = llama.lib.llama_model_default_params()
    mparams.n_gpu_layers = 0
    model = llama.lib.llama_model_load_from_file(args.gguf.encode(), mparams)
    if not model:
        sys.exit(f"cannot load {args.gguf}")
    vocab = llama.lib.llama_model_get_vocab(model)
    n_vocab = llama.lib.llama_vocab_n_tokens(vocab)
    desc = ctypes.create_string_buffer(256)
    llama.lib.llama_model_desc(model, desc, 256)
    n_swa = llama.lib.llama_model_n_swa(model)

    prompts = []
    main_log = list(llama.log)  # the model load, then the main runs' contexts (not the variants')
    for name, text in PROMPTS:
        if args.only and name not in args.only.split(","):
            continue
        start = len(llama.log)
        prompt_ids, generated, steps, _ = run_prompt(llama, model, vocab, n_vocab, text, args.threads,
                                                     args.flash_attn, args.kv_type)
        main_log += llama.log[start:]
        # llama.cpp against itself: each variant is scored along the same continuation; per step,
        # the largest |logprob difference| over the main run's top-5 ids, and the variant's argmax.
        variants = {}
        for vname, vthreads, vfa, vkv in ([] if args.no_variants else VARIANTS):
            _, _, vsteps, vlps = run_prompt(llama, model, vocab, n_vocab, text, vthreads, vfa, vkv,
                                            forced=generated)
            diffs = [max(abs(lp_i - float(vlp[i])) for i, lp_i in st["top"]) for st, vlp in zip(steps, vlps)]
            variants[vname] = {
                "threads": vthreads, "flash_attn": vfa, "kv_cache_type": vkv,
                "max_abs_dlogprob_top5": diffs,
                "argmax": [int(np.argmax(vlp)) for vlp in vlps],
                "top": [st["top"] for st in vsteps],
                "margin": [st["margin"] for st in vsteps],
            }
        margins = [s["margin"] for s in steps]
        prompts.append({
            "name": name,
            "text": text,
            "prompt_ids": prompt_ids,
            "generated_ids": generated,
            "continuation_text": detokenize(llama, vocab, generated),
            "steps": steps,
            "min_margin": min(margins),
            "min_margin_step": margins.index(min(margins)),
            # The first step whose top-2 are closer than TIGHT_MARGIN nats (None: none is): a peer
            # within ordinary fp32/quantization noise may pick the other token there.
            "first_tight_step": next((i for i, m in enumerate(margins) if m < TIGHT_MARGIN), None),
            "variants": variants,
        })
        print(f"{name}: {len(prompt_ids)} prompt tokens, min margin {min(margins):.4f} nats at step "
              f"{margins.index(min(margins))}: {prompts[-1]['continuation_text']!r}", flush=True)
        for vname, v in variants.items():
            flips = [i for i, (a, g) in enumerate(zip(v["argmax"], generated)) if a != g]
            print(f"  vs {vname}: max |dlogprob| {max(v['max_abs_dlogprob_top5']):.4f}, argmax differs at "
                  f"steps {flips}", flush=True)
    # What llama.cpp resolved on its own (flash attention auto, weight repacking, SWA cache), once.
    keys = ("flash attention", "full-size swa", "model buffer size", "cannot be used with preferred",
            "kv_cache: size", "kv cache, size")
    context_log = list(dict.fromkeys(line.strip() for line in main_log
                                     if any(k in line.lower() for k in keys)))
    llama.lib.llama_model_free(model)

    return {
        "format": "gemmad-gguf-real-v1",
        "generator": "scripts/golden/make_gguf_real_goldens.py",
        "peer": {
            "llama_cpp_commit": commit,
            "source": "vendor/llama.cpp of the llama-cpp-python 0.3.36 sdist",
            "build": "scripts/build_llamacpp_peer.sh (Release, shared, AVX-512 set explicit, no AMX)",
            "system_info": llama.lib.llama_print_system_info().decode().strip(),
            "context_log": context_log,
        },
        "cpu": cpu_model(),
        "threads": args.threads,
        "gguf": {"file": "gemma-3-270m-q4_k_m.gguf", "sha256": GGUF_SHA256, "desc": desc.value.decode(),
                 "n_vocab": n_vocab, "n_swa": n_swa},
        "settings": {
            "add_bos": True, "parse_special": False, "n_gen": N_GEN, "top_k": TOP_K, "greedy": True,
            "ignore_eos": True, "n_ctx": N_CTX, "n_batch": N_CTX, "n_ubatch": N_CTX,
            "kv_cache_type": args.kv_type, "flash_attn_type": args.flash_attn,
            "use_extra_bufts": bool(mparams.use_extra_bufts),
            "logprobs": "log-softmax in float64 of llama_get_logits_ith's fp32 logits, full vocabulary",
            "margin": "logprob(top-1) - logprob(top-2), nats",
            "tight_margin": TIGHT_MARGIN,
        },
        "prompts": prompts,
    }


def compare(a, b):
    """Prints how two outputs differ: token ids, and the max |logprob| difference over shared tops."""
    same = True
    others = {p["name"]: p for p in b["prompts"]}
    for pa in a["prompts"]:
        pb = others[pa["name"]]
        ids_same = pa["prompt_ids"] == pb["prompt_ids"] and pa["generated_ids"] == pb["generated_ids"]
        diff = 0.0
        for sa, sb in zip(pa["steps"], pb["steps"]):
            da, db = dict((i, v) for i, v in sa["top"]), dict((i, v) for i, v in sb["top"])
            for i in set(da) & set(db):
                diff = max(diff, abs(da[i] - db[i]))
        same = same and ids_same and diff == 0.0
        print(f"{pa['name']}: ids {'same' if ids_same else 'DIFFER'}, max |dlogprob| {diff:.3g}")
    print("identical" if same else "different")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="/work/peer/llama.cpp-build/build/bin")
    ap.add_argument("--gguf", default="/work/peer/gemma-3-270m-q4_k_m.gguf")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("--compare")
    ap.add_argument("--verbose", action="store_true")
    # Variations for investigating the peer (need --out; the golden uses the defaults).
    ap.add_argument("--only", help="comma-separated prompt names")
    ap.add_argument("--flash-attn", choices=sorted(FLASH_ATTN), default="auto")
    ap.add_argument("--kv-type", choices=sorted(KV_TYPE), default="f16")
    ap.add_argument("--no-variants", action="store_true", help="skip the VARIANTS runs")
    args = ap.parse_args()
    if not args.out and (args.only or args.flash_attn != "auto" or args.kv_type != "f16" or args.no_variants):
        ap.error("--only, --flash-attn, --kv-type and --no-variants change the run: write it with --out")

    result = generate(args)
    if args.out:
        write_json(args.out, result)
    else:
        out_dir = os.path.join(GOLDEN_ROOT, AREA)
        os.makedirs(out_dir, exist_ok=True)
        write_json(os.path.join(out_dir, OUT_NAME), result)
        update_manifest(GOLDEN_ROOT, AREA, {
            "generator": "scripts/golden/make_gguf_real_goldens.py",
            "peer": "llama.cpp " + result["peer"]["llama_cpp_commit"][:7] + " (llama-cpp-python 0.3.36 sdist)",
            "gguf_sha256": GGUF_SHA256,
            "threads": args.threads,
            "versions": {"numpy": np.__version__, "python": platform.python_version()},
        })
    if args.compare:
        with open(args.compare, encoding="utf-8") as f:
            compare(result, json.load(f))


if __name__ == "__main__":
    main()
