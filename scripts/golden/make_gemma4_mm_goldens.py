#!/usr/bin/env python3
"""Builds the tiny end-to-end Gemma 4 multimodal model of multimodal.md §8.4 and its decoder goldens.

Run with the dev environment (scripts/requirements-dev.txt; never in CI):
    /work/venv-dev/bin/python scripts/golden/make_gemma4_mm_goldens.py [--out tests/golden]

What it does: one Gemma4ForConditionalGeneration (fp32, eager attention) with the §8.4 text config
(4 layers S,F,S,F, sliding_window 8, per-layer embeddings), the §8.2 vision tower (clipping and
standardize on) and the §8.3 audio tower, randomised as §8.5 asks for the towers and as
make_gemma4_goldens.py does for the text model. Two variants with the same weights differ only in
text_config.use_bidirectional_attention: "causal" (null, as E2B/E4B) and "vision" (as 26B/31B).
The prompt is §8.4's layout with two images (real Gemma4ImageProcessor(patch_size=4,
pooling_kernel_size=3, max_soft_tokens=70) outputs: 63 and 64 soft tokens, blocks longer than the
window) and one audio clip (Gemma4AudioFeatureExtractor(feature_size=16), 0.37 s):
    [2, 11, 5, 4 x N1, 6, 5, 4 x N2, 6, 12, 8, 7 x M, 9, 13, 14]
For each variant it records (<variant>/golden.{json,bin}, gemmad-golden-v1): input_ids,
mm_token_type_ids, the merged inputs_embeds rows at the image and audio placeholders (what a
server's encoders hand the decoder as embedding overrides), per_layer_inputs (the combined PLE input
[T, L, P]), hidden_states (entry 0 = merged embeddings, k = output of layer k-1, L = final-normed),
the logits of every prompt position, and an 8-token greedy continuation (decode steps with a cache,
no block overlay) with the logits before each greedy token. The checkpoint is saved once
(causal/: config.json, generation_config.json, model.safetensors); vision/ holds only its
config.json (the script checks that the variant's saved weights are byte-identical).

Audio cases (audio/golden.{json,bin}, the causal checkpoint): a 1.0 s clip (99 valid feature
frames, 25 soft tokens) in two prompts, "audio_only" [2, 11, 8, 7 x 25, 9, 13, 14] and
"audio_image" [2, 11, 5, 4 x N1, 6, 12, 8, 7 x 25, 9, 13, 14] with the first image above. Per case:
input_ids, the clip's valid feature frames ([F, 16], what a server's audio encoder reads), the
audio rows the model inserted (embed_audio's output), the image's decoded pixels (audio_image), the
logits of every prompt position and an 8-token greedy continuation with its logits, as above.

Checks (the run fails otherwise): the image rows equal get_image_features(); the pinned sliding-layer
mask equals AND(q - k < W, OR(k <= q, same vision block)) and the full-layer mask is causal (the
masks are rebuilt by hand and fed back as the attention_mask dict: same logits, bit for bit); the
golden tells apart the semantics other transformers versions had (block overlay also on full
layers; block overlay not bounded by the window) and the causal variant, by at least
MIN_SEMANTICS_GAP on the logits; the rows before the first image agree between the variants;
greedy continuations are not degenerate (distinct tokens, margins). Deterministic: fixed seeds, one
thread, deterministic algorithms.
"""
import argparse
import filecmp
import json
import os
import platform
import shutil
import sys
import tempfile

import numpy
import PIL
import safetensors
import torch
import transformers
from PIL import Image
from transformers import (DynamicCache, Gemma4AudioConfig, Gemma4AudioFeatureExtractor, Gemma4Config,
                          Gemma4ForConditionalGeneration, Gemma4ImageProcessor, Gemma4TextConfig, Gemma4VisionConfig)
from transformers.models.gemma4.modeling_gemma4 import create_masks_for_vision_model, get_block_sequence_ids_for_mask

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_io import GoldenWriter, update_manifest  # noqa: E402
from make_gemma4_goldens import EMBED_STD, MIN_MARGIN, check_pins, final_norm_gain  # noqa: E402

SEED = 20260702
AREA = "gemma4_mm"
GREEDY_TOKENS = 8
MIN_GREEDY_DISTINCT = 5
# The C++ test's logit tolerance is 1e-4 (spec §8.6); every semantics this golden must tell apart
# moves some logit by at least this much more.
MIN_SEMANTICS_GAP = 1e-2
S, F = "sliding_attention", "full_attention"
IMAGE, BOI, EOI, AUDIO, BOA, EOA, VIDEO = 4, 5, 6, 7, 8, 9, 10

