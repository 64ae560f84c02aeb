"""Shared by the tower golden generators (make_gemma4_vision_goldens.py, make_gemma4_audio_goldens.py):
the throw-away text model a tower is built with, the one-thread deterministic setup of a fresh
golden area, saving only a tower's tensors, and the versions recorded in MANIFEST.json."""
import argparse
import os
import platform
import shutil

import numpy
import safetensors
import safetensors.torch
import torch
import transformers
from transformers import Gemma4TextConfig

from make_gemma4_goldens import check_pins


def text_config(hidden):
    """A 1-layer text model of width `hidden` (the projector's output width); never run."""
    return Gemma4TextConfig(vocab_size=512, hidden_size=hidden, intermediate_size=64, num_hidden_layers=1,
                            num_attention_heads=2, num_key_value_heads=1, head_dim=32, global_head_dim=32,
                            layer_types=["full_attention"], sliding_window=8, hidden_size_per_layer_input=0,
                            vocab_size_per_layer_input=0)


def fresh_area(description, area_name):
    """Parses --out, checks the pinned versions, sets one deterministic thread and recreates
    <out>/<area_name>; returns (root, area)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    args = ap.parse_args()
    check_pins()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    root = os.path.abspath(args.out)
    area = os.path.join(root, area_name)
    if os.path.isdir(area):
        shutil.rmtree(area)
    os.makedirs(area)
    return root, area


def fill_plain(name, t, g, dtype):
    """multimodal.md §8.5 for a tensor no tower-specific rule covers: norm weights 1 + N(0, 0.1²), the
    rest N(0, 0.2²); then rounded to bf16 when the checkpoint is saved in bf16 (so the file is exact)."""
    if "norm" in name:
        t.copy_(1.0 + torch.randn(t.shape, generator=g) * 0.1)
    else:
        t.copy_(torch.randn(t.shape, generator=g) * 0.2)
    round_to(t, dtype)


def round_to(t, dtype):
    if dtype == "bf16":
        t.copy_(t.to(torch.bfloat16).float())


def tower_state(model, prefixes, dtype):
    """The tensors under `prefixes` in bf16 or f32; infinite scalar clip bounds are left out (absent = no
    clipping)."""
    out = {}
    for name, t in model.state_dict().items():
        if not name.startswith(prefixes):
            continue
        if t.dim() == 0 and torch.isinf(t):
            continue
        out[name] = t.detach().to(torch.bfloat16 if dtype == "bf16" else torch.float32).contiguous()
    return out


def save_tower(model, prefixes, dtype, directory):
    """config.json as transformers writes it and model.safetensors with only the tower's tensors."""
    if os.path.isdir(directory):
        shutil.rmtree(directory)
    os.makedirs(directory)
    model.config.save_pretrained(directory)
    safetensors.torch.save_file(tower_state(model, prefixes, dtype), os.path.join(directory, "model.safetensors"),
                                metadata={"format": "pt"})


def versions():
    return {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
            "safetensors": safetensors.__version__, "numpy": numpy.__version__}
