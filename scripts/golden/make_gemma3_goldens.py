#!/usr/bin/env python3
"""Builds the tiny Gemma 3 reference checkpoint G1 and its goldens with Hugging Face transformers.

Run with the dev environment (scripts/requirements-dev.txt; never in CI):
    /work/venv-dev/bin/python scripts/golden/make_gemma3_goldens.py [--out tests/golden]

G1 is a Gemma3ForCausalLM (model_type gemma3_text) small enough to commit, chosen to exercise what
Gemma 3 does differently from Gemma 4: 7 layers with sliding_window_pattern 3 (full layers 2 and 5,
the last layer sliding), 2 query heads over 1 KV head of dim 32, query_pre_attn_scalar 24 (so the
attention scale 24^-0.5 differs from head_dim^-0.5 and from Gemma 4's 1.0), a sliding window of 8
(both prompts exceed it), "linear" RoPE scaling (factor 8) on the full layers, and norm weights
meaning x * (1 + w). It is built in float32 with eager attention and randomised like the Gemma 4
goldens (make_gemma4_goldens.py): norm multipliers 1 + w ~ U(0.5, 1.5), the final norm's times a
gain that gives logits a standard deviation of about LOGIT_STD, token embeddings ~ N(0, EMBED_STD^2),
other matrices ~ N(0, 0.1). The goldens are written by make_gemma4_goldens.dump_goldens (same
format, same prompts, same checks: cache vs no-cache, decode vs prefill, greedy vs generate(), and
non-degenerate greedy runs with fp32 top-1/top-2 margins), in fp32 and in bf16 (the bf16 checkpoint
is committed under g1/bf16). g1/released_config.json is the same model described with the older
top-level fields the released Gemma 3 checkpoints use (rope_theta, rope_local_base_freq,
rope_scaling, sliding_window_pattern; no layer_types or rope_parameters); the script checks that
transformers loads it to bit-identical logits. Writes tests/golden/gemma3/** and its MANIFEST.json
entry; running it twice produces bit-identical files.
"""
import argparse
import json
import os
import platform
import shutil
import sys
import tempfile

import numpy
import safetensors
import torch
import transformers
from transformers import Gemma3ForCausalLM, Gemma3TextConfig

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_gemma4_goldens as g4  # noqa: E402
from golden_io import safetensors_header, sha256_file, update_manifest, write_json  # noqa: E402

SEED = 20261204
EMBED_STD = 0.03
LOGIT_STD = 6.0
# The committed model (Gemma3TextConfig arguments).
G1 = dict(
    vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=7, num_attention_heads=2,
    num_key_value_heads=1, head_dim=32, query_pre_attn_scalar=24, sliding_window=8, sliding_window_pattern=3,
    max_position_embeddings=4096, rms_norm_eps=1e-6, final_logit_softcapping=None, attn_logit_softcapping=None,
    hidden_activation="gelu_pytorch_tanh", tie_word_embeddings=True, pad_token_id=0, bos_token_id=2, eos_token_id=1,
    rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                     "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0}},
)
# The same model in the released checkpoints' older field layout.
RELEASED = {k: v for k, v in G1.items() if k != "rope_parameters"}
RELEASED.update(rope_theta=1000000.0, rope_local_base_freq=10000.0, rope_scaling={"factor": 8.0, "rope_type": "linear"},
                architectures=["Gemma3ForCausalLM"], model_type="gemma3_text")


def randomize(model, seed):
    g = torch.Generator().manual_seed(seed)
    cfg = model.config
    gain = LOGIT_STD / (cfg.hidden_size ** 0.5 * EMBED_STD)
    with torch.no_grad():
        for name, t in sorted(model.state_dict().items()):
            if "norm" in name and name.endswith(".weight"):  # the multiplier is 1 + w
                mult = torch.rand(t.shape, generator=g) + 0.5
                if name == "model.norm.weight":
                    mult.mul_(gain)
                t.copy_(mult - 1.0)
            elif name.endswith("embed_tokens.weight"):  # tied with lm_head.weight (sorted before it)
                t.copy_(torch.randn(t.shape, generator=g) * EMBED_STD)
            else:
                t.copy_(torch.randn(t.shape, generator=g) * 0.1)
    assert torch.equal(model.lm_head.weight, model.model.embed_tokens.weight), "embeddings must stay tied"