TEXT = dict(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=2,
            num_key_value_heads=1, head_dim=32, global_head_dim=32, layer_types=[S, F, S, F], sliding_window=8,
            hidden_size_per_layer_input=8, vocab_size_per_layer_input=512, num_kv_shared_layers=0,
            final_logit_softcapping=30.0, max_position_embeddings=256, use_bidirectional_attention=None)
VISION = dict(hidden_size=48, intermediate_size=96, num_hidden_layers=2, num_attention_heads=3, num_key_value_heads=3,
              head_dim=16, hidden_activation="gelu_pytorch_tanh", rms_norm_eps=1e-6, patch_size=4,
              pooling_kernel_size=3, position_embedding_size=256,
              rope_parameters={"rope_type": "default", "rope_theta": 100.0}, use_clipped_linears=True,
              standardize=True)
AUDIO_CONFIG = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, hidden_act="silu",
                    subsampling_conv_channels=[16, 8], conv_kernel_size=5, residual_weight=0.5,
                    attention_chunk_size=4, attention_context_left=5, attention_context_right=0,
                    attention_logit_cap=5.0, attention_invalid_logits_value=-1e9, use_clipped_linears=True,
                    rms_norm_eps=1e-6, gradient_clipping=1e10, output_proj_dims=24)
VARIANTS = {"causal": None, "vision": "vision"}


def config(bidirectional):
    return Gemma4Config(text_config=Gemma4TextConfig(**{**TEXT, "use_bidirectional_attention": bidirectional}),
                        vision_config=Gemma4VisionConfig(**VISION), audio_config=Gemma4AudioConfig(**AUDIO_CONFIG),
                        image_token_id=IMAGE, boi_token_id=BOI, eoi_token_id=EOI, audio_token_id=AUDIO,
                        boa_token_id=BOA, eoa_token_index=EOA, video_token_id=VIDEO)


def clip_group(name):
    """Linears whose clip bounds are shared in real checkpoints (multimodal.md §3.1, §8.5): vision k/v and
    gate/up, audio q/k/v."""
    base = name.rsplit(".", 1)[0]
    if ".vision_tower." in name:
        return base.replace(".k_proj", ".kv").replace(".v_proj", ".kv").replace(".gate_proj", ".gu").replace(
            ".up_proj", ".gu")
    if ".audio_tower." in name:
        return base.replace(".q_proj", ".qkv").replace(".k_proj", ".qkv").replace(".v_proj", ".qkv")
    return base


def randomize(model, seed):
    """Text model as make_gemma4_goldens.randomize (norms, layer scalars ~ U(0.5, 1.5), final norm times
    the logit gain, embeddings ~ N(0, EMBED_STD^2), per-layer embeddings ~ N(0, 1), matrices ~ N(0, 0.1));
    towers and projectors as multimodal.md §8.5."""
    g = torch.Generator().manual_seed(seed)
    gain = final_norm_gain(model.config.text_config)
    bounds = {}
    with torch.no_grad():
        for name, t in sorted(model.state_dict().items()):
            if name == "lm_head.weight":
                continue  # tied
            if ".language_model." in name:
                if ("norm" in name and name.endswith(".weight")) or name.endswith("layer_scalar"):
                    t.copy_(torch.rand(t.shape, generator=g) + 0.5)
                    if name.endswith("language_model.norm.weight"):
                        t.mul_(gain)
                elif name.endswith("embed_tokens.weight"):
                    t.copy_(torch.randn(t.shape, generator=g) * EMBED_STD)
                elif name.endswith("embed_tokens_per_layer.weight"):
                    t.copy_(torch.randn(t.shape, generator=g))
                else:
                    t.copy_(torch.randn(t.shape, generator=g) * 0.1)
            elif name.endswith(("input_min", "input_max", "output_min", "output_max")):
                key = (clip_group(name), name.rsplit(".", 1)[1])
                if key not in bounds:
                    sign = -1.0 if name.endswith("_min") else 1.0
                    bounds[key] = sign * (float(torch.rand((), generator=g)) + 0.5)
                t.fill_(bounds[key])
            elif name.endswith("position_embedding_table"):
                t.copy_(torch.randn(t.shape, generator=g) * 0.5)
            elif name.endswith("per_dim_scale"):
                t.copy_(torch.randn(t.shape, generator=g) * 0.5)
            elif name.endswith("std_bias"):
                t.copy_(torch.randn(t.shape, generator=g) * 0.1)
            elif name.endswith("std_scale"):
                t.copy_(torch.rand(t.shape, generator=g) + 0.5)
            elif "norm" in name and name.endswith(".weight") and t.dim() == 1:
                t.copy_(1.0 + torch.randn(t.shape, generator=g) * 0.1)
            else:
                t.copy_(torch.randn(t.shape, generator=g) * 0.2)
    assert torch.equal(model.lm_head.weight, model.model.language_model.embed_tokens.weight), "embeddings must stay tied"


