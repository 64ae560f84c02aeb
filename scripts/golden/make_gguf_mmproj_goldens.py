#!/usr/bin/env python3
"""mmproj GGUFs (spec gguf.md §6) of the committed multimodal reference checkpoints, made by
llama.cpp's own converter (`convert_hf_to_gguf.py --mmproj`), and the text GGUF they go beside.

Run with the dev environment (torch + transformers; never in CI) and llama.cpp's sources from the
llama-cpp-python sdist (its vendor/llama.cpp; nothing of it is committed):
    .venv/bin/python scripts/golden/make_gguf_mmproj_goldens.py --llama-cpp DIR [--out tests/golden]

Writes tests/golden/gguf_mmproj/:
- gemma4_mm_f32.gguf + mmproj-gemma4_mm-f32.gguf: the end-to-end multimodal checkpoint
  (gemma4_mm/causal: text, vision tower, audio tower) as a text GGUF and its companion. Its
  tokenizer is the shared Gemma 4 one cut to the checkpoint's 512 ids (make_gguf_goldens.py) with
  ids 4-10 renamed to the media tokens this checkpoint's config gives those ids (<|image|> 4,
  <|image> 5, <image|> 6, <|audio|> 7, <|audio> 8, <audio|> 9, <|video|> 10), so that a GGUF reader
  finds the media tokens by name as it does in a real Gemma 4 vocabulary (the <mask> they displace
  moves to an unused id: make_gguf_goldens.cut_tokenizer).
- mmproj-gemma4_towers-f32.gguf: the vision tower of gemma4_vision/a (clipped linears,
  standardize) and the audio tower of gemma4_audio/b (the released chunking constants 12 / 13 / 0
  and logit cap 50, which an mmproj does not store and llama.cpp hard-codes) in one file, checked
  against those towers' transformers goldens (tests/model/gguf_mmproj_golden_test.cc).
- mmproj-gemma4_vision_c-f32.gguf: gemma4_vision/c (2 query heads sharing 1 KV head, head_dim 64,
  a 64-entry position table), vision only.

Converter workarounds, both for the tiny checkpoints only: the text converter needs
text_config.global_head_dim (real Gemma 4 configs have it; transformers drops a per-layer override
equal to head_dim from these), so the converter runs with it set to head_dim; and the mmproj
converter reads image_mean/image_std from preprocessor_config.json, which the checkpoints do not
ship, so Gemma4ImageProcessor's own is written beside them.
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
from make_gguf_goldens import cut_tokenizer  # noqa: E402

AREA = "gguf_mmproj"
MEDIA_TOKENS = {4: "<|image|>", 5: "<|image>", 6: "<image|>", 7: "<|audio|>", 8: "<|audio>", 9: "<audio|>",
                10: "<|video|>"}

# Runs convert_hf_to_gguf.py with text_config.global_head_dim defaulted to head_dim (see above).
CONVERT_WRAPPER = r'''
import runpy, sys
from conversion.base import ModelBase
_load = ModelBase.load_hparams
def _patched(dir_model, is_mistral_format):
    c = _load(dir_model, is_mistral_format)
    t = c.get("text_config", c)
    if t.get("global_head_dim") is None and not t.get("per_layer_config"):
        t["global_head_dim"] = t["head_dim"]
    return c
ModelBase.load_hparams = staticmethod(_patched)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
'''


def write_preprocessor(work):
    from transformers.models.gemma4.image_processing_gemma4 import Gemma4ImageProcessor
    Gemma4ImageProcessor(patch_size=4, pooling_kernel_size=3, max_soft_tokens=70).save_pretrained(work)


def convert(llama_cpp, src, out_path, mmproj):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(llama_cpp, "gguf-py") + os.pathsep + llama_cpp
    cmd = [sys.executable, "-c", CONVERT_WRAPPER, os.path.join(llama_cpp, "convert_hf_to_gguf.py"), src,
           "--outtype", "f32", "--outfile", out_path, "--no-lazy"] + (["--mmproj"] if mmproj else [])
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stdout[-4000:])
        raise SystemExit(f"conversion of {src} failed")
    print(f"wrote {out_path} ({os.path.getsize(out_path)} bytes)")


def merged_towers(golden, vision, audio, work):
    """A checkpoint dir holding `vision`'s vision tower and `audio`'s audio tower (either may be
    None: that modality's config is dropped so the converter writes no encoder for it)."""
    from safetensors.torch import load_file, save_file
    os.makedirs(work)
    base = vision or audio
    with open(os.path.join(golden, base, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    tensors = {}
    if vision:
        tensors.update(load_file(os.path.join(golden, vision, "model.safetensors")))
    else:
        cfg.pop("vision_config", None)
    if audio:
        with open(os.path.join(golden, audio, "config.json"), encoding="utf-8") as f:
            cfg["audio_config"] = json.load(f)["audio_config"]
        tensors.update(load_file(os.path.join(golden, audio, "model.safetensors")))
    else:
        cfg["audio_config"] = None
    cfg["architectures"] = ["Gemma4ForConditionalGeneration"]
    cfg["text_config"]["dtype"] = cfg["dtype"] = "float32"  # bf16 -> f32 is exact
    with open(os.path.join(work, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
    save_file({k: v.float().contiguous() for k, v in tensors.items()}, os.path.join(work, "model.safetensors"))
    write_preprocessor(work)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llama-cpp", required=True, help="llama.cpp source dir (the sdist's vendor/llama.cpp)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))
    args = ap.parse_args()
    out_dir = os.path.join(args.out, AREA)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(args.out, "gemma4_mm", "causal")
        work = os.path.join(tmp, "gemma4_mm")
        os.makedirs(work)
        for fn in ("config.json", "generation_config.json", "model.safetensors"):
            shutil.copy(os.path.join(src, fn), work)
        with open(os.path.join(src, "config.json"), encoding="utf-8") as f:
            vocab_size = json.load(f)["text_config"]["vocab_size"]
        cut_tokenizer(os.path.join(args.shared, "data", "tokenizers", "gemma4"), vocab_size, work, MEDIA_TOKENS)
        write_preprocessor(work)
        convert(args.llama_cpp, work, os.path.join(out_dir, "gemma4_mm_f32.gguf"), mmproj=False)
        convert(args.llama_cpp, work, os.path.join(out_dir, "mmproj-gemma4_mm-f32.gguf"), mmproj=True)

        towers = os.path.join(tmp, "towers")
        merged_towers(args.out, "gemma4_vision/a", "gemma4_audio/b", towers)
        convert(args.llama_cpp, towers, os.path.join(out_dir, "mmproj-gemma4_towers-f32.gguf"), mmproj=True)
        vision_c = os.path.join(tmp, "vision_c")
        merged_towers(args.out, "gemma4_vision/c", None, vision_c)
        convert(args.llama_cpp, vision_c, os.path.join(out_dir, "mmproj-gemma4_vision_c-f32.gguf"), mmproj=True)

    converter = os.path.join(args.llama_cpp, "convert_hf_to_gguf.py")
    with open(converter, "rb") as f:
        converter_sha = hashlib.sha256(f.read()).hexdigest()
    import torch
    import transformers
    update_manifest(args.out, AREA, {
        "generator": "scripts/golden/make_gguf_mmproj_goldens.py",
        "converter": "llama.cpp convert_hf_to_gguf.py (--mmproj) from the llama-cpp-python 0.3.36 sdist "
                     "(vendor/llama.cpp)",
        "converter_sha256": converter_sha,
        "checkpoints": {"gemma4_mm": "gemma4_mm/causal", "gemma4_towers": ["gemma4_vision/a", "gemma4_audio/b"],
                        "gemma4_vision_c": "gemma4_vision/c"},
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "transformers": transformers.__version__},
    })


if __name__ == "__main__":
    main()