def load(directory, dtype):
    return Gemma3ForCausalLM.from_pretrained(directory, dtype=dtype, use_kernels=False,
                                             attn_implementation="eager").eval()


def check_config(model):
    cfg = model.config
    want = ["sliding_attention", "sliding_attention", "full_attention"] * 2 + ["sliding_attention"]
    assert cfg.layer_types == want, cfg.layer_types
    assert cfg.rope_parameters["full_attention"]["rope_type"] == "linear", cfg.rope_parameters
    rotary = model.model.rotary_emb
    default = 1.0 / (1e6 ** (torch.arange(0, 32, 2, dtype=torch.float) / 32))
    assert torch.allclose(rotary.full_attention_inv_freq, default / 8.0), "linear RoPE scaling not applied"


@torch.no_grad()
def check_released_config(model_dir, model, prompt_ids):
    """The older field layout loads to the same model: bit-identical logits."""
    tmp = tempfile.mkdtemp()
    try:
        shutil.copy(os.path.join(model_dir, "model.safetensors"), tmp)
        with open(os.path.join(model_dir, "released_config.json"), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(tmp, "config.json"), "w", encoding="utf-8") as f:
            f.write(text)
        other = load(tmp, torch.float32)
        assert other.config.layer_types == model.config.layer_types
        for ids in prompt_ids.values():
            x = torch.tensor([ids])
            assert torch.equal(other(x).logits, model(x).logits), "released_config.json loads to another model"
    finally:
        shutil.rmtree(tmp)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    args = ap.parse_args()
    g4.check_pins()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    area = os.path.join(os.path.abspath(args.out), "gemma3")
    model_dir = os.path.join(area, "g1")
    prompt_ids = g4.prompts()
    torch.manual_seed(SEED)
    built = Gemma3ForCausalLM(Gemma3TextConfig(**G1)).eval()
    built.set_attn_implementation("eager")
    randomize(built, SEED + 1)
    g4.save(built, model_dir)
    model = load(model_dir, torch.float32)
    check_config(model)
    write_json(os.path.join(model_dir, "released_config.json"), RELEASED)
    check_released_config(model_dir, model, prompt_ids)
    no_experts = {"experts_implementation": None}  # dump_goldens' index names it; Gemma 3 has no experts
    f32 = g4.dump_goldens(model, model_dir, "golden_f32", prompt_ids, tolerance=g4.F32_TOLERANCE, extra=no_experts)
    bf16_dir = os.path.join(model_dir, "bf16")
    g4.save(built.to(torch.bfloat16), bf16_dir)
    bf16 = load(bf16_dir, torch.bfloat16)
    hashes = {f: sha256_file(os.path.join(bf16_dir, f)) for f in ("config.json", "generation_config.json",
                                                                   "model.safetensors")}
    g4.dump_goldens(bf16, model_dir, "golden_bf16", prompt_ids, tolerance=None,
                    extra={"hf_bf16_checkpoint_sha256": hashes, "bf16_checkpoint_committed": True, **no_experts},
                    reference=f32)
    headers = {"g1/f32": safetensors_header(os.path.join(model_dir, "model.safetensors"))[0],
               "g1/bf16": safetensors_header(os.path.join(bf16_dir, "model.safetensors"))[0]}
    write_json(os.path.join(area, "transformers_headers.json"), headers)
    versions = {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
                "safetensors": safetensors.__version__, "numpy": numpy.__version__}
    update_manifest(os.path.abspath(args.out), "gemma3",
                    {"generator": "scripts/golden/make_gemma3_goldens.py", "seed": SEED, "versions": versions,
                     "torch_threads": 1, "deterministic_algorithms": True, "embed_std": EMBED_STD,
                     "logit_std": LOGIT_STD})


if __name__ == "__main__":
    main()
