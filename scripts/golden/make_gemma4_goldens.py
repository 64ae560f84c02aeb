#!/usr/bin/env python3
"""Builds the Gemma 4 reference checkpoints T1-T3 and their goldens with Hugging Face transformers.

Run with the dev environment (scripts/requirements-dev.txt; never in CI):
    /work/venv-dev/bin/python scripts/golden/make_gemma4_goldens.py [--out tests/golden]

What it does (text-model.md §14): for each of T1, T2, T3 (scripts/golden/gemma4_configs.py) build a
Gemma4ForCausalLM in float32 with eager attention and eager experts, randomise it (randomize():
norms, layer scalars and router scales ~ U(0.5, 1.5), the final norm's U(0.5, 1.5) times a gain,
token embeddings ~ N(0, EMBED_STD^2), per-layer embeddings ~ N(0, 1), other matrices ~ N(0, 0.1)),
save it as an HF model directory, and record for two fixed prompts (24 and 61 token ids spanning
0..511): full-prefill logits, incremental-decode logits (prefill 5, then one token at a time), all
hidden states (output_hidden_states semantics: entry L is final-normed) and a 32-token greedy
continuation with its top-1 minus top-2 logit margin at every step. Then the same in bfloat16
(weights cast and saved as a bf16 checkpoint), and a re-save of T1 under the multimodal prefix
`model.language_model.` with a released-style config.json. Checks along the way: cache vs no-cache
agreement, decode vs prefill agreement, greedy vs generate(), that the multimodal re-save reloads
to identical logits, and that the greedy continuations are not degenerate (check_greedy(): at least
MIN_DISTINCT distinct tokens of 32, no cycle of length <= 2 at the end, fp32 margins at least
MIN_MARGIN everywhere and MIN_MEDIAN_MARGIN in the median). Writes tests/golden/gemma4/** and its
entries of MANIFEST.json. Running it twice produces bit-identical files (fixed seed, one thread,
deterministic algorithms).

Why the embeddings are small (a deviation from §14's "embeddings with std ~ 1"): the embeddings are
tied and scaled by sqrt(H) on input, and every sublayer output passes a post-norm (RMS ~ 1), so
with N(0, 1) embeddings the residual stream is dominated by the current token's embedding (RMS
sqrt(H) ~ 8-10 against ~1 per sublayer); its logit for its own token is then ~sqrt(H) standard
deviations above the rest, every position predicts its own input and greedy runs repeat one token
(the goldens before issue 19 did exactly that, so a wrong attention or KV cache could not change the
greedy ids). With EMBED_STD = 0.03 the embedding is a small part of the residual stream and the
layers decide the next token. The logit scale that std ~ 1 used to give comes from the final
norm's gain instead: pre-cap logits have a standard deviation of about LOGIT_STD_PER_CAP x the
model's final_logit_softcapping (30 -> ~6; T2's cap 5 -> ~1, so the tanh still bends its top
logits without flattening them). The continuations of these random models are sensitive: bf16
weights alone move the logits by a few percent of their spread, enough to change a greedy token
within a few steps, so the bf16 greedy ids are recorded (with how many leading tokens equal the
fp32 ones) but the C++ bf16 tests compare logits, with a tolerance stated relative to how far
transformers' own bf16 run is from the fp32 golden (tests/model/golden_test.cc).
"""
import argparse
import copy
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile

import numpy
import safetensors
import torch
import transformers
from transformers import DynamicCache, Gemma4Config, Gemma4ForCausalLM, Gemma4ForConditionalGeneration, Gemma4TextConfig

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemma4_configs import MODELS  # noqa: E402
from golden_io import GoldenWriter, safetensors_header, sha256_file, update_manifest, write_json  # noqa: E402

PINNED = {"transformers": "5.25.0", "torch": "2.15.0"}
SEED = 20260614
GREEDY_TOKENS = 32
DECODE_PREFILL = 5
MULTIMODAL_MODEL = "t1"
BF16_COMMITTED = ("t1",)
# Randomisation (see the module docstring).
EMBED_STD = 0.03
LOGIT_STD_PER_CAP = 0.2
# Non-degenerate greedy continuations (check_greedy; tests/checkpoint/goldens_test.cc asserts the
# same distinct-token and cycle bounds on the committed files). MIN_MARGIN is 4x the C++ fp32
# logit tolerance (5e-4, tests/model/golden_test.cc), so an implementation within it picks the same
# greedy tokens. F32_TOLERANCE: cache vs no-cache and decode vs prefill in fp32 (transformers
# measured up to 1.2e-4 on T3's logits, which reach |21|).
MIN_DISTINCT = 16
MAX_DEGENERATE_CYCLE = 2
MIN_MARGIN = 2e-3
F32_TOLERANCE = 5e-4
MIN_MEDIAN_MARGIN = 0.1


