#!/usr/bin/env python3
"""Compressed-tensors checkpoints of the committed reference models, written by the
compressed-tensors library itself, with transformers' logits of them.

FP8 checkpoints (t*_fp8) hold the FP8_DYNAMIC scheme of RedHat's *-FP8-dynamic files; their
reference is vLLM's numerics (spec §2.2) in fp32: the exact weights e4m3 · s (not the library's
bf16-rounded decompression, which is recorded in weights.<module> for the bit check) and every
quantized Linear's input quantized per token to E4M3 with s = max(amax / 448, 1 / (448 · 512)).

Run with the dev environment (scripts/setup.sh --dev: torch, transformers, compressed-tensors; never in CI):
    .venv/bin/python scripts/golden/make_ct_goldens.py [--out tests/golden]

Route (spec quantized-checkpoints.md §4.2, the path llm-compressor takes when it saves, with
compressed-tensors alone): load the bf16 twin of a reference checkpoint (tests/golden/gemma4/<m>),
apply_quantization_config(), set each weight's scales from a min-max of its own values with the
library's calculate_qparams(), compress_model() with format pack-quantized, save_pretrained() and
update_config(). Models:
  t1_w4a16  Gemma 4 E-like (PLE, KV sharing): int4 symmetric group 32 on every Linear, as Google's
            *-qat-w4a16-ct files; lm_head and the per_layer_projection (K = 8, shorter than a
            group) ignored by an anchored regex.
  t2_w4a16  the MoE/k_eq_v model: int4 symmetric per channel (one scale per output row); router
            ignored. Its MLP rows (K = 48) are not a multiple of 32.
For each, transformers loads the written directory (dtype bfloat16: the library decompresses to
bf16(q * s), spec §1.8), the model is cast to float32 and run on the goldens' prompts without a
cache; <m>.logits.{json,bin} keep the prefill logits and the decompressed bf16 weights of a few
modules (weights.<module>), so the C++ reference dequantizer is checked bit for bit.
"""
import argparse
import json
import os
import platform
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_manifest import update_manifest  # noqa: E402

FP8_DYNAMIC_INPUT = {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "token", "dynamic": True}
MODELS = {
    "t1_w4a16": ("gemma4/t1", {"num_bits": 4, "type": "int", "symmetric": True, "strategy": "group", "group_size": 32},
                 ["lm_head", "re:.*per_layer_projection$"],
                 ["model.layers.0.self_attn.q_proj", "model.layers.2.mlp.down_proj",
                  "model.per_layer_model_projection"]),
    "t2_w4a16": ("gemma4/t2", {"num_bits": 4, "type": "int", "symmetric": True, "strategy": "channel"},
                 ["lm_head", "re:.*router.*"],
                 ["model.layers.0.self_attn.q_proj", "model.layers.0.mlp.down_proj"]),
    # int2 weight-only (the mobile files' embedding and deep-MLP bits, without their activations): read in
    # place as Q4_0 blocks, whose nibbles hold any int2..int4 value.
    "t1_w2a16": ("gemma4/t1", {"num_bits": 2, "type": "int", "symmetric": True, "strategy": "group", "group_size": 32},
                 ["lm_head", "re:.*per_layer_projection$"],
                 ["model.layers.0.self_attn.q_proj", "model.layers.2.mlp.down_proj"]),
    # RedHat's *-FP8-dynamic scheme (FP8_DYNAMIC): E4M3 weights per channel, E4M3 activations per token.
    "t1_fp8": ("gemma4/t1", {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "channel"},
               ["lm_head"], ["model.layers.0.self_attn.q_proj", "model.layers.2.mlp.down_proj",
                             "model.layers.0.per_layer_projection"]),
    "t2_fp8": ("gemma4/t2", {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "channel"},
               ["lm_head", "re:.*router.*"], ["model.layers.0.self_attn.q_proj", "model.layers.0.mlp.down_proj"]),
}

