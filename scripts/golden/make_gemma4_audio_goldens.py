#!/usr/bin/env python3
"""Builds tiny Gemma 4 audio towers and their goldens with Hugging Face transformers.

Run with the dev environment (scripts/requirements-dev.txt; never in CI):
    /work/venv-dev/bin/python scripts/golden/make_gemma4_audio_goldens.py [--out tests/golden]

What it does (multimodal.md §8.3, §8.5, §8.6): two tiny Gemma4ForConditionalGeneration models (a
throw-away 1-layer text model, audio towers below) in float32 with eager attention (the audio
tower's only backend), their audio tower and projector randomised per §8.5 (linear and conv
weights N(0, 0.2²), norm weights 1 + N(0, 0.1²), per_dim_scale N(0, 0.5²), clip bounds
input/output ±U(0.5, 1.5) with q/k/v sharing theirs, as checkpoints do):

  a  §8.3's tiny tower: hidden 32, 4 heads of 8, 2 layers, SSCP channels [16, 8] (16 mels), chunk 4,
     context left 5 / right 0, logit cap 5, output_proj_dims 24, every linear clipped; weights
     rounded to bf16 and saved as a bf16 checkpoint (the loader's widening path)
  b  the same widths with the released chunking constants (chunk 12, left 13, right 0, cap 50);
     clip bounds only on q/k/v (the others stay ±inf and are left out of the saved file: absent
     bounds mean no clipping); saved in f32

Each model directory holds config.json (as transformers writes it) and model.safetensors with
only the model.audio_tower.* and model.embed_audio.* tensors. The inputs are the outputs of
Gemma4AudioFeatureExtractor(feature_size=16) for deterministic 16 kHz waveforms (sums of sines
plus noise): 0.37 s, 1.0 s, 161 samples (one frame) and 5.0 s, written once to inputs.{json,bin}
as their valid frames only ([F_valid, 16]). Per model and clip (model a: the first three clips,
model b: the 1.0 s and 5.0 s clips), golden.{json,bin} holds the valid rows (ceil(F_valid / 4)) of
the SSCP output [T, 32], every conformer block's output [T, 32], output_proj's output [T, 24] and
embed_audio's output [T, Dt] (forward hooks), each clip run alone. The 0.37 s and 1.0 s clips are
also run as one padded batch (model a), and the script checks its valid rows against the single
runs (the tower's valid rows do not depend on batch padding). The script also reloads each saved
directory with from_pretrained and checks it reproduces the outputs. Writes
tests/golden/gemma4_audio/** and its MANIFEST.json area. Deterministic (fixed seeds, one thread):
running it twice gives identical files.
"""
import math
import os
import sys

import torch
from transformers import (Gemma4AudioConfig, Gemma4AudioFeatureExtractor, Gemma4Config,
                          Gemma4ForConditionalGeneration)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_io import GoldenWriter, update_manifest  # noqa: E402
from tower_goldens import fill_plain, fresh_area, round_to, save_tower, text_config, versions  # noqa: E402

SEED = 20261204
AREA = "gemma4_audio"
TEXT_HIDDEN = 64
NUM_MELS = 16
CLIPS = [("0.37s", 5920), ("1.0s", 16000), ("161", 161), ("5.0s", 80000)]
BATCH = (0, 1)  # clips run together as one padded batch (model a)

BASE = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, hidden_act="silu",
            subsampling_conv_channels=[NUM_MELS, 8], conv_kernel_size=5, residual_weight=0.5,
            attention_chunk_size=4, attention_context_left=5, attention_context_right=0, attention_logit_cap=5.0,
            attention_invalid_logits_value=-1e9, use_clipped_linears=True, rms_norm_eps=1e-6,
            gradient_clipping=1e10, output_proj_dims=24)
ALL_CLIPPED = ("ffw_layer_1", "ffw_layer_2", "q_proj", "k_proj", "v_proj", "post", "linear_start", "linear_end")
MODELS = {
    "a": dict(audio=BASE, dtype="bf16", clip=ALL_CLIPPED, clips=(0, 1, 2)),
    "b": dict(audio=dict(BASE, attention_chunk_size=12, attention_context_left=13, attention_logit_cap=50.0),
              dtype="f32", clip=("q_proj", "k_proj", "v_proj"), clips=(1, 3)),
}
# Single-clip runs must equal the padded batch run of the same clips to this (max abs).
BATCH_TOLERANCE = 1e-5


def make_wave(index, samples):
    """A deterministic 16 kHz float32 waveform: three sines with a glide, plus noise."""
    g = torch.Generator().manual_seed(SEED + index)
    t = torch.arange(samples, dtype=torch.float64) / 16000.0
    wave = (0.4 * torch.sin(2 * math.pi * (220.0 + 40.0 * index) * t + 0.3 * index)
            + 0.25 * torch.sin(2 * math.pi * 1370.0 * t * (1.0 + 0.2 * t))
            + 0.15 * torch.sin(2 * math.pi * 3100.0 * t + 1.0))
    wave += 0.05 * torch.randn(samples, generator=g, dtype=torch.float64)
    return wave.float().numpy()


def extract(waves):
    fe = Gemma4AudioFeatureExtractor(feature_size=NUM_MELS)
    return fe(list(waves), return_tensors="pt")  # a LIST of 1-D arrays (§8.1)


def build(name, index):
    spec = MODELS[name]
    text = text_config(TEXT_HIDDEN)
    config = Gemma4Config(text_config=text, vision_config=None, audio_config=Gemma4AudioConfig(**spec["audio"]))
    torch.manual_seed(SEED + index)
    model = Gemma4ForConditionalGeneration(config).eval()
    model.set_attn_implementation("eager")
    randomize(model, spec, SEED + 100 + index)
    return model