def check_pins():
    got = {"transformers": transformers.__version__, "torch": torch.__version__.split("+")[0]}
    if got != PINNED:
        sys.exit(f"pinned {PINNED}, found {got}: install scripts/requirements-dev.txt")


def prompts():
    g = torch.Generator().manual_seed(SEED)
    p24 = torch.randint(0, 512, (24,), generator=g)
    p61 = torch.randint(0, 512, (61,), generator=g)
    p24[0], p24[1], p24[2] = 2, 0, 511  # bos, the lowest and the highest id
    p61[30], p61[31] = 511, 0
    return {"p24": p24.tolist(), "p61": p61.tolist()}


def final_norm_gain(config):
    """Scales the final norm so that pre-cap logits have std ~ LOGIT_STD_PER_CAP * softcap: a
    normed state (RMS ~ 1 per lane, sqrt(H) in norm) times N(0, EMBED_STD^2) embedding rows."""
    return LOGIT_STD_PER_CAP * config.final_logit_softcapping / (config.hidden_size ** 0.5 * EMBED_STD)


def randomize(model, seed):
    g = torch.Generator().manual_seed(seed)
    gain = final_norm_gain(model.config)
    with torch.no_grad():
        for name, t in sorted(model.state_dict().items()):
            unit = ("norm" in name and name.endswith(".weight")) or name.endswith(
                ("layer_scalar", "router.scale", "router.per_expert_scale"))
            if unit:
                t.copy_(torch.rand(t.shape, generator=g) + 0.5)
                if name == "model.norm.weight":
                    t.mul_(gain)
            elif name.endswith("embed_tokens.weight"):  # tied with lm_head.weight (sorted before it)
                t.copy_(torch.randn(t.shape, generator=g) * EMBED_STD)
            elif name.endswith("embed_tokens_per_layer.weight"):
                t.copy_(torch.randn(t.shape, generator=g))
            else:
                t.copy_(torch.randn(t.shape, generator=g) * 0.1)
    assert torch.equal(model.lm_head.weight, model.model.embed_tokens.weight), "embeddings must stay tied"


def build(name, index):
    config = Gemma4TextConfig(**MODELS[name])
    torch.manual_seed(SEED + index)
    model = Gemma4ForCausalLM(config).eval()
    model.set_attn_implementation("eager")
    model.set_experts_implementation("eager")
    assert model.config._attn_implementation == "eager" and model.config._experts_implementation == "eager"
    randomize(model, SEED + 100 + index)
    return model


def max_diff(a, b):
    return float((a.float() - b.float()).abs().max())


@torch.no_grad()
def run_prompt(model, ids, writer, key, with_hidden):
    x = torch.tensor([ids])
    out = model(x, use_cache=True)
    nocache = model(x, use_cache=False)
    base = model.model(x, output_hidden_states=True, use_cache=False)
    # HF semantics: hidden_states[-1] is the final-normed output (== last_hidden_state).
    assert torch.equal(base.hidden_states[-1], base.last_hidden_state)
    cache = DynamicCache(config=model.config)
    steps = [model(x[:, :DECODE_PREFILL], cache=cache, use_cache=True).logits[0]]
    for t in range(DECODE_PREFILL, x.shape[1]):
        steps.append(model(x[:, t:t + 1], cache=cache, use_cache=True).logits[0])
    decode = torch.cat(steps, dim=0)
    greedy, margins, agrees = greedy_continuation(model, x)
    writer.add(f"{key}.prefill_logits", out.logits[0])
    writer.add(f"{key}.decode_logits", decode)
    if with_hidden:
        writer.add(f"{key}.hidden_states", torch.stack([h[0] for h in base.hidden_states]))
    return {"name": key, "token_ids": ids, "greedy_ids": greedy, "greedy_matches_generate": agrees,
            "greedy_margins": [round(m, 6) for m in margins], "greedy_distinct_tokens": len(set(greedy)),
            "max_abs_diff_cache_vs_nocache": max_diff(out.logits, nocache.logits),
            "max_abs_diff_decode_vs_prefill": max_diff(decode, out.logits[0]),
            "has_hidden_states": with_hidden}