# FP8 checkpoints with a static FP8 KV cache (quantization_config.kv_cache_scheme, spec §1.9): the
# FP8 checkpoint above plus each KV-owning attention's k_scale / v_scale, calibrated as
# llm-compressor's static min-max observer does (amax of the post-RoPE keys / values over the
# goldens' prompts, / 448). compressed-tensors 0.20.1 cannot write these for Gemma 4 itself: it
# hooks the KV cache only of attention modules whose forward takes `past_key_value(s)`, and
# transformers 5.25's Gemma 4 attention takes `cache`. So the tensors are written directly (spec
# §4.3, route B), per tensor on T1 (float32 [1]) and per KV head on T2 (bf16 [nkv, 1, 1]).
KV_MODELS = {  # name: (the FP8 checkpoint it extends, kv_cache_scheme strategy, scale dtype)
    "t1_fp8_kv": ("t1_fp8", "tensor", "float32"),
    "t2_fp8_kvh": ("t2_fp8", "attn_head", "bfloat16"),
}

# RedHat's *-26B-A4B-it-FP8-dynamic MoE layout (spec §3.1): llm-compressor unfuses the experts before
# quantizing, so each expert's gate / up / down is a 2-D FP8 Linear of its own
# (experts.<e>.gate_proj.weight F8_E4M3 [Ie, H] with a bf16 weight_scale [Ie, 1], ...). Written
# directly (route B) from the FP8 T2 checkpoint's bf16 expert stacks: per channel s = bf16(amax / 448),
# e4m3(w / s) (spec §1.8). Its reference is vLLM's FP8 MoE in fp32: the exact e4m3 · s experts with
# each expert's inputs (the token's hidden state; gelu(gate) · up) quantized per token to E4M3.
EXPERT_MODELS = {"t2_fp8_experts": "t2_fp8"}

# Google's *-qat-mobile-ct layout (spec §3.3) on T1: static per-tensor int8 input and output
# activations around every quantized Linear, int4 attention, int4 then int2 MLP layers, int8 PLE
# gates/projections stored int-quantized (plain int8 tensors), each scheme its own group (global
# format mixed-precision). The real files' int2 embeddings and int4 PLE table are left out:
# transformers 5.25 with compressed-tensors 0.20.1 cannot load a checkpoint with a quantized
# Gemma 4 embedding ("'Gemma4TextScaledWordEmbedding' object has no attribute 'weight'" while it
# initializes the missing keys), so there is no reference to check them against.
A8 = {"num_bits": 8, "type": "int", "symmetric": True, "strategy": "tensor", "dynamic": False}
MOBILE_GROUPS = [  # (name, targets, weight bits, activations, format)
    ("attn", [r"re:.*self_attn\.(q|k|v|o)_proj$"], 4, True, "pack-quantized"),
    ("mlp_lo", [r"re:model\.layers\.[0-3]\.mlp\..*_proj$"], 4, True, "pack-quantized"),
    ("mlp_hi", [r"re:model\.layers\.[4-6]\.mlp\..*_proj$"], 2, True, "pack-quantized"),
    ("ple", [r"re:.*per_layer_(input_gate|projection)$"], 8, True, "int-quantized"),
]
MOBILE_WEIGHTS = ["model.layers.0.self_attn.q_proj", "model.layers.5.mlp.down_proj", "model.layers.1.per_layer_input_gate"]


def golden_prompts(ckpt_dir):
    with open(os.path.join(ckpt_dir, "golden_f32.json"), encoding="utf-8") as f:
        return json.load(f)["prompts"]