def media():
    """Two images (63 and 64 soft tokens at budget 70) and a 0.37 s audio clip, deterministic."""
    rng = numpy.random.default_rng(SEED)
    yy, xx = numpy.mgrid[0:40, 0:56]
    smooth = numpy.stack([xx * 4, yy * 6, (xx + yy) * 2], axis=-1)
    img1 = numpy.clip(smooth + rng.integers(0, 64, (40, 56, 3)), 0, 255).astype(numpy.uint8)
    img2 = rng.integers(0, 256, (24, 24, 3)).astype(numpy.uint8)
    t = numpy.arange(int(16000 * 0.37)) / 16000.0
    clip = (0.5 * numpy.sin(2 * numpy.pi * 440 * t) + 0.3 * numpy.sin(2 * numpy.pi * 1250 * t)
            + 0.05 * rng.standard_normal(t.shape)).astype(numpy.float32)
    return [Image.fromarray(img1), Image.fromarray(img2)], clip


def inputs(model):
    images, clip = media()
    processor = Gemma4ImageProcessor(patch_size=4, pooling_kernel_size=3, max_soft_tokens=70)
    pix = processor(images, return_tensors="pt")
    n1, n2 = (int(n) for n in pix["num_soft_tokens_per_image"])
    audio = Gemma4AudioFeatureExtractor(feature_size=16)([clip], return_tensors="pt")
    with torch.no_grad():
        enc = model.model.get_audio_features(audio["input_features"], audio["input_features_mask"], return_dict=True)
    m = int(enc.attention_mask.sum())
    ids = [2, 11, BOI] + [IMAGE] * n1 + [EOI, BOI] + [IMAGE] * n2 + [EOI, 12, BOA] + [AUDIO] * m + [EOA, 13, 14]
    types = [1 if i == IMAGE else 3 if i == AUDIO else 0 for i in ids]
    spans = {"image": [[3, 3 + n1], [5 + n1, 5 + n1 + n2]], "audio": [[8 + n1 + n2, 8 + n1 + n2 + m]]}
    for kind, token in (("image", IMAGE), ("audio", AUDIO)):
        assert [i for i, t in enumerate(ids) if t == token] == [i for b, e in spans[kind] for i in range(b, e)]
    kwargs = dict(input_ids=torch.tensor([ids]), mm_token_type_ids=torch.tensor([types]),
                  pixel_values=pix["pixel_values"], image_position_ids=pix["image_position_ids"],
                  input_features=audio["input_features"], input_features_mask=audio["input_features_mask"])
    info = {"image_sizes_hw": [[im.height, im.width] for im in images], "num_soft_tokens_per_image": [n1, n2],
            "audio_samples": len(clip), "audio_feature_frames": int(audio["input_features_mask"].sum()),
            "num_audio_tokens": m, "spans": spans}
    return kwargs, info


def block_masks(types, window, overlay_full, clamp_block):
    """Additive eager masks [1, 1, T, T] built by hand: full = causal (OR block with overlay_full); sliding =
    AND(q - k < window, OR(causal, block)) (without clamp_block: OR(AND(window, causal), block))."""
    t = torch.tensor(types)
    block = get_block_sequence_ids_for_mask(t[None], device="cpu")[0]
    q = torch.arange(len(types))[:, None]
    k = torch.arange(len(types))[None, :]
    causal = k <= q
    same = (block[:, None] == block[None, :]) & (block[:, None] >= 0)
    full = causal | same if overlay_full else causal
    sliding = ((causal | same) & (k > q - window)) if clamp_block else ((causal & (k > q - window)) | same)
    neg = torch.finfo(torch.float32).min
    return {name: torch.where(m, 0.0, neg)[None, None].to(torch.float32) for name, m in
            (("full_attention", full), ("sliding_attention", sliding))}


