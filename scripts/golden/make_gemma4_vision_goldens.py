#!/usr/bin/env python3
"""Builds tiny Gemma 4 vision towers and their goldens with Hugging Face transformers.

Run with the dev environment (scripts/requirements-dev.txt; never in CI):
    /work/venv-dev/bin/python scripts/golden/make_gemma4_vision_goldens.py [--out tests/golden]

What it does (multimodal.md §8.2, §8.5, §8.6): three tiny Gemma4ForConditionalGeneration models
(a throw-away 1-layer text model, vision towers below) in float32 with eager attention, their vision
tower and projector randomised per §8.5 (linear weights N(0, 0.2²), norm weights 1 + N(0, 0.1²),
position table N(0, 0.5²), std_bias N(0, 0.1²), std_scale U(0.5, 1.5), clip bounds
input/output ±U(0.5, 1.5) with k/v and gate/up sharing theirs, as checkpoints do):

  a  hidden 48, 3 heads of 16, 2 layers, use_clipped_linears + standardize; weights rounded to
     bf16 and saved as a bf16 checkpoint (the loader's widening path)
  b  the same shape, neither clipping nor standardize; bf16 (no per-layer outputs recorded: the
     golden size budget)
  c  head_dim 64 (the on-device tower's 16 RoPE frequencies), 2 query heads on 1 KV head (GQA),
     q/k/v·head_dim != hidden, 1 layer; clipping with bounds only on q/k/v: the o/gate/up/down
     bounds stay ±inf and are left out of the saved file (absent bounds mean no clipping); saved
     in f32

Each model directory holds config.json (as transformers writes it) and model.safetensors with
only the model.vision_tower.* and model.embed_vision.* tensors. The inputs are the outputs of
Gemma4ImageProcessor(patch_size=4, pooling_kernel_size=3, max_soft_tokens=70) for three
deterministic RGB images, 40x56 (21x27 patches), 5x7 (upscaled to the same grid) and 30x200 (9x63
patches), written once to inputs.{json,bin} (real patch rows only: pixel_values [P, 48] and
position_ids [P, 2]). Per model, golden.{json,bin} holds for every image alone: the embed_vision
output [N, Dt], the pooled x sqrt(Dv) features [N, Dv] and the post-standardize features; for
image 0 (models a and c) also the patch embeddings and every encoder layer's output [P, Dv]
(forward hooks); and
the embed_vision output of images 0 and 2 run as one padded batch (per-image pooling), which the
script checks against the single runs. The script also reloads each saved directory with
from_pretrained and checks it reproduces the outputs (no vision tensor missing from the file).
Writes tests/golden/gemma4_vision/** and its MANIFEST.json area. Deterministic (fixed seeds,
one thread): running it twice gives identical files.
"""
import json
import os
import sys

import numpy
import torch
from transformers import (Gemma4Config, Gemma4ForConditionalGeneration, Gemma4ImageProcessor,
                          Gemma4VisionConfig)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_io import GoldenWriter, update_manifest  # noqa: E402
from tower_goldens import fill_plain, fresh_area, round_to, save_tower, text_config, versions  # noqa: E402

SEED = 20260701
AREA = "gemma4_vision"
TEXT_HIDDEN = 64
PROCESSOR = {"patch_size": 4, "pooling_kernel_size": 3, "max_soft_tokens": 70}
IMAGES = [("40x56", 40, 56), ("5x7", 5, 7), ("30x200", 30, 200)]
BATCH = (0, 2)  # images run together as one padded batch
TRACED_IMAGE = 0  # the image whose patch embeddings and layer outputs are recorded

BASE = dict(hidden_size=48, intermediate_size=96, num_hidden_layers=2, num_attention_heads=3, num_key_value_heads=3,
            head_dim=16, hidden_activation="gelu_pytorch_tanh", rms_norm_eps=1e-6, patch_size=4,
            pooling_kernel_size=3, position_embedding_size=256,
            rope_parameters={"rope_type": "default", "rope_theta": 100.0})
