#!/usr/bin/env python3
"""GGUF conversions of the committed reference checkpoints, made by llama.cpp's own converter.

Run with the dev environment (torch + transformers; never in CI) and llama.cpp's sources from the
llama-cpp-python sdist (its vendor/llama.cpp; nothing of it is committed):
    /work/venv-dev/bin/python scripts/golden/make_gguf_goldens.py --llama-cpp DIR [--out tests/golden]

For each model below it copies the checkpoint directory into a temporary one, adds a tokenizer cut
down to the checkpoint's vocabulary (the first N ids of the shared Gemma tokenizer.json, with the
merges and added tokens that stay inside them: the converter insists on a tokenizer), runs
`convert_hf_to_gguf.py --outtype T` and writes tests/golden/gguf/<model>_<t>.gguf. The C++ tests
(tests/model/gguf_golden_test.cc) load each file through gemmad's GGUF weight source and check the
logits against the same transformers goldens the safetensors checkpoints are checked against: f32
files exactly like the safetensors path. With --llama-quantize, the f32 files are also quantized to
Q4_0 and Q4_K_M by llama.cpp's llama-quantize (on these small rows Q4_K_M mixes Q4_K, Q6_K, Q5_0,
Q8_0 and F16 tensors: llama.cpp's fallbacks for rows shorter than 256). For each quantized file it also writes the reference
logits of exactly the quantized weights: gguf-py (the sdist's) dequantizes every tensor, the names
are mapped back to Hugging Face's (and Gemma 3's norm shift undone), transformers runs the model in
float32 on the goldens' prompts, and <model>_<t>.logits.{json,bin} record the prefill logits. So the
q8_0 files are checked to the fp32 tolerance, not against a loose quantization-noise bound.
"""
import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_manifest import update_manifest  # noqa: E402

# (name, checkpoint dir under tests/golden, shared tokenizer, out types)
MODELS = [
    ("gemma4_t1", "gemma4/t1", "gemma4", ["f32", "q8_0"]),
    ("gemma4_t2", "gemma4/t2", "gemma4", ["f32", "q8_0"]),
]
# Not Gemma 3: its converter builds the SentencePiece vocabulary from tokenizer.model, which the
# shared data does not have (without it the converter takes the GPT-2 BPE path real Gemma 3 GGUFs
# never use). The Gemma 3 GGUF path is checked on the real Gemma 3 270M file instead
# (tests/e2e/test_gguf_real.py, tests/tokenizer/gguf_tokenizer_real_test.cc).


def rename_token(tok, cfg, i, name):
    """Token id i becomes `name` (a special token) in tokenizer.json and tokenizer_config.json."""
    vocab = tok["model"]["vocab"]
    for t in [t for t, j in vocab.items() if j == i]:
        del vocab[t]
    vocab[name] = i
    tok["added_tokens"] = [a for a in tok["added_tokens"] if a["id"] != i]
    tok["added_tokens"].append({"id": i, "content": name, "single_word": False, "lstrip": False, "rstrip": False,
                                "normalized": False, "special": True})
    tok["added_tokens"].sort(key=lambda a: a["id"])
    decoder = cfg.get("added_tokens_decoder")
    if isinstance(decoder, dict):
        decoder[str(i)] = {"content": name, "lstrip": False, "normalized": False, "rstrip": False,
                           "single_word": False, "special": True}