@torch.no_grad()
def check_pinned_masks(model, kwargs, types):
    """The pinned transformers builds exactly block_masks(overlay_full=False, clamp_block=True)."""
    text = model.config.get_text_config()
    embeds = torch.zeros(1, len(types), text.hidden_size)
    got = create_masks_for_vision_model(config=text, inputs_embeds=embeds, attention_mask=None, cache=None,
                                        position_ids=torch.arange(len(types))[None],
                                        block_sequence_ids=get_block_sequence_ids_for_mask(torch.tensor([types]), "cpu"))
    want = block_masks(types, text.sliding_window, overlay_full=False, clamp_block=True)
    for name in ("full_attention", "sliding_attention"):
        allowed_got = got[name] == 0 if got[name].dtype != torch.bool else got[name]
        assert torch.equal(allowed_got.reshape(want[name].shape), want[name] == 0), f"pinned {name} mask differs"


@torch.no_grad()
def forward(model, kwargs, masks=None):
    return model(**kwargs, attention_mask=masks, use_cache=False, output_hidden_states=True)


@torch.no_grad()
def greedy(model, kwargs):
    cache = DynamicCache(config=model.config.get_text_config())
    logits = model(**kwargs, cache=cache, use_cache=True).logits[0, -1]
    ids, margins, rows = [], [], []
    for _ in range(GREEDY_TOKENS):
        rows.append(logits.clone())
        nxt = int(torch.argmax(logits))
        top2 = torch.topk(logits, 2).values
        ids.append(nxt)
        margins.append(float(top2[0] - top2[1]))
        logits = model(input_ids=torch.tensor([[nxt]]), cache=cache, use_cache=True).logits[0, -1]
    return ids, margins, torch.stack(rows)


def max_diff(a, b):
    return float((a - b).abs().max())


@torch.no_grad()
def dump(model, kwargs, info, directory, bidirectional):
    captured = {}
    lm = model.model.language_model
    def record_embeds(module, args, kw):
        captured.setdefault("embeds", kw["inputs_embeds"])
    hook = lm.register_forward_pre_hook(record_embeds, with_kwargs=True)
    project = lm.project_per_layer_inputs

    def record_ple(*args, **kw):
        out = project(*args, **kw)
        captured.setdefault("ple", out)
        return out
    lm.project_per_layer_inputs = record_ple
    out = forward(model, kwargs)
    hook.remove()
    lm.project_per_layer_inputs = project
    embeds, ple = captured["embeds"][0], captured["ple"][0]
    hidden = torch.stack([h[0] for h in out.hidden_states])
    assert torch.equal(hidden[0], embeds), "hidden_states[0] is not the merged inputs_embeds"
    image_pos = [i for b, e in info["spans"]["image"] for i in range(b, e)]
    audio_pos = [i for b, e in info["spans"]["audio"] for i in range(b, e)]
    features = model.model.get_image_features(kwargs["pixel_values"], kwargs["image_position_ids"], return_dict=True)
    assert torch.equal(torch.cat(features.pooler_output, dim=0), embeds[image_pos]), "image rows differ"
    image_rows = embeds[image_pos]
    assert float(image_rows.std(dim=0).min()) > 1e-2, "degenerate image rows (equal across positions)"
    ids, margins, greedy_rows = greedy(model, kwargs)
    logits = out.logits[0]
    assert max_diff(greedy_rows[0], logits[-1]) < 1e-4, "greedy prefill differs from the full forward"
    if len(set(ids)) < MIN_GREEDY_DISTINCT or min(margins) < MIN_MARGIN:
        sys.exit(f"{directory}: degenerate greedy continuation {ids} (margins {margins})")
    writer = GoldenWriter()
    writer.add("input_ids", kwargs["input_ids"][0])
    writer.add("mm_token_type_ids", kwargs["mm_token_type_ids"][0])
    writer.add("image_rows", image_rows)
    writer.add("audio_rows", embeds[audio_pos])
    writer.add("per_layer_inputs", ple)
    writer.add("hidden_states", hidden)
    writer.add("logits", logits)
    writer.add("greedy_logits", greedy_rows)
    for k, im in enumerate(media()[0]):  # the decoded pictures ([H, W, 3] uint8 as i64): pixels -> logits tests
        writer.add(f"image_{k}_rgb", torch.from_numpy(numpy.asarray(im)).to(torch.int64))
    text = model.config.get_text_config()
    index = {"variant": os.path.basename(directory), "use_bidirectional_attention": bidirectional,
             "num_hidden_layers": text.num_hidden_layers, "hidden_size": text.hidden_size,
             "vocab_size": text.vocab_size, "sliding_window": text.sliding_window,
             "hidden_states_semantics": "entry 0 = merged inputs_embeds, entry k (1..L-1) = output of layer k-1, "
                                        "entry L = final-normed output",
             "bidirectional_spans": info["spans"]["image"] if bidirectional == "vision" else [],
             "greedy_ids": ids, "greedy_margins": [round(m, 6) for m in margins],
             "greedy_procedure": "prefill with the media, then one token per step with a DynamicCache "
                                 "(mm_token_type_ids not passed: no block overlay); greedy_logits row i = the "
                                 "logits greedy_ids[i] was taken from (row 0 = the last prompt row)",
             **info}
    writer.write(directory, "golden", index)
    return out