def randomize(model, spec, seed):
    g = torch.Generator().manual_seed(seed)
    bounds = {}  # shared clip bounds: q/k/v
    with torch.no_grad():
        for name, t in sorted(model.state_dict().items()):
            if not name.startswith(("model.audio_tower.", "model.embed_audio.")):
                continue
            if name.endswith(("input_min", "input_max", "output_min", "output_max")):
                linear = name.rsplit(".", 2)[-2]  # q_proj, ..., linear_end
                if linear not in spec["clip"]:
                    continue  # stays ±inf (and is left out of the saved file)
                key = name.replace("k_proj.", "q_proj.").replace("v_proj.", "q_proj.")
                if key not in bounds:
                    value = float(torch.rand((), generator=g)) + 0.5
                    bounds[key] = -value if name.endswith("_min") else value
                t.fill_(bounds[key])
            elif name.endswith("per_dim_scale"):
                t.copy_(torch.randn(t.shape, generator=g) * 0.5)
            else:
                fill_plain(name, t, g, spec["dtype"])
                continue
            round_to(t, spec["dtype"])  # bf16-exact values: the saved bf16 file is exact


class Recorder:
    """Forward hooks on the audio tower's blocks and the projector."""

    def __init__(self, model):
        tower = model.model.audio_tower
        self.out = {}
        self.handles = [tower.subsample_conv_projection.register_forward_hook(self.hook("sscp"))]
        for i, layer in enumerate(tower.layers):
            self.handles.append(layer.register_forward_hook(self.hook(f"layer{i}")))
        self.handles.append(tower.output_proj.register_forward_hook(self.hook("output_proj")))
        self.handles.append(model.model.embed_audio.register_forward_hook(self.hook("embed")))

    def hook(self, key):
        def fn(module, args, output):
            if key == "sscp":
                output = output[0]
            self.out[key] = output.detach().clone()
        return fn

    def close(self):
        for h in self.handles:
            h.remove()


@torch.no_grad()
def run(model, feats):
    """Every recorded tensor of each clip's valid rows, and the output mask."""
    rec = Recorder(model)
    out = model.model.get_audio_features(feats["input_features"], feats["input_features_mask"], return_dict=True)
    rec.close()
    mask = out.attention_mask
    assert torch.equal(rec.out["embed"], out.pooler_output)
    clips = []
    for b in range(mask.shape[0]):
        clips.append({k: v[b][mask[b]] for k, v in rec.out.items()})
    return clips


def main():
    root, area = fresh_area(__doc__.splitlines()[0], AREA)
    waves = [make_wave(i, n) for i, (_, n) in enumerate(CLIPS)]
    singles = [extract([w]) for w in waves]
    batched = extract([waves[i] for i in BATCH])

    inputs = GoldenWriter()
    records = []
    for i, ((label, n), f) in enumerate(zip(CLIPS, singles)):
        valid = int(f["input_features_mask"][0].sum())
        assert valid == ((n - 161) // 160 + 1 if n >= 161 else 0), (label, valid)
        assert bool(f["input_features_mask"][0, :valid].all())
        inputs.add(f"clip{i}.features", f["input_features"][0, :valid].float())
        records.append({"name": f"clip{i}", "label": label, "num_samples": n, "num_frames": valid,
                        "num_soft_tokens": (valid + 3) // 4})
    inputs.write(area, "inputs", {"feature_extractor": {"feature_size": NUM_MELS}, "clips": records,
                                  "batch": list(BATCH), "feature_layout": "[F_valid, num_mels] log-mel, valid frames"})

    for index, name in enumerate(MODELS):
        spec = MODELS[name]
        model = build(name, index)
        directory = os.path.join(area, name)
        save_tower(model, ("model.audio_tower.", "model.embed_audio."), spec["dtype"], directory)
        reloaded = Gemma4ForConditionalGeneration.from_pretrained(directory, dtype=torch.float32, use_kernels=False,
                                                                  attn_implementation="eager").eval()
        writer = GoldenWriter()
        for i in spec["clips"]:
            out = run(model, singles[i])[0]
            again = run(reloaded, singles[i])[0]
            assert torch.equal(out["embed"], again["embed"]), f"{name}: the saved checkpoint does not reproduce clip{i}"
            assert out["embed"].shape[0] == records[i]["num_soft_tokens"]
            for key in ["sscp"] + [f"layer{l}" for l in range(spec["audio"]["num_hidden_layers"])] + ["output_proj",
                                                                                                     "embed"]:
                writer.add(f"clip{i}.{key}", out[key].float())
        diff = None
        if name == "a":
            batch = run(model, batched)
            diff = max(float((batch[j]["embed"] - run(model, singles[i])[0]["embed"]).abs().max())
                       for j, i in enumerate(BATCH))
            assert diff <= BATCH_TOLERANCE, f"{name}: batch vs single clips differ by {diff}"
        spread = float(out["embed"].std())
        writer.write(directory, "golden", {"model": name, "checkpoint_dtype": spec["dtype"], "text_hidden": TEXT_HIDDEN,
                                           "audio_config": spec["audio"], "clip_bounds_on": list(spec["clip"]),
                                           "clips": list(spec["clips"]), "batch_vs_single_max_abs": diff,
                                           "embed_std": spread, "attn_implementation": "eager"})
        print(f"{name}: batch vs single {diff}, embed std {spread:.3f}", flush=True)
    update_manifest(root, AREA, {"generator": "scripts/golden/make_gemma4_audio_goldens.py", "seed": SEED,
                                 "versions": versions(), "torch_threads": 1, "deterministic_algorithms": True})


if __name__ == "__main__":
    main()