@torch.no_grad()
def greedy_continuation(model, x):
    cache = DynamicCache(config=model.config)
    logits = model(x, cache=cache, use_cache=True).logits[0, -1]
    ids, margins = [], []
    for _ in range(GREEDY_TOKENS):
        nxt = int(torch.argmax(logits))
        top2 = torch.topk(logits.float(), 2).values
        ids.append(nxt)
        margins.append(float(top2[0] - top2[1]))
        logits = model(torch.tensor([[nxt]]), cache=cache, use_cache=True).logits[0, -1]
    gen_config = copy.deepcopy(model.generation_config)
    gen_config.eos_token_id = None
    gen_config.do_sample = False
    gen_config.max_new_tokens = GREEDY_TOKENS
    gen_config.pad_token_id = 0
    # An explicit all-ones mask: otherwise generate() masks every prompt token equal to the pad id
    # (0, which both prompts contain), and the continuations differ from the very first token.
    gen = model.generate(x, attention_mask=torch.ones_like(x), generation_config=gen_config)
    agrees = gen[0, x.shape[1]:].tolist() == ids
    # In fp32 they must agree; in bf16 near-ties (bf16 logits are coarse, T2's soft-cap is 5) may
    # resolve differently because generate() computes only the last position's logits.
    assert agrees or model.dtype == torch.bfloat16, "greedy loop and generate() disagree"
    return ids, margins, agrees


def shortest_cycle(ids, tail=16):
    """The shortest period p <= MAX_DEGENERATE_CYCLE with which the last `tail` ids repeat, else 0."""
    end = ids[-tail:]
    for p in range(1, MAX_DEGENERATE_CYCLE + 1):
        if all(end[i] == end[i + p] for i in range(len(end) - p)):
            return p
    return 0


def check_greedy(what, ids, margins, dtype):
    """Fails the run when a greedy continuation is degenerate (one repeated token, a short cycle) or,
    in fp32, when its margins are too small for the C++ argmax to be a meaningful check."""
    problems = []
    if len(set(ids)) < MIN_DISTINCT:
        problems.append(f"{len(set(ids))} distinct tokens < {MIN_DISTINCT}")
    if shortest_cycle(ids):
        problems.append(f"ends in a cycle of length {shortest_cycle(ids)}")
    if dtype == torch.float32:
        if min(margins) < MIN_MARGIN:
            problems.append(f"min top-1/top-2 margin {min(margins):.3g} < {MIN_MARGIN}")
        if statistics.median(margins) < MIN_MEDIAN_MARGIN:
            problems.append(f"median margin {statistics.median(margins):.3g} < {MIN_MEDIAN_MARGIN}")
    if problems:
        sys.exit(f"{what}: degenerate greedy continuation {ids}: " + "; ".join(problems))


def dump_goldens(model, directory, stem, prompt_ids, tolerance, extra=None, reference=None):
    """Writes <directory>/<stem>.{json,bin}; returns the prompt records. reference: the fp32 records,
    for the bf16 run's count of leading greedy tokens equal to fp32's."""
    writer = GoldenWriter()
    records = []
    for i, (key, ids) in enumerate(prompt_ids.items()):
        records.append(run_prompt(model, ids, writer, key, with_hidden=(i == 0)))
    for i, r in enumerate(records):
        what = f"{os.path.basename(directory)}/{stem}/{r['name']}"
        check_greedy(what, r["greedy_ids"], r["greedy_margins"], model.dtype)
        if reference is not None:
            want = reference[i]["greedy_ids"]
            r["greedy_leading_tokens_equal_f32"] = next(
                (j for j, (a, b) in enumerate(zip(r["greedy_ids"], want)) if a != b), len(want))
        print(f"{what}: {r['greedy_distinct_tokens']} distinct greedy tokens, margin min "
              f"{min(r['greedy_margins']):.4f} median {statistics.median(r['greedy_margins']):.4f}"
              + (f", {r['greedy_leading_tokens_equal_f32']} leading tokens equal fp32" if reference else ""),
              flush=True)
        for k in ("max_abs_diff_cache_vs_nocache", "max_abs_diff_decode_vs_prefill"):
            if tolerance is not None and r[k] > tolerance:
                sys.exit(f"{directory}/{stem}: {r['name']} {k} = {r[k]} > {tolerance}")
    cfg = model.config
    index = {"model": os.path.basename(directory), "weights_dtype": str(model.dtype).replace("torch.", ""),
             "attn_implementation": "eager", "experts_implementation": "eager",
             "num_hidden_layers": cfg.num_hidden_layers, "hidden_size": cfg.hidden_size, "vocab_size": cfg.vocab_size,
             "hidden_states_semantics": "entry 0 = scaled embedding, entry k (1..L-1) = output of layer k-1, "
                                        "entry L = final-normed output",
             "decode_procedure": f"prefill {DECODE_PREFILL} tokens, then one token per step with a DynamicCache",
             "prompts": records, **(extra or {})}
    writer.write(directory, stem, index)
    return records


def load(directory, dtype, cls=Gemma4ForCausalLM):
    model = cls.from_pretrained(directory, dtype=dtype, use_kernels=False, attn_implementation="eager",
                                experts_implementation="eager").eval()
    assert model.config.get_text_config()._experts_implementation == "eager"
    return model