def write_checkpoint(src, weights_args, ignore, out_dir):
    import torch
    import transformers
    from compressed_tensors.compressors import ModelCompressor
    from compressed_tensors.quantization import (QuantizationArgs, QuantizationConfig, QuantizationScheme,
                                                 QuantizationStatus, apply_quantization_config)
    from compressed_tensors.quantization.utils.helpers import calculate_qparams

    model = transformers.AutoModelForCausalLM.from_pretrained(src, dtype=torch.bfloat16)
    args = QuantizationArgs(**weights_args)
    inputs = QuantizationArgs(**FP8_DYNAMIC_INPUT) if args.type == "float" else None
    config = QuantizationConfig(config_groups={"group_0": QuantizationScheme(targets=["Linear"], weights=args,
                                                                             input_activations=inputs)},
                                ignore=ignore)
    apply_quantization_config(model, config)
    for _, m in model.named_modules():
        scheme = getattr(m, "quantization_scheme", None)
        if scheme is None or scheme.weights is None:
            continue
        w = m.weight.data
        if args.strategy == "group":
            g = w.reshape(w.shape[0], -1, args.group_size)
            lo, hi = g.amin(-1), g.amax(-1)
        else:
            lo, hi = w.amin(-1, keepdim=True), w.amax(-1, keepdim=True)
        scale, zero_point = calculate_qparams(lo, hi, args)
        m.weight_scale.data.copy_(scale.to(m.weight_scale.dtype))
        if hasattr(m, "weight_zero_point"):
            m.weight_zero_point.data.copy_(zero_point)
        m.quantization_status = QuantizationStatus.FROZEN
    fmt = "float-quantized" if args.type == "float" else "pack-quantized"
    compressor = ModelCompressor.from_pretrained_model(model, quantization_format=fmt)
    compressor.compress_model(model)
    shutil.rmtree(out_dir, ignore_errors=True)
    model.save_pretrained(out_dir)
    compressor.update_config(out_dir)
    if os.path.exists(os.path.join(src, "generation_config.json")):
        shutil.copy(os.path.join(src, "generation_config.json"), out_dir)


def write_mobile_checkpoint(src, prompts, out_dir):
    """T1 in the mobile QAT layout (MOBILE_GROUPS): weight scales from a min-max of each row, static
    activation scales amax / 127 of each Linear's input and output over the goldens' prompts."""
    import re

    import torch
    import transformers
    from compressed_tensors.compressors import ModelCompressor
    from compressed_tensors.quantization import (QuantizationArgs, QuantizationConfig, QuantizationScheme,
                                                 QuantizationStatus, apply_quantization_config)
    from compressed_tensors.quantization.utils.helpers import calculate_qparams

    model = transformers.AutoModelForCausalLM.from_pretrained(src, dtype=torch.bfloat16)

    def group_of(name):
        return next((g for g in MOBILE_GROUPS if any(re.match(t[3:], name) for t in g[1])), None)

    amax, hooks = {}, []
    for name, mod in model.named_modules():
        g = group_of(name)
        if g is not None and g[3] and isinstance(mod, torch.nn.Linear):
            def hook(_m, args, out, name=name):
                a = amax.setdefault(name, [0.0, 0.0])
                a[0] = max(a[0], args[0].abs().max().item())
                a[1] = max(a[1], out.abs().max().item())
            hooks.append(mod.register_forward_hook(hook))
    with torch.no_grad():
        for p in prompts:
            model(input_ids=torch.tensor([p["token_ids"]]), use_cache=False)
    for h in hooks:
        h.remove()
    groups = {}
    for gname, targets, bits, act, fmt in MOBILE_GROUPS:
        groups[gname] = QuantizationScheme(
            targets=targets, weights=QuantizationArgs(num_bits=bits, type="int", symmetric=True, strategy="channel"),
            input_activations=QuantizationArgs(**A8) if act else None,
            output_activations=QuantizationArgs(**A8) if act else None, format=fmt)
    apply_quantization_config(model, QuantizationConfig(config_groups=groups, ignore=["lm_head"]))
    for name, m in model.named_modules():
        scheme = getattr(m, "quantization_scheme", None)
        if scheme is None or scheme.weights is None:
            continue
        w = m.weight.data
        scale, _ = calculate_qparams(w.amin(-1, keepdim=True), w.amax(-1, keepdim=True), scheme.weights)
        m.weight_scale.data.copy_(scale.to(m.weight_scale.dtype))
        if scheme.input_activations is not None:
            m.input_scale.data.fill_(amax[name][0] / 127.0)
        if scheme.output_activations is not None:
            m.output_scale.data.fill_(amax[name][1] / 127.0)
        m.quantization_status = QuantizationStatus.FROZEN
    compressor = ModelCompressor.from_pretrained_model(model)
    compressor.compress_model(model)
    shutil.rmtree(out_dir, ignore_errors=True)
    model.save_pretrained(out_dir)
    compressor.update_config(out_dir)
    if os.path.exists(os.path.join(src, "generation_config.json")):
        shutil.copy(os.path.join(src, "generation_config.json"), out_dir)