AUDIO_CASES = ("audio_only", "audio_image")


def audio_clip():
    """The audio cases' 1.0 s clip: a chirp, a steady tone and noise, deterministic."""
    rng = numpy.random.default_rng(SEED + 7)
    t = numpy.arange(16000) / 16000.0
    return (0.4 * numpy.sin(2 * numpy.pi * (300 + 900 * t) * t) + 0.3 * numpy.sin(2 * numpy.pi * 2200 * t)
            + 0.05 * rng.standard_normal(t.shape)).astype(numpy.float32)


@torch.no_grad()
def dump_audio(model, directory):
    """The audio cases (see the module docstring) into <directory>/golden.{json,bin}."""
    audio = Gemma4AudioFeatureExtractor(feature_size=16)([audio_clip()], return_tensors="pt")
    frames = int(audio["input_features_mask"].sum())
    enc = model.model.get_audio_features(audio["input_features"], audio["input_features_mask"], return_dict=True)
    m = int(enc.attention_mask.sum())
    assert m == (frames + 3) // 4
    image = media()[0][0]
    pix = Gemma4ImageProcessor(patch_size=4, pooling_kernel_size=3, max_soft_tokens=70)([image], return_tensors="pt")
    n1 = int(pix["num_soft_tokens_per_image"][0])
    writer = GoldenWriter()
    index = {"checkpoint": "causal", "audio_samples": 16000, "audio_feature_frames": frames, "num_audio_tokens": m,
             "greedy_procedure": "as the variants' goldens"}
    for case in AUDIO_CASES:
        head = [2, 11, BOA] if case == "audio_only" else [2, 11, BOI] + [IMAGE] * n1 + [EOI, 12, BOA]
        ids = head + [AUDIO] * m + [EOA, 13, 14]
        types = [1 if i == IMAGE else 3 if i == AUDIO else 0 for i in ids]
        kwargs = dict(input_ids=torch.tensor([ids]), mm_token_type_ids=torch.tensor([types]),
                      input_features=audio["input_features"], input_features_mask=audio["input_features_mask"])
        spans = {"audio": [[len(head), len(head) + m]], "image": []}
        if case == "audio_image":
            kwargs.update(pixel_values=pix["pixel_values"], image_position_ids=pix["image_position_ids"])
            spans["image"] = [[3, 3 + n1]]
        captured = {}
        lm = model.model.language_model
        def record(module, args, kw):
            captured.setdefault("embeds", kw["inputs_embeds"])
        hook = lm.register_forward_pre_hook(record, with_kwargs=True)
        out = forward(model, kwargs)
        hook.remove()
        rows = captured["embeds"][0, len(head):len(head) + m]
        assert torch.equal(rows, enc.pooler_output[0][enc.attention_mask[0]]), f"{case}: audio rows differ"
        ids_out, margins, greedy_rows = greedy(model, kwargs)
        assert max_diff(greedy_rows[0], out.logits[0, -1]) < 1e-4, f"{case}: greedy prefill differs"
        if len(set(ids_out)) < MIN_GREEDY_DISTINCT or min(margins) < MIN_MARGIN:
            sys.exit(f"{case}: degenerate greedy continuation {ids_out} (margins {margins})")
        writer.add(f"{case}.input_ids", torch.tensor(ids))
        writer.add(f"{case}.audio_features", audio["input_features"][0, :frames].float())
        writer.add(f"{case}.audio_rows", rows)
        if case == "audio_image":
            writer.add(f"{case}.image_rgb", torch.from_numpy(numpy.asarray(image)).to(torch.int64))
        writer.add(f"{case}.logits", out.logits[0])
        writer.add(f"{case}.greedy_logits", greedy_rows)
        index[case] = {"spans": spans, "greedy_ids": ids_out, "greedy_margins": [round(x, 6) for x in margins]}
        print(f"{case}: greedy {ids_out}, min margin {min(margins):.3f}", flush=True)
    os.makedirs(directory, exist_ok=True)
    text = model.config.get_text_config()
    index.update({"hidden_size": text.hidden_size, "vocab_size": text.vocab_size})
    writer.write(directory, "golden", index)