def save(model, directory):
    if os.path.isdir(directory):
        shutil.rmtree(directory)
    model.save_pretrained(directory)


def released_layout(config_json):
    """Rewrites a multimodal config.json saved by transformers into the released checkpoints' field
    layout: text_config with global_head_dim / num_global_key_value_heads, no per_layer_config."""
    with open(config_json, encoding="utf-8") as f:
        cfg = json.load(f)
    text = cfg["text_config"]
    overrides = text.pop("per_layer_config")
    full = next(iter(overrides.values()))
    text["global_head_dim"] = full["head_dim"]
    text["num_global_key_value_heads"] = full.get("num_key_value_heads")
    text.pop("_name_or_path", None)
    text.pop("architectures", None)
    cfg["eos_token_id"] = [1, 106]
    with open(config_json, "w", encoding="utf-8") as f:
        f.write(json.dumps(cfg, indent=2, sort_keys=True) + "\n")


@torch.no_grad()
def multimodal_resave(text_model, directory, prompt_ids):
    cfg = Gemma4Config(text_config=text_model.config.to_dict(), vision_config=None, audio_config=None)
    mm = Gemma4ForConditionalGeneration(cfg).eval().to(text_model.dtype)
    sd = {k.replace("model.", "model.language_model.", 1): v for k, v in text_model.state_dict().items()}
    result = mm.load_state_dict(sd, strict=False)
    assert not result.missing_keys and not result.unexpected_keys, result
    save(mm, directory)
    released_layout(os.path.join(directory, "config.json"))
    reloaded = load(directory, text_model.dtype, Gemma4ForConditionalGeneration)
    for ids in prompt_ids.values():
        x = torch.tensor([ids])
        assert torch.equal(reloaded(input_ids=x).logits, text_model(x).logits), "multimodal re-save differs"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    args = ap.parse_args()
    check_pins()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    root = os.path.abspath(args.out)
    area = os.path.join(root, "gemma4")
    prompt_ids = prompts()
    headers = {}
    for index, name in enumerate(MODELS):
        built = build(name, index)
        model_dir = os.path.join(area, name)
        save(built, model_dir)
        model = load(model_dir, torch.float32)
        f32_records = dump_goldens(model, model_dir, "golden_f32", prompt_ids, tolerance=F32_TOLERANCE)
        # Only T1's bf16 checkpoint is committed (the tests/golden size budget); for the others the
        # sha256 of the transformers-saved files is recorded and tests rebuild them from the fp32
        # checkpoint by round-to-nearest-even (tests/checkpoint/gemma4_golden.h checks the hashes).
        bf16_dir = os.path.join(model_dir, "bf16") if name in BF16_COMMITTED else tempfile.mkdtemp()
        save(copy.deepcopy(built).to(torch.bfloat16), bf16_dir)
        # Reloaded as users load it: weights bf16, RoPE inverse frequencies stay fp32 (a .to(bf16) copy
        # would round them too).
        bf16 = load(bf16_dir, torch.bfloat16)
        files = ("config.json", "generation_config.json", "model.safetensors")
        bf16_hashes = {f: sha256_file(os.path.join(bf16_dir, f)) for f in files}
        dump_goldens(bf16, model_dir, "golden_bf16", prompt_ids, tolerance=None,
                     extra={"hf_bf16_checkpoint_sha256": bf16_hashes, "bf16_checkpoint_committed": name in BF16_COMMITTED},
                     reference=f32_records)
        headers[f"{name}/f32"] = safetensors_header(os.path.join(model_dir, "model.safetensors"))[0]
        headers[f"{name}/bf16"] = safetensors_header(os.path.join(bf16_dir, "model.safetensors"))[0]
        if name == MULTIMODAL_MODEL:
            mm_dir = os.path.join(model_dir, "multimodal")
            multimodal_resave(bf16, mm_dir, prompt_ids)
            headers[f"{name}/multimodal_bf16"] = safetensors_header(os.path.join(mm_dir, "model.safetensors"))[0]
        if name not in BF16_COMMITTED:
            shutil.rmtree(bf16_dir)
        print(f"{name}: done", flush=True)
    write_json(os.path.join(area, "transformers_headers.json"), headers)
    versions = {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
                "safetensors": safetensors.__version__, "numpy": numpy.__version__}
    update_manifest(root, "gemma4", {"generator": "scripts/golden/make_gemma4_goldens.py", "seed": SEED,
                                     "versions": versions, "torch_threads": 1, "deterministic_algorithms": True,
                                     "embed_std": EMBED_STD, "logit_std_per_cap": LOGIT_STD_PER_CAP})


if __name__ == "__main__":
    main()