def fp8_kv(x, s):
    """An FP8 KV cache's round trip in fp32: e4m3(clamp(x / s, ±448)) · s (vLLM's write, then read)."""
    import torch

    return torch.clamp(x / s, -448.0, 448.0).to(torch.float8_e4m3fn).float() * s


def kv_cache_class():
    """A DynamicCache that records the amax of each layer's post-RoPE keys and values per KV head
    (record) or stores them through FP8 with per-layer scales (scales: {layer: (k [nkv], v [nkv])}).
    Gemma 4's KV-shared layers never call update: they read their donor's stored states."""
    import torch
    from transformers import DynamicCache

    class Fp8KvCache(DynamicCache):
        def __init__(self, config, scales=None, record=None):
            super().__init__(config=config)
            self.fp8_scales, self.record = scales, record

        def update(self, key_states, value_states, layer_idx, *args, **kwargs):
            if self.record is not None:  # [batch, nkv, tokens, d]
                amax = self.record.setdefault(layer_idx, [torch.zeros(key_states.shape[1])] * 2)
                amax[0] = torch.maximum(amax[0], key_states.abs().amax(dim=(0, 2, 3)).float())
                amax[1] = torch.maximum(amax[1], value_states.abs().amax(dim=(0, 2, 3)).float())
            if self.fp8_scales is not None:
                ks, vs = self.fp8_scales[layer_idx]
                key_states = fp8_kv(key_states, ks.view(1, -1, 1, 1))
                value_states = fp8_kv(value_states, vs.view(1, -1, 1, 1))
            return super().update(key_states, value_states, layer_idx, *args, **kwargs)

    return Fp8KvCache