def build():
    torch.manual_seed(SEED)
    model = Gemma4ForConditionalGeneration(config(None)).eval()
    randomize(model, SEED + 1)
    return model


def load(directory):
    model = Gemma4ForConditionalGeneration.from_pretrained(directory, dtype=torch.float32, use_kernels=False,
                                                           attn_implementation="eager").eval()
    assert model.config.get_text_config()._attn_implementation == "eager"
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    args = ap.parse_args()
    check_pins()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    root = os.path.abspath(args.out)
    area = os.path.join(root, AREA)
    if os.path.isdir(area):
        shutil.rmtree(area)
    built = build()
    tmp = tempfile.mkdtemp()
    outs = {}
    for variant, bidirectional in VARIANTS.items():
        directory = os.path.join(area, variant)
        saved = directory if variant == "causal" else os.path.join(tmp, variant)
        built.config.text_config.use_bidirectional_attention = bidirectional
        built.save_pretrained(saved)
        model = load(saved)
        kwargs, info = inputs(model)
        if bidirectional == "vision":
            check_pinned_masks(model, kwargs, kwargs["mm_token_type_ids"][0].tolist())
        os.makedirs(directory, exist_ok=True)
        outs[variant] = (model, kwargs, dump(model, kwargs, info, directory, bidirectional))
        if saved != directory:  # weights once: the variant keeps only its config.json
            for f in ("model.safetensors", "generation_config.json"):
                assert filecmp.cmp(os.path.join(saved, f), os.path.join(area, "causal", f), shallow=False), f
            shutil.copy(os.path.join(saved, "config.json"), os.path.join(directory, "config.json"))
        print(f"{variant}: done", flush=True)
    shutil.rmtree(tmp)
    dump_audio(outs["causal"][0], os.path.join(area, "audio"))
    for name in ("causal", "vision"):
        with open(os.path.join(area, name, "config.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        cfg["text_config"].pop("use_bidirectional_attention")
        outs[name] = outs[name] + (cfg,)
    assert outs["causal"][3] == outs["vision"][3], "the variants' configs differ beyond use_bidirectional_attention"
    # What the golden tells apart (each must move some logit by MIN_SEMANTICS_GAP).
    model, kwargs, out = outs["vision"][:3]
    types = kwargs["mm_token_type_ids"][0].tolist()
    window = model.config.get_text_config().sliding_window
    first_image = types.index(1)
    gaps = {"causal": max_diff(outs["causal"][2].logits, out.logits)}
    assert max_diff(outs["causal"][2].logits[0, :first_image], out.logits[0, :first_image]) < 1e-6
    for label, overlay_full, clamp in (("pinned", False, True), ("block_also_on_full_layers", True, True),
                                       ("block_not_window_bounded", False, False)):
        logits = forward(model, kwargs, block_masks(types, window, overlay_full, clamp)).logits
        if label == "pinned":
            assert torch.equal(logits, out.logits), "hand-built pinned masks do not reproduce transformers"
        else:
            gaps[label] = max_diff(logits, out.logits)
    print("max |logit difference| from the pinned semantics:", gaps, flush=True)
    for label, gap in gaps.items():
        if gap < MIN_SEMANTICS_GAP:
            sys.exit(f"the golden cannot tell {label} from the pinned semantics ({gap} < {MIN_SEMANTICS_GAP})")
    versions = {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
                "safetensors": safetensors.__version__, "numpy": numpy.__version__, "pillow": PIL.__version__}
    update_manifest(root, AREA, {"generator": "scripts/golden/make_gemma4_mm_goldens.py", "seed": SEED,
                                 "versions": versions, "torch_threads": 1, "deterministic_algorithms": True,
                                 "semantics_gaps_vs_pinned": {k: round(v, 6) for k, v in gaps.items()},
                                 "mask_semantics": "sliding: AND(q - k < sliding_window, OR(k <= q, same vision "
                                                   "block)); full: causal; decode: causal"})


if __name__ == "__main__":
    main()