MODELS = {
    "a": dict(vision=dict(BASE, use_clipped_linears=True, standardize=True), dtype="bf16",
              clip=("q", "k", "v", "o", "gate", "up", "down"), traced=True),
    "b": dict(vision=dict(BASE, use_clipped_linears=False, standardize=False), dtype="bf16", clip=(), traced=False),
    "c": dict(vision=dict(BASE, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                          num_key_value_heads=1, head_dim=64, position_embedding_size=64,
                          use_clipped_linears=True, standardize=False), dtype="f32", clip=("q", "k", "v"),
              traced=True),
}
# Single-image runs must equal the padded batch run of the same images to this (max abs).
BATCH_TOLERANCE = 1e-4


def make_image(index, height, width):
    """A deterministic uint8 RGB image [H, W, 3]: smooth gradients plus noise (PIL-free)."""
    g = torch.Generator().manual_seed(SEED + index)
    y = torch.linspace(0, 1, height).view(height, 1, 1)
    x = torch.linspace(0, 1, width).view(1, width, 1)
    phase = torch.tensor([0.0, 2.1, 4.2]).view(1, 1, 3)
    base = 0.5 + 0.35 * torch.sin(6.0 * x + 4.0 * y + phase)
    noise = 0.15 * torch.rand((height, width, 3), generator=g)
    return (255 * (base + noise).clamp(0, 1)).round().to(torch.uint8).numpy()


def preprocess(images):
    proc = Gemma4ImageProcessor(**PROCESSOR)
    return proc(images=[numpy.ascontiguousarray(im) for im in images], return_tensors="pt")


def build(name, index):
    spec = MODELS[name]
    text = text_config(TEXT_HIDDEN)
    config = Gemma4Config(text_config=text, vision_config=Gemma4VisionConfig(**spec["vision"]), audio_config=None)
    torch.manual_seed(SEED + index)
    model = Gemma4ForConditionalGeneration(config).eval()
    model.set_attn_implementation("eager")
    randomize(model, spec, SEED + 100 + index)
    return model


def randomize(model, spec, seed):
    g = torch.Generator().manual_seed(seed)
    bounds = {}  # shared clip bounds: k/v and gate/up
    with torch.no_grad():
        for name, t in sorted(model.state_dict().items()):
            if not name.startswith(("model.vision_tower.", "model.embed_vision.")):
                continue
            if name.endswith(("input_min", "input_max", "output_min", "output_max")):
                proj = name.rsplit(".", 2)[-2]  # q_proj, ..., down_proj
                if proj.split("_")[0] not in spec["clip"]:
                    continue  # stays ±inf (and is left out of the saved file)
                key = name.replace("v_proj.", "k_proj.").replace("up_proj.", "gate_proj.")
                if key not in bounds:
                    value = float(torch.rand((), generator=g)) + 0.5
                    bounds[key] = -value if name.endswith("_min") else value
                t.fill_(bounds[key])
            elif name.endswith("position_embedding_table"):
                t.copy_(torch.randn(t.shape, generator=g) * 0.5)
            elif name.endswith("std_bias"):
                t.copy_(torch.randn(t.shape, generator=g) * 0.1)
            elif name.endswith("std_scale"):
                t.copy_(torch.rand(t.shape, generator=g) + 0.5)
            else:
                fill_plain(name, t, g, spec["dtype"])
                continue
            round_to(t, spec["dtype"])  # bf16-exact values: the saved bf16 file is exact


class Recorder:
    """Forward hooks on the vision tower's blocks and the projector."""

    def __init__(self, model):
        tower = model.model.vision_tower
        self.out = {}
        self.handles = [tower.patch_embedder.register_forward_hook(self.hook("patch_embeddings"))]
        for i, layer in enumerate(tower.encoder.layers):
            self.handles.append(layer.register_forward_hook(self.hook(f"layer{i}")))
        self.handles.append(tower.pooler.register_forward_hook(self.hook("pooled")))
        self.handles.append(tower.register_forward_hook(self.hook("standardized")))
        self.handles.append(model.model.embed_vision.register_forward_hook(self.hook("embed")))

    def hook(self, key):
        def fn(module, args, output):
            if key == "standardized":
                output = output.last_hidden_state
            elif key == "pooled":
                output = output[0][output[1]]  # valid slots only
            self.out[key] = output.detach().clone()
        return fn

    def close(self):
        for h in self.handles:
            h.remove()