def write_kv_checkpoint(src_dir, bf16_dir, prompts, strategy, scale_dtype, out_dir):
    """src_dir (an FP8 checkpoint) plus kv_cache_scheme and the scales calibrated on bf16_dir's model."""
    import safetensors.torch
    import torch
    import transformers

    model = transformers.AutoModelForCausalLM.from_pretrained(bf16_dir, dtype=torch.float32)
    record = {}
    with torch.no_grad():
        for p in prompts:
            cache = kv_cache_class()(model.config, record=record)
            model(input_ids=torch.tensor([p["token_ids"]]), past_key_values=cache, use_cache=True)
    shutil.rmtree(out_dir, ignore_errors=True)
    shutil.copytree(src_dir, out_dir)
    tensors = safetensors.torch.load_file(os.path.join(out_dir, "model.safetensors"))
    anchor = "0.self_attn.q_proj.weight"
    prefix = next(k for k in tensors if k.endswith("layers." + anchor))[: -len(anchor)]
    dtype = getattr(torch, scale_dtype)
    for layer, (k_amax, v_amax) in sorted(record.items()):
        for name, amax in (("k_scale", k_amax), ("v_scale", v_amax)):
            s = (amax.max().reshape(1) if strategy == "tensor" else amax.reshape(-1, 1, 1)) / 448.0
            tensors[f"{prefix}{layer}.self_attn.{name}"] = s.to(dtype)
    safetensors.torch.save_file(tensors, os.path.join(out_dir, "model.safetensors"), metadata={"format": "pt"})
    with open(os.path.join(out_dir, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    config["quantization_config"]["kv_cache_scheme"] = {
        "num_bits": 8, "type": "float", "symmetric": True, "strategy": strategy, "dynamic": False,
        "group_size": None, "block_structure": None, "actorder": None, "observer": "minmax", "observer_kwargs": {}}
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, sort_keys=True)


def write_expert_checkpoint(src_dir, out_dir):
    """src_dir (an FP8 checkpoint with bf16 expert stacks) with every stack unfused into per-expert FP8 Linears."""
    import re

    import safetensors.torch
    import torch

    shutil.rmtree(out_dir, ignore_errors=True)
    shutil.copytree(src_dir, out_dir)
    path = os.path.join(out_dir, "model.safetensors")
    tensors = safetensors.torch.load_file(path)
    for name in sorted(tensors):
        m = re.fullmatch(r"(.*\.experts)\.(gate_up_proj|down_proj)", name)
        if not m:
            continue
        stack = tensors.pop(name).float()  # [E, rows, in]
        for e in range(stack.shape[0]):
            parts = ([("gate_proj", stack[e, : stack.shape[1] // 2]), ("up_proj", stack[e, stack.shape[1] // 2:])]
                     if m.group(2) == "gate_up_proj" else [("down_proj", stack[e])])
            for proj, w in parts:
                s = (w.abs().amax(dim=1, keepdim=True) / 448.0).to(torch.bfloat16)
                q = torch.clamp(w / s.float(), -448.0, 448.0).to(torch.float8_e4m3fn)
                tensors[f"{m.group(1)}.{e}.{proj}.weight"] = q.contiguous()
                tensors[f"{m.group(1)}.{e}.{proj}.weight_scale"] = s.contiguous()
    safetensors.torch.save_file(tensors, path, metadata={"format": "pt"})


def fp8_experts_forward(experts):
    """transformers' eager Gemma4TextExperts loop with vLLM's FP8 MoE activations: each expert's inputs quantized
    per token to E4M3 (the weights are already the exact e4m3 · s)."""
    import torch

    def forward(hidden_states, top_k_index, top_k_weights):
        final = torch.zeros_like(hidden_states)
        mask = torch.nn.functional.one_hot(top_k_index, num_classes=experts.num_experts + 1).permute(2, 1, 0)
        for e in torch.greater(mask.sum(dim=(-1, -2)), 0).nonzero():
            e = e[0]
            if e == experts.num_experts:
                continue
            pos, tok = torch.where(mask[e])
            x = fp8_per_token(hidden_states[tok])
            gate, up = torch.nn.functional.linear(x, experts.gate_up_proj[e]).chunk(2, -1)
            h = torch.nn.functional.linear(fp8_per_token(experts.act_fn(gate) * up), experts.down_proj[e])
            final.index_add_(0, tok, h * top_k_weights[tok, pos, None])
        return final

    return forward


def kv_scales_of(out_dir):
    """{layer: (k scales, v scales)} as float32 [nkv or 1] from the checkpoint, or None without."""
    import re

    import safetensors

    out = {}
    with safetensors.safe_open(os.path.join(out_dir, "model.safetensors"), "pt") as f:
        for key in f.keys():
            m = re.search(r"layers\.(\d+)\.self_attn\.(k|v)_scale$", key)
            if m:
                pair = out.setdefault(int(m.group(1)), [None, None])
                pair[0 if m.group(2) == "k" else 1] = f.get_tensor(key).float().reshape(-1)
    return out or None


def act_quant_modules(out_dir):
    """{module: (input scale, output scale)} of the checkpoint's static activation scales (0 = none)."""
    import safetensors

    out = {}
    with safetensors.safe_open(os.path.join(out_dir, "model.safetensors"), "pt") as f:
        for key in f.keys():
            for i, suffix in enumerate((".input_scale", ".output_scale")):
                if key.endswith(suffix):
                    name = key[: -len(suffix)]
                    s = out.setdefault(name, [0.0, 0.0])
                    s[i] = float(f.get_tensor(key).float().reshape(-1)[0])
    return out


def fake_quant_int8(x, s):
    """vLLM's static per-tensor int8 fake quantization, in fp32: clamp(round(x / s), -128, 127) * s."""
    import torch

    return x if s <= 0 else torch.clamp(torch.round(x / s), -128.0, 127.0) * s


def fp8_modules(out_dir):
    """{module: exact fp32 weight} of the checkpoint's F8_E4M3 weights (e4m3 value times its scale)."""
    import safetensors
    import torch

    out = {}
    with safetensors.safe_open(os.path.join(out_dir, "model.safetensors"), "pt") as f:
        for key in f.keys():
            if key.endswith(".weight") and f.get_slice(key).get_dtype() == "F8_E4M3":
                name = key[: -len(".weight")]
                out[name] = f.get_tensor(key).float() * f.get_tensor(name + ".weight_scale").float()
    return out


def fp8_per_token(x):
    """vLLM's dynamic per-token FP8 quantization in fp32: s = max(amax / 448, 1 / (448 * 512)), then
    x -> e4m3(x / s) * s (round to nearest even, saturated)."""
    import torch

    s = torch.clamp(x.abs().amax(dim=-1, keepdim=True) / 448.0, min=1.0 / (448.0 * 512.0))
    q = torch.clamp(x / s, -448.0, 448.0).to(torch.float8_e4m3fn).float()
    return q * s


def reference(out_dir, prompts, weight_modules, out_stem):
    import torch
    import transformers
    from golden_io import GoldenWriter, eager_experts, float32_model

    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = eager_experts(transformers.AutoModelForCausalLM.from_pretrained(out_dir, dtype=torch.bfloat16,
                                                                            attn_implementation="eager"))
    model.eval()
    with torch.no_grad():
        model(input_ids=torch.tensor([[2]]), use_cache=False)  # the library decompresses on the first forward
    modules = dict(model.named_modules())
    writer = GoldenWriter()
    for name in weight_modules:
        w = modules[name].weight.data
        assert w.dtype == torch.bfloat16, (name, w.dtype)
        writer.add("weights." + name, w.clone())
    # A fresh float32 model holding exactly the decompressed weights (transformers refuses .float() on a
    # quantized model).
    qparams = (".weight_scale", ".weight_shape", ".weight_zero_point", ".weight_g_idx", ".input_scale", ".output_scale",
               ".k_scale", ".v_scale")
    state = {k: v.float() for k, v in model.state_dict().items() if not k.endswith(qparams)}
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    fp8 = fp8_modules(out_dir)
    for name, w in fp8.items():  # the exact e4m3 · s (12 significant bits: exact in fp32), not bf16(e4m3 · s)
        state[name + ".weight"] = w
    import re

    stacks = {}  # per-expert FP8 members back into the stacks transformers holds
    for name in [n for n in fp8 if re.fullmatch(r".*\.experts\.\d+\.(gate|up|down)_proj", n)]:
        prefix, e, proj = re.fullmatch(r"(.*\.experts)\.(\d+)\.(gate|up|down)_proj", name).groups()
        stacks.setdefault(prefix, {}).setdefault(int(e), {})[proj] = fp8.pop(name)
        state.pop(name + ".weight")
    for prefix, experts in stacks.items():
        order = sorted(experts)
        state[prefix + ".gate_up_proj"] = torch.stack([torch.cat([experts[e]["gate"], experts[e]["up"]])
                                                       for e in order])
        state[prefix + ".down_proj"] = torch.stack([experts[e]["down"] for e in order])
    model = float32_model(config, state)
    modules = dict(model.named_modules())
    for prefix in stacks:  # vLLM's FP8 MoE: per-token FP8 inputs to every expert
        modules[prefix].forward = fp8_experts_forward(modules[prefix])
    for name in fp8:  # vLLM's dynamic per-token FP8 activations, in fp32 (spec §2.2)
        modules[name].register_forward_pre_hook(lambda _m, args: (fp8_per_token(args[0]),) + tuple(args[1:]))
    for name, (s_in, s_out) in act_quant_modules(out_dir).items():  # static int8 a8/o8 (spec §2.4)
        modules[name].register_forward_pre_hook(
            lambda _m, args, s=s_in: (fake_quant_int8(args[0], s),) + tuple(args[1:]))
        modules[name].register_forward_hook(lambda _m, _args, out, s=s_out: fake_quant_int8(out, s))
    kv_scales = kv_scales_of(out_dir)  # a static FP8 KV cache: keys and values through e4m3 with them
    meta = []
    with torch.no_grad():
        for p in prompts:
            ids = torch.tensor([p["token_ids"]], dtype=torch.long)
            if kv_scales is None:
                logits = model(input_ids=ids, use_cache=False).logits[0].float()
            else:
                cache = kv_cache_class()(model.config, scales=kv_scales)
                logits = model(input_ids=ids, past_key_values=cache, use_cache=True).logits[0].float()
            writer.add(p["name"] + ".prefill_logits", logits)
            meta.append({"name": p["name"], "token_ids": p["token_ids"]})
    import compressed_tensors
    writer.write(os.path.dirname(out_stem), os.path.basename(out_stem),
                 {"checkpoint": os.path.basename(out_dir), "prompts": meta, "weights": weight_modules,
                  "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                               "compressed_tensors": compressed_tensors.__version__}})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    args = ap.parse_args()
    out_root = os.path.join(args.out, "ct")
    os.makedirs(out_root, exist_ok=True)
    for name, (ckpt, weights_args, ignore, weight_modules) in MODELS.items():
        src = os.path.join(args.out, ckpt)
        out_dir = os.path.join(out_root, name)
        write_checkpoint(src, weights_args, ignore, out_dir)
        reference(out_dir, golden_prompts(src), weight_modules, os.path.join(out_root, name + ".logits"))
        print(f"wrote {out_dir}")
    for name, (base, strategy, scale_dtype) in KV_MODELS.items():
        ckpt, _, _, weight_modules = MODELS[base]
        src = os.path.join(args.out, ckpt)
        out_dir = os.path.join(out_root, name)
        write_kv_checkpoint(os.path.join(out_root, base), src, golden_prompts(src), strategy, scale_dtype, out_dir)
        reference(out_dir, golden_prompts(src), weight_modules, os.path.join(out_root, name + ".logits"))
        print(f"wrote {out_dir}")
    for name, base in EXPERT_MODELS.items():
        ckpt, _, _, weight_modules = MODELS[base]
        src = os.path.join(args.out, ckpt)
        out_dir = os.path.join(out_root, name)
        write_expert_checkpoint(os.path.join(out_root, base), out_dir)
        reference(out_dir, golden_prompts(src), weight_modules, os.path.join(out_root, name + ".logits"))
        print(f"wrote {out_dir}")
    src = os.path.join(args.out, "gemma4/t1")
    out_dir = os.path.join(out_root, "t1_mobile")
    write_mobile_checkpoint(src, golden_prompts(src), out_dir)
    reference(out_dir, golden_prompts(src), MOBILE_WEIGHTS, os.path.join(out_root, "t1_mobile.logits"))
    print(f"wrote {out_dir}")
    import compressed_tensors
    import torch
    import transformers
    update_manifest(args.out, "ct", {
        "generator": "scripts/golden/make_ct_goldens.py",
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "transformers": transformers.__version__, "compressed_tensors": compressed_tensors.__version__},
        "models": {name: {"checkpoint": ckpt, "weights": w, "ignore": ig} for name, (ckpt, w, ig, _) in MODELS.items()},
        "mobile": {"checkpoint": "gemma4/t1", "groups": [[g[0], g[1], g[2], g[3], g[4]] for g in MOBILE_GROUPS]},
        "experts_unfused": {name: {"extends": b} for name, b in EXPERT_MODELS.items()},
        "kv_cache": {name: {"extends": b, "strategy": st, "scale_dtype": dt}
                     for name, (b, st, dt) in KV_MODELS.items()},
    })


if __name__ == "__main__":
    main()