def cut_tokenizer(src_dir, vocab_size, dst_dir, fixed=None):
    """tokenizer.json + tokenizer_config.json restricted to ids < vocab_size. `fixed` ({id: token})
    renames ids first (a checkpoint whose config puts media tokens at small ids); then the special
    tokens tokenizer_config.json names (mask, image and audio markers) that the cut left out take
    the ids of the last "<unused…>" tokens inside it: transformers would append them past
    vocab_size, and llama.cpp refuses a file whose token list is longer than its embedding."""
    with open(os.path.join(src_dir, "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    with open(os.path.join(src_dir, "tokenizer_config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    model = tok["model"]
    vocab = {t: i for t, i in model["vocab"].items() if i < vocab_size}
    merges = []
    for m in model["merges"]:
        a, b = m if isinstance(m, list) else m.split(" ", 1)
        if a in vocab and b in vocab and (a + b) in vocab:
            merges.append([a, b])
    model["vocab"] = vocab
    model["merges"] = merges
    tok["added_tokens"] = [t for t in tok["added_tokens"] if t["id"] < vocab_size]
    decoder = cfg.get("added_tokens_decoder")
    if isinstance(decoder, dict):
        cfg["added_tokens_decoder"] = {k: v for k, v in decoder.items() if int(k) < vocab_size}
    for i, name in (fixed or {}).items():
        rename_token(tok, cfg, i, name)
    names = [cfg[k] for k in sorted(cfg) if k.endswith("_token") and isinstance(cfg[k], str)]
    missing = [n for n in dict.fromkeys(names) if n not in vocab]
    free = sorted((i for t, i in vocab.items() if t.startswith("<unused")), reverse=True)
    if len(free) < len(missing):
        raise SystemExit(f"no room for {missing} in the cut vocabulary")
    for name, i in zip(missing, free):
        rename_token(tok, cfg, i, name)
    with open(os.path.join(dst_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)
    cfg.pop("chat_template", None)
    with open(os.path.join(dst_dir, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, ensure_ascii=False)


# GGUF -> HF names (spec gguf.md §3.3 / §3.5), as src/model/gguf_names.cc maps them.
GLOBAL_NAMES = {
    "token_embd.weight": "model.embed_tokens.weight", "output_norm.weight": "model.norm.weight",
    "per_layer_token_embd.weight": "model.embed_tokens_per_layer.weight",
    "per_layer_model_proj.weight": "model.per_layer_model_projection.weight",
    "per_layer_proj_norm.weight": "model.per_layer_projection_norm.weight",
}
LAYER_NAMES = {
    "attn_norm.weight": "input_layernorm.weight", "attn_q.weight": "self_attn.q_proj.weight",
    "attn_k.weight": "self_attn.k_proj.weight", "attn_v.weight": "self_attn.v_proj.weight",
    "attn_output.weight": "self_attn.o_proj.weight", "attn_q_norm.weight": "self_attn.q_norm.weight",
    "attn_k_norm.weight": "self_attn.k_norm.weight", "post_attention_norm.weight": "post_attention_layernorm.weight",
    "ffn_norm.weight": "pre_feedforward_layernorm.weight", "ffn_gate.weight": "mlp.gate_proj.weight",
    "ffn_up.weight": "mlp.up_proj.weight", "ffn_down.weight": "mlp.down_proj.weight",
    "post_ffw_norm.weight": "post_feedforward_layernorm.weight", "layer_output_scale.weight": "layer_scalar",
    "inp_gate.weight": "per_layer_input_gate.weight", "proj.weight": "per_layer_projection.weight",
    "post_norm.weight": "post_per_layer_input_norm.weight", "ffn_gate_inp.weight": "router.proj.weight",
    "ffn_gate_inp.scale": "router.scale", "pre_ffw_norm_2.weight": "pre_feedforward_layernorm_2.weight",
    "post_ffw_norm_1.weight": "post_feedforward_layernorm_1.weight",
    "post_ffw_norm_2.weight": "post_feedforward_layernorm_2.weight",
    "ffn_gate_up_exps.weight": "experts.gate_up_proj", "ffn_down_exps.weight": "experts.down_proj",
    "ffn_down_exps.scale": "router.per_expert_scale",
}


def quantized_reference(llama_cpp, gguf_path, ckpt_dir, golden_prompts, out_stem):
    """transformers' fp32 logits for the dequantized weights of `gguf_path` (see the module doc)."""
    sys.path.insert(0, os.path.join(llama_cpp, "gguf-py"))
    import numpy
    import torch
    import transformers
    from gguf import GGUFReader
    from gguf.quants import dequantize
    from golden_io import GoldenWriter, float32_model

    torch.manual_seed(0)
    torch.set_num_threads(1)
    reader = GGUFReader(gguf_path)
    arch = bytes(reader.fields["general.architecture"].parts[-1]).decode()
    state = {}
    for t in reader.tensors:
        if t.name == "rope_freqs.weight":
            continue
        values = dequantize(t.data, t.tensor_type).astype(numpy.float32)
        shape = [int(d) for d in reversed(t.shape)]
        values = values.reshape(shape)
        if t.name.startswith("blk."):
            _, idx, rest = t.name.split(".", 2)
            hf = f"model.layers.{idx}.{LAYER_NAMES[rest]}"
        else:
            hf = GLOBAL_NAMES[t.name]
        if arch == "gemma3" and hf.endswith("norm.weight"):
            values = values - numpy.float32(1.0)
        state[hf] = torch.from_numpy(numpy.ascontiguousarray(values))
    model = float32_model(transformers.AutoConfig.from_pretrained(ckpt_dir), state)
    writer = GoldenWriter()
    meta = []
    with torch.no_grad():
        for p in golden_prompts:
            ids = torch.tensor([p["token_ids"]], dtype=torch.long)
            logits = model(input_ids=ids, use_cache=False).logits[0].float()
            writer.add(p["name"] + ".prefill_logits", logits)
            meta.append({"name": p["name"], "token_ids": p["token_ids"]})
    writer.write(os.path.dirname(out_stem), os.path.basename(out_stem),
                 {"gguf": os.path.basename(gguf_path), "prompts": meta,
                  "versions": {"torch": torch.__version__, "transformers": transformers.__version__}})


def golden_prompts(ckpt_dir):
    for fn in ("golden_f32.json",):
        path = os.path.join(ckpt_dir, fn)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                return json.load(f)["prompts"]
    raise SystemExit(f"{ckpt_dir}: no golden_f32.json with prompts")


def convert(llama_cpp, src, outtype, out_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(llama_cpp, "gguf-py") + os.pathsep + llama_cpp
    cmd = [sys.executable, os.path.join(llama_cpp, "convert_hf_to_gguf.py"), src, "--outtype", outtype,
           "--outfile", out_path, "--no-lazy"]
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stdout[-4000:])
        raise SystemExit(f"conversion of {src} to {outtype} failed")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llama-cpp", required=True, help="llama.cpp source dir (the sdist's vendor/llama.cpp)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    ap.add_argument("--llama-quantize", help="llama-quantize binary of the same llama.cpp (adds q4_0 and q4_k_m files "
                    "quantized from the f32 one)")
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))
    args = ap.parse_args()
    out_dir = os.path.join(args.out, "gguf")
    os.makedirs(out_dir, exist_ok=True)
    for name, ckpt, tok_name, types in MODELS:
        src = os.path.join(args.out, ckpt)
        if not os.path.isdir(src):
            print(f"skipping {name}: {src} does not exist")
            continue
        with open(os.path.join(src, "config.json"), encoding="utf-8") as f:
            vocab_size = json.load(f)["vocab_size"]
        with tempfile.TemporaryDirectory() as tmp:
            work = os.path.join(tmp, name)
            os.makedirs(work)
            for fn in ("config.json", "generation_config.json", "model.safetensors"):
                if os.path.exists(os.path.join(src, fn)):
                    shutil.copy(os.path.join(src, fn), work)
            cut_tokenizer(os.path.join(args.shared, "data", "tokenizers", tok_name), vocab_size, work)
            for t in types:
                out_path = os.path.join(out_dir, f"{name}_{t}.gguf")
                convert(args.llama_cpp, work, t, out_path)
                print(f"wrote {out_path} ({os.path.getsize(out_path)} bytes)")
                if t != "f32":
                    quantized_reference(args.llama_cpp, out_path, src, golden_prompts(src),
                                        os.path.join(out_dir, f"{name}_{t}.logits"))
            if args.llama_quantize:
                f32 = os.path.join(out_dir, f"{name}_f32.gguf")
                for t, ftype in (("q4_0", "Q4_0"), ("q4_k_m", "Q4_K_M")):
                    out_path = os.path.join(out_dir, f"{name}_{t}.gguf")
                    env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(os.path.abspath(args.llama_quantize)))
                    res = subprocess.run([args.llama_quantize, f32, out_path, ftype], env=env,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                    if res.returncode != 0:
                        sys.stderr.write(res.stdout[-4000:])
                        raise SystemExit(f"llama-quantize {ftype} failed")
                    print(f"wrote {out_path} ({os.path.getsize(out_path)} bytes)")
                    quantized_reference(args.llama_cpp, out_path, src, golden_prompts(src),
                                        os.path.join(out_dir, f"{name}_{t}.logits"))
    converter = os.path.join(args.llama_cpp, "convert_hf_to_gguf.py")
    with open(converter, "rb") as f:
        converter_sha = hashlib.sha256(f.read()).hexdigest()
    update_manifest(args.out, "gguf", {
        "generator": "scripts/golden/make_gguf_goldens.py",
        "converter": "llama.cpp convert_hf_to_gguf.py from the llama-cpp-python 0.3.36 sdist (vendor/llama.cpp)",
        "converter_sha256": converter_sha,
        "versions": {"python": platform.python_version()},
        "models": {name: {"checkpoint": ckpt, "outtypes": types} for name, ckpt, _, types in MODELS},
        "llama_quantize": ["Q4_0", "Q4_K_M"] if args.llama_quantize else [],
    })


if __name__ == "__main__":
    main()