@torch.no_grad()
def run(model, batch):
    rec = Recorder(model)
    feats = model.model.get_image_features(batch["pixel_values"], batch["image_position_ids"], return_dict=True)
    rec.close()
    return rec.out, torch.cat(feats.pooler_output, dim=0)


def real_patches(batch, i):
    pos = batch["image_position_ids"][i]
    return int((pos != -1).all(dim=-1).sum())


def main():
    root, area = fresh_area(__doc__.splitlines()[0], AREA)
    images = [make_image(i, h, w) for i, (_, h, w) in enumerate(IMAGES)]
    singles = [preprocess([im]) for im in images]
    batched = preprocess([images[i] for i in BATCH])

    inputs = GoldenWriter()
    records = []
    for i, ((label, h, w), b) in enumerate(zip(IMAGES, singles)):
        p = real_patches(b, 0)
        pos = b["image_position_ids"][0, :p]
        assert torch.equal(b["image_position_ids"][0, p:], torch.full_like(b["image_position_ids"][0, p:], -1))
        inputs.add(f"img{i}.pixel_values", b["pixel_values"][0, :p].float())
        inputs.add(f"img{i}.position_ids", pos.long())
        records.append({"name": f"img{i}", "source_size": [h, w], "label": label, "num_patches": p,
                        "grid_h": int(pos[:, 1].max()) + 1, "grid_w": int(pos[:, 0].max()) + 1,
                        "num_soft_tokens": int(b["num_soft_tokens_per_image"][0])})
    inputs.write(area, "inputs", {"processor": PROCESSOR, "images": records, "batch": list(BATCH),
                                  "pixel_layout": "[P, 3 p^2], (row, col, channel), channel fastest, in [0, 1]",
                                  "position_layout": "[P, 2] (x, y) = (column, row); real patches only"})

    for index, name in enumerate(MODELS):
        spec = MODELS[name]
        model = build(name, index)
        directory = os.path.join(area, name)
        save_tower(model, ("model.vision_tower.", "model.embed_vision."), spec["dtype"], directory)
        reloaded = Gemma4ForConditionalGeneration.from_pretrained(directory, dtype=torch.float32, use_kernels=False,
                                                                  attn_implementation="eager").eval()
        writer = GoldenWriter()
        for i, b in enumerate(singles):
            out, embed = run(model, b)
            _, again = run(reloaded, b)
            assert torch.equal(embed, again), f"{name}: the saved checkpoint does not reproduce img{i}"
            assert torch.equal(embed, out["embed"])
            writer.add(f"img{i}.embed", embed)
            writer.add(f"img{i}.pooled", out["pooled"])
            writer.add(f"img{i}.standardized", out["standardized"])
            if i == TRACED_IMAGE and spec["traced"]:
                p = records[i]["num_patches"]
                writer.add(f"img{i}.patch_embeddings", out["patch_embeddings"][0, :p])
                for layer in range(model.config.vision_config.num_hidden_layers):
                    writer.add(f"img{i}.layer{layer}", out[f"layer{layer}"][0, :p])
        _, batch_embed = run(model, batched)
        single = torch.cat([run(model, singles[i])[1] for i in BATCH], dim=0)
        diff = float((batch_embed - single).abs().max())
        assert diff <= BATCH_TOLERANCE, f"{name}: batch vs single images differ by {diff}"
        writer.add("batch.embed", batch_embed)
        spread = float(single.std())
        vc = model.config.vision_config
        writer.write(directory, "golden", {"model": name, "checkpoint_dtype": spec["dtype"], "text_hidden": TEXT_HIDDEN,
                                           "vision_config": {k: getattr(vc, k) for k in sorted(spec["vision"])},
                                           "clip_bounds_on": list(spec["clip"]),
                                           "traced_image": TRACED_IMAGE if spec["traced"] else None,
                                           "batch": list(BATCH), "batch_vs_single_max_abs": diff,
                                           "embed_std": spread, "attn_implementation": "eager"})
        print(f"{name}: batch vs single {diff:.3g}, embed std {spread:.3f}", flush=True)
    update_manifest(root, AREA, {"generator": "scripts/golden/make_gemma4_vision_goldens.py", "seed": SEED,
                                 "versions": versions(), "torch_threads": 1, "deterministic_algorithms": True})


if __name__ == "__main__":
    main()
