#!/usr/bin/env python3
"""Builds tiny Gemma 4 assistant (MTP drafter) checkpoints matched to the reference targets T1-T3 and
records goldens of what transformers' assistant computes (text-model.md §12).

Run with the dev environment (scripts/requirements-dev.txt; never in CI; about a minute on one core):
    .venv/bin/python scripts/golden/make_mtp_goldens.py [--out tests/golden]
Pinned: transformers 5.25.0, torch 2.15.0 (checked at start). Reads the targets from <out>/gemma4/,
writes <out>/mtp/<pair>/** and <out>/mtp/transformers_headers.json (the assistants' safetensors
headers) and the mtp entries of MANIFEST.json; <out>/mtp/README.md (hand-written: the file format)
is left as it is and only its sha256 is recorded. Running it twice produces bit-identical files
(fixed seeds, one thread, deterministic algorithms, float32, eager attention and experts).

Pairs (PAIRS; the targets are the committed tests/golden/gemma4/<t> checkpoints, loaded, never
rewritten):
  t1  target T1 (E-like: KV sharing, PLE, no k_eq_v; donors: layer 3 sliding, layer 2 full)
      + an ordered-embeddings assistant (centroid masking: 16 clusters of 32 tokens, top 4),
      hidden 32, 4 layers S,S,S,F, 4 heads.
  t2  target T2 (non-E: MoE, k_eq_v, no KV sharing; donors: layer 4 sliding, layer 5 full)
      + a plain assistant (tied LM head over the whole vocabulary), hidden 48, 4 layers S,S,S,F.
  t3  target T3 (spec §14's optional T4 pair: KV sharing, PLE, k_eq_v with global KV heads 1,
      6 heads; donors: layer 2 sliding, layer 3 full) + an ordered-embeddings assistant, hidden 32,
      2 layers S,F, 2 heads.
Every assistant takes the target's KV heads, head dims, k_eq_v flag (full-layer KV heads =
num_global_key_value_heads), sliding window and RoPE parameters, backbone_hidden_size = the target's
hidden size, num_kv_shared_layers = num_hidden_layers, no PLE/MoE/double-wide MLP, no soft-cap.

Weights: randomised as make_gemma4_goldens.py's randomize() does (norms and layer scalars
~ U(0.5, 1.5), the tied embedding ~ N(0, 0.03^2), other matrices ~ N(0, 0.1^2), token_ordering a
random permutation; pre_projection then rescaled so its output has RMS 1 on the distillation data,
because the target's final-normed hidden state has RMS ~ 4-26 and would otherwise drown the
assistant's attention). A random drafter agrees with the target on ~1/512 of its drafts, so the
assistant is then briefly distilled (Adam, distill()) on the target's own greedy continuations of the
two golden prompts and of DISTILL_RANDOM_SEQS random prompts, with the clean semantics below
(cross-entropy against the target's greedy token for each of the K steps with teacher forcing,
an MSE pulling b' towards the target's next final-normed hidden state, and for ordered assistants a
cross-entropy on the centroid logits), stopping at the first step whose mean training accuracy
reaches the pair's distill_accuracy (chosen so that some drafts are accepted and many are not: T2's
assistant accepts every draft at 0.85). A pair whose drafts come out degenerate (no or only
accepted drafts, fewer than MIN_DISTINCT_DRAFTS distinct) or with a top-1/top-2 margin below
MIN_DRAFT_MARGIN is rebuilt from the next seeds (MAX_ATTEMPTS). Greedy acceptance observed (accepted
drafts / drafted, p24 and p61): t1 hf 0.48, 0.28, clean 0.74, 0.59; t2 hf 0.06, 0.15, clean 0.40,
0.47; t3 hf 0.17, 0.11, clean 0.49, 0.27 (MANIFEST.json areas.mtp.pairs records them). The "hf"
rates are lower because of quirk 2 below: after a rejection the assistant reads rejected K/V.

Goldens, per pair and prompt (p24, p61 of tests/golden/gemma4/<t>/golden_f32.json, 32 new tokens,
greedy, eos disabled, K = NUM_DRAFT = 4 drafts per round):
  - plain greedy generate() of the target (checked equal to the committed greedy_ids) and
    transformers' assisted generate(assistant_model=...) (checked equal: speculation must not change
    greedy output);
  - the draft rounds of two emulations of transformers' loop (_assisted_decoding +
    SinglePositionMultiTokenCandidateGenerator), each round: token tau, position p, backbone vector
    b, the donor K/V rows the assistant attends (absolute positions, and the token ids the target
    computed them from), and for each draft step the full-vocabulary draft logits (with the centroid
    mask fill), the drafted token, the assistant's final-normed hidden h and the next backbone b';
    then the target's verification (argmax per window position, accepted count, appended tokens):
      "hf"    exactly what transformers 5.25 does (every step is checked bit-identical to the
              assistant calls that transformers' generate() makes; see the quirks below);
      "clean" the same loop, but the assistant attends only to the accepted tokens' K/V (positions
              0..p-1; sliding layers the last W+1 of them), what an engine that drops rejected
              K/V sees. In rounds after the prefill or after a fully accepted round both are equal.
  - for a few rounds the attended donor K/V tensors themselves (for a pure one-step test).
  Every step is also recomputed with spec_draft_step(), an independent implementation of §12.3/12.4
  from the state dicts, and the largest difference is recorded (the run fails above SPEC_TOLERANCE).
The format of every file is in tests/golden/mtp/README.md.

Where transformers 5.25 disagrees with (or pins down) spec §12 (transformers wins here):
  1. Sliding-layer window: the assistant attends to the last W+1 entries of the sliding donor tensor
     (create_bidirectional_sliding_window_mask with |q - kv| <= W on the kv-flipped tensor, then
     flipped back), not "about W". In a clean round these are positions p-1-W .. p-1; the query's
     own position p is never among them (the target has not processed tau yet).
  2. Target K/V after a partially rejected round (m < n drafts accepted): the candidate generator
     crops the donor tensors to the first len(input_ids) rows. Full layers: positions 0..p, and row p
     holds the K/V of the REJECTED draft d_{m+1} (the target computed it in the verification pass;
     the bonus token at p has no K/V yet). Sliding layers: the crop is a no-op (the tensor holds only
     W-1+n+1 rows once past the window), so the tensor ends at the last verified position L-1+n and the W+1 attended rows
     are L+n-1-W .. L+n-1, which include the n-m rejected positions p .. L+n-1 and drop older
     accepted ones. After the prefill or a fully accepted round the K/V are exactly positions
     0..p-1. The "hf" rounds record this; "clean" rounds show the alternative.
  3. The draft loop never stops early on EOS (spec: "stop early on EOS"): it always runs
     min(num_assistant_tokens, max_length - len(input_ids) - 1) steps; EOS only truncates the
     accepted tokens during verification. num_assistant_tokens comes from the ASSISTANT's
     generation_config (default 20; the saved assistants set 4); no heuristic schedule is applied.
  4. b is hidden_states[-1] of the latest target forward (final-normed: equal to the model's
     last_hidden_state) at the index of the last accepted token: position p-1, as the spec says.
  5. Centroid fill value = min over the selected logits - 1 (as the spec says; in a batch the min is
     taken over the whole batch). With centroid_intermediate_top_k clusters, top-k picks clusters
     by h·centroidsᵀ; the selected logits are h·E[ids]ᵀ of the assistant's tied embedding.
  6. The token input is the target's embed_tokens module: E_target[tau] * sqrt(Hb) with sqrt(Hb) as
     an fp32 tensor cast to the weight dtype (fp32 here: 8.0 for T1/T2, fp32(sqrt(96)) for T3).
"""
import argparse
import json
import os
import platform
import shutil
import sys
from contextlib import contextmanager

import numpy
import safetensors
import torch
import torch.nn.functional as nnf
import transformers
from transformers import (DynamicCache, Gemma4AssistantConfig, Gemma4AssistantForCausalLM, Gemma4ForCausalLM,
                          Gemma4TextConfig)
from transformers.generation import candidate_generator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemma4_configs import COMMON, MODELS, F, S  # noqa: E402
from golden_io import GoldenWriter, safetensors_header, update_manifest, write_json  # noqa: E402

PINNED = {"transformers": "5.25.0", "torch": "2.15.0"}
SEED = 20260801
NUM_DRAFT = 4
NEW_TOKENS = 32
EMBED_STD = 0.03
DISTILL_RANDOM_SEQS = 8
DISTILL_RANDOM_PROMPT = 8
DISTILL_RANDOM_LEN = 64
DISTILL_LR = 1e-2
DISTILL_MAX_STEPS = 300
KV_ROUNDS = 3  # rounds per (prompt, semantics) whose attended K/V tensors are stored
SPEC_TOLERANCE = 1e-4
MIN_DISTINCT_DRAFTS = 8
# Every draft's top-1/top-2 logit margin: 4x the C++ fp32 logit tolerance (as make_gemma4_goldens.py's
# MIN_MARGIN), so an implementation within tolerance drafts the same tokens. A pair whose drafts
# miss it (or the acceptance/variety bounds) is rebuilt with the next seeds, up to MAX_ATTEMPTS.
MIN_DRAFT_MARGIN = 2e-3
MAX_ATTEMPTS = 8

PAIRS = {
    "t1": dict(target="t1", hidden_size=32, intermediate_size=64, layer_types=[S, S, S, F], num_attention_heads=4,
               ordered=dict(num_centroids=16, centroid_intermediate_top_k=4), distill_accuracy=0.85),
    "t2": dict(target="t2", hidden_size=48, intermediate_size=96, layer_types=[S, S, S, F], num_attention_heads=4,
               ordered=None, distill_accuracy=0.7),
    "t3": dict(target="t3", hidden_size=32, intermediate_size=64, layer_types=[S, F], num_attention_heads=2,
               ordered=dict(num_centroids=16, centroid_intermediate_top_k=4), distill_accuracy=0.85),
}
TYPES = (S, F)


def check_pins():
    got = {"transformers": transformers.__version__, "torch": torch.__version__.split("+")[0]}
    if got != PINNED:
        sys.exit(f"pinned {PINNED}, found {got}: install scripts/requirements-dev.txt")


# ----------------------------------------------------------------------------- models

def assistant_config(pair):
    t = MODELS[pair["target"]]
    n = len(pair["layer_types"])
    text = dict(COMMON, hidden_size=pair["hidden_size"], intermediate_size=pair["intermediate_size"],
                num_hidden_layers=n, layer_types=list(pair["layer_types"]),
                num_attention_heads=pair["num_attention_heads"], num_key_value_heads=t["num_key_value_heads"],
                num_global_key_value_heads=t["num_global_key_value_heads"], head_dim=t["head_dim"],
                global_head_dim=t["global_head_dim"], attention_k_eq_v=t["attention_k_eq_v"],
                sliding_window=t["sliding_window"], num_kv_shared_layers=n, use_double_wide_mlp=False,
                hidden_size_per_layer_input=0, vocab_size_per_layer_input=0, enable_moe_block=False,
                final_logit_softcapping=None)
    extra = dict(use_ordered_embeddings=True, **pair["ordered"]) if pair["ordered"] else {}
    return Gemma4AssistantConfig(text_config=Gemma4TextConfig(**text), backbone_hidden_size=t["hidden_size"], **extra)


def kv_geometry(text_config, layer_type):
    """(KV heads, head dim) of a layer type, from the per-layer config transformers resolves."""
    i = text_config.layer_types.index(layer_type)
    lc = text_config.per_layer_config[i]
    return lc.num_key_value_heads, lc.head_dim


def donor_layers(target_config):
    """The target layers whose K/V land in shared_kv_states (kv_sharing_modes 'store')."""
    modes = target_config.kv_sharing_modes
    return {target_config.layer_types[i]: i for i, m in enumerate(modes) if m == "store"}


def load_target(name, root):
    model = Gemma4ForCausalLM.from_pretrained(os.path.join(root, "gemma4", name), dtype=torch.float32, use_kernels=False,
                                              attn_implementation="eager", experts_implementation="eager").eval()
    return model


def load_assistant(directory):
    model = Gemma4AssistantForCausalLM.from_pretrained(directory, dtype=torch.float32, use_kernels=False,
                                                       attn_implementation="eager").eval()
    assert model.config.get_text_config()._attn_implementation == "eager"
    return model


def randomize(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, t in sorted(model.state_dict().items()):
            if name == "lm_head.weight":
                continue  # tied to model.embed_tokens.weight
            if name.endswith("token_ordering"):
                t.copy_(torch.randperm(t.shape[0], generator=g))
            elif ("norm" in name and name.endswith(".weight")) or name.endswith("layer_scalar"):
                t.copy_(torch.rand(t.shape, generator=g) + 0.5)
            elif name.endswith("embed_tokens.weight"):
                t.copy_(torch.randn(t.shape, generator=g) * EMBED_STD)
            else:
                t.copy_(torch.randn(t.shape, generator=g) * 0.1)
    assert torch.equal(model.lm_head.weight, model.model.embed_tokens.weight), "embeddings must stay tied"


@torch.no_grad()
def greedy_sequences(target, prompts, n_new):
    x = torch.tensor(prompts)
    out = target.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=n_new, do_sample=False,
                          eos_token_id=None, pad_token_id=0)
    return out.tolist()


def distill(asst, target, sequences, seed, target_accuracy):
    """Trains the assistant briefly on the target's greedy continuations (module docstring). Returns a
    record of the run."""
    K, W = NUM_DRAFT, asst.config.get_text_config().sliding_window
    emb = target.get_input_embeddings()
    tmax = max(len(s) for s in sequences)
    toks, b0, labels, h_next, seq_of, pos = [], [], [], [], [], []
    kv = {t: ([], []) for t in TYPES}
    with torch.no_grad():
        for si, s in enumerate(sequences):
            out = target(torch.tensor([s]), use_cache=False, output_hidden_states=True, return_shared_kv_states=True)
            hid, logits = out.hidden_states[-1][0], out.logits[0]
            for t in TYPES:
                k, v = out.shared_kv_states[t]
                kv[t][0].append(nnf.pad(k[0], (0, 0, 0, tmax - len(s))))
                kv[t][1].append(nnf.pad(v[0], (0, 0, 0, tmax - len(s))))
            for p in range(2, len(s) - K + 1):
                toks.append(torch.tensor(s[p:p + K]))
                b0.append(hid[p - 1])
                labels.append(logits[p:p + K].argmax(-1))
                h_next.append(hid[p:p + K])
                seq_of.append(si)
                pos.append(p)
        toks, b0, labels, h_next = torch.stack(toks), torch.stack(b0), torch.stack(labels), torch.stack(h_next)
        e_toks = emb(toks)  # the target's scaled token embeddings (not trained)
    seq_of, pos = torch.tensor(seq_of), torch.tensor(pos)
    shared = {t: (torch.stack(kv[t][0])[seq_of], torch.stack(kv[t][1])[seq_of]) for t in TYPES}
    j = torch.arange(tmax)[None]
    neg = torch.finfo(torch.float32).min
    masks = {F: torch.where(j < pos[:, None], 0.0, neg)[:, None, None, :],
             S: torch.where((j < pos[:, None]) & (j >= pos[:, None] - 1 - W), 0.0, neg)[:, None, None, :]}
    b_scale2 = h_next.pow(2).mean()
    ordered = asst.config.use_ordered_embeddings
    if ordered:
        me = asst.masked_embedding
        cluster_of = torch.empty(me.vocab_size, dtype=torch.long)
        cluster_of[me.token_ordering] = torch.arange(me.vocab_size) // me.vocab_size_per_centroid
    with torch.no_grad():
        x0 = asst.pre_projection(torch.cat([e_toks[:, 0], b0], -1))
        rescale = float(1.0 / x0.pow(2).mean().sqrt())
        asst.pre_projection.weight.mul_(rescale)
    torch.manual_seed(seed)
    opt = torch.optim.Adam([p for _, p in sorted(asst.named_parameters())], lr=DISTILL_LR)
    acc = []
    for step in range(1, DISTILL_MAX_STEPS + 1):
        opt.zero_grad()
        b, loss, acc = b0, 0.0, []
        for k in range(K):
            x = asst.pre_projection(torch.cat([e_toks[:, k], b], -1))[:, None]
            h = asst.model(inputs_embeds=x, attention_mask=masks, position_ids=pos[:, None], shared_kv_states=shared,
                           use_cache=False).last_hidden_state[:, 0]
            b = asst.post_projection(h)
            logits = h @ asst.model.embed_tokens.weight.T
            loss = loss + nnf.cross_entropy(logits, labels[:, k]) + (b - h_next[:, k]).pow(2).mean() / b_scale2
            if ordered:
                loss = loss + nnf.cross_entropy(asst.masked_embedding.centroids(h), cluster_of[labels[:, k]])
            acc.append(float((logits.argmax(-1) == labels[:, k]).float().mean()))
        if sum(acc) / K >= target_accuracy:
            break
        loss.backward()
        opt.step()
    else:
        sys.exit(f"distillation did not reach {target_accuracy} in {DISTILL_MAX_STEPS} steps: {acc}")
    asst.zero_grad(set_to_none=True)
    return {"adam_steps": step - 1, "examples": int(toks.shape[0]), "train_accuracy_per_step": [round(a, 4) for a in acc],
            "pre_projection_rescale": rescale}


def build_assistant(pair_name, index, attempt, target, root_prompts):
    pair = PAIRS[pair_name]
    seed = SEED + 100 * index + 10 * attempt
    torch.manual_seed(seed)
    asst = Gemma4AssistantForCausalLM(assistant_config(pair)).eval()
    asst.set_attn_implementation("eager")
    randomize(asst, seed + 1)
    g = torch.Generator().manual_seed(seed + 2)
    rand = torch.randint(0, target.config.vocab_size, (DISTILL_RANDOM_SEQS, DISTILL_RANDOM_PROMPT), generator=g).tolist()
    sequences = [p["token_ids"] + p["greedy_ids"] for p in root_prompts]
    sequences += greedy_sequences(target, rand, DISTILL_RANDOM_LEN - DISTILL_RANDOM_PROMPT)
    record = distill(asst, target, sequences, seed + 3, pair["distill_accuracy"])
    record["seed"] = seed
    asst.generation_config.num_assistant_tokens = NUM_DRAFT
    asst.generation_config.num_assistant_tokens_schedule = "constant"
    return asst, record


# ----------------------------------------------------------------------------- the spec's draft step

def rms_norm(x, w, eps):
    x = x * torch.pow(x.pow(2).mean(-1, keepdim=True) + eps, -0.5)
    return x if w is None else x * w


def rope(x, pos, rope_params, dim):
    """Rotate-half RoPE; 'proportional': only the first partial_rotary_factor * dim/2 pairs rotate,
    with exponents over the whole head dim."""
    half = dim // 2
    n_rot = half if rope_params["rope_type"] == "default" else int(rope_params["partial_rotary_factor"] * half)
    inv = torch.zeros(half, dtype=torch.float64)
    inv[:n_rot] = rope_params["rope_theta"] ** (-torch.arange(n_rot, dtype=torch.float64) * 2 / dim)
    ang = pos * inv
    cos, sin = torch.cos(ang).float(), torch.sin(ang).float()
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


def spec_draft_step(sd, cfg, target_embedding, tau, b, p, kv):
    """text-model.md §12.3/12.4 written out with plain tensors: sd = the assistant's state dict,
    kv = {layer type: (K [nkv, n, d], V [nkv, n, d])} of exactly the attended donor rows."""
    tc = cfg.get_text_config()
    eps = tc.rms_norm_eps
    e = target_embedding[tau] * torch.tensor(cfg.backbone_hidden_size ** 0.5, dtype=torch.float32)
    x = torch.cat([e, b]) @ sd["pre_projection.weight"].T
    for i, layer_type in enumerate(tc.layer_types):
        w = lambda n: sd[f"model.layers.{i}.{n}"]  # noqa: E731
        k, v = kv[layer_type]
        nkv, n, d = k.shape
        nh = tc.num_attention_heads
        xn = rms_norm(x, w("input_layernorm.weight"), eps)
        q = (xn @ w("self_attn.q_proj.weight").T).view(nh, d)
        q = rope(rms_norm(q, w("self_attn.q_norm.weight"), eps), p, tc.rope_parameters[layer_type], d)
        kk = k.repeat_interleave(nh // nkv, 0)  # head h reads KV head h // (nh / nkv)
        vv = v.repeat_interleave(nh // nkv, 0)
        att = torch.softmax(torch.einsum("hd,hnd->hn", q, kk), -1)  # scale 1.0, every given row visible
        o = torch.einsum("hn,hnd->hd", att, vv).reshape(-1) @ w("self_attn.o_proj.weight").T
        x = x + rms_norm(o, w("post_attention_layernorm.weight"), eps)
        xn = rms_norm(x, w("pre_feedforward_layernorm.weight"), eps)
        mlp = (nnf.gelu(xn @ w("mlp.gate_proj.weight").T, approximate="tanh") * (xn @ w("mlp.up_proj.weight").T))
        x = x + rms_norm(mlp @ w("mlp.down_proj.weight").T, w("post_feedforward_layernorm.weight"), eps)
        x = x * w("layer_scalar")
    h = rms_norm(x, sd["model.norm.weight"], eps)
    b_next = h @ sd["post_projection.weight"].T
    table = sd["model.embed_tokens.weight"]
    if not cfg.use_ordered_embeddings:
        return h @ table.T, b_next, h
    top = torch.topk(h @ sd["masked_embedding.centroids.weight"].T, cfg.centroid_intermediate_top_k).indices
    ids = sd["masked_embedding.token_ordering"].view(cfg.num_centroids, -1)[top].reshape(-1)
    selected = table[ids] @ h
    logits = torch.full((table.shape[0],), float(selected.min()) - 1.0)
    logits[ids] = selected
    return logits, b_next, h


# ----------------------------------------------------------------------------- the draft loop

@contextmanager
def record_hf_calls(asst):
    """Records every assistant call transformers' generate() makes, and the candidate generator's inputs."""
    calls, rounds = [], []
    forward = asst.forward
    get_candidates = candidate_generator.SinglePositionMultiTokenCandidateGenerator.get_candidates

    def wrapped_forward(*args, **kw):
        out = forward(*args, **kw)
        calls.append({"inputs_embeds": kw["inputs_embeds"].clone(), "position_ids": kw["position_ids"].clone(),
                      "shared_kv_states": {t: (k.clone(), v.clone()) for t, (k, v) in kw["shared_kv_states"].items()},
                      "attention_mask": kw["attention_mask"], "logits": out.logits.clone(),
                      "b_next": out.last_hidden_state.clone()})
        return out

    def wrapped_get_candidates(self, input_ids, **kw):
        rounds.append({"len": input_ids.shape[1], "n_last_matches": kw.get("n_last_matches"),
                       "first": kw.get("is_first_iteration")})
        return get_candidates(self, input_ids, **kw)

    asst.forward = wrapped_forward
    candidate_generator.SinglePositionMultiTokenCandidateGenerator.get_candidates = wrapped_get_candidates
    try:
        yield calls, rounds
    finally:
        del asst.forward
        candidate_generator.SinglePositionMultiTokenCandidateGenerator.get_candidates = get_candidates


@torch.no_grad()
def run_loop(target, asst, prompt, semantics):
    """transformers' greedy assisted decoding with the assistant, step by step. semantics 'hf': the
    assistant gets exactly what SinglePositionMultiTokenCandidateGenerator passes; 'clean': the donor
    K/V of the accepted tokens only (positions 0..p-1)."""
    K = NUM_DRAFT
    W = asst.config.get_text_config().sliding_window
    max_length = len(prompt) + NEW_TOKENS
    emb = target.get_input_embeddings()
    captured = {}
    hook = asst.model.register_forward_hook(lambda m, i, o: captured.__setitem__("h", o.last_hidden_state))
    cache = DynamicCache(config=target.config)
    cache.activate_past_recording(recurrent_states_to_keep=K)
    seen = []  # token id at each position as the target last computed it (incl. rejected drafts)
    store = {}  # layer type -> (K, V) [nkv, max_length, d] by absolute position, last writer wins

    def forward(tokens, start, keep):
        out = target(input_ids=torch.tensor([tokens]), cache=cache, use_cache=True, output_hidden_states=True,
                     return_shared_kv_states=True, logits_to_keep=keep)
        end = start + len(tokens)
        seen[start:end] = tokens
        for t, (k, v) in out.shared_kv_states.items():
            if t not in store:
                store[t] = (k.new_zeros(k.shape[1], max_length, k.shape[3]), v.new_zeros(v.shape[1], max_length, v.shape[3]))
            n = k.shape[2]
            store[t][0][:, end - n:end] = k[0]
            store[t][1][:, end - n:end] = v[0]
        return out, end

    ids = list(prompt)
    out, end = forward(ids, 0, 1)
    ids.append(int(out.logits[0, -1].argmax()))
    cache.crop(0)
    forward_start, prefill, m = 0, True, 0
    rounds, forwards = [], 1
    while len(ids) < max_length:
        L = len(ids)
        nd = min(K, max_length - L - 1)
        drafts, rec = [], None
        if nd > 0:
            p, tau = L - 1, ids[-1]
            hid = out.hidden_states[-1][0]
            b_index = hid.shape[0] - 1 if prefill else m
            assert forward_start + b_index == p - 1
            b = hid[b_index]
            if semantics == "hf":
                shared, tensor_pos = {}, {}
                for t, (k, v) in out.shared_kv_states.items():
                    lo = end - k.shape[2]
                    shared[t] = (k[:, :, :L], v[:, :, :L])
                    tensor_pos[t] = (lo, lo + shared[t][0].shape[2])
            else:
                shared = {t: (k[None, :, :p].clone(), v[None, :, :p].clone()) for t, (k, v) in store.items()}
                tensor_pos = {t: (0, p) for t in store}
            visible = {F: tensor_pos[F],
                       S: (max(tensor_pos[S][0], tensor_pos[S][1] - (W + 1)), tensor_pos[S][1])}
            kv_hi = max(hi for _, hi in tensor_pos.values())
            rec = {"position": p, "tau": tau, "n_drafts": nd, "b_forward": "prefill" if prefill else "verify",
                   "b_index_in_forward": b_index, "tensor_positions": {t: list(r) for t, r in tensor_pos.items()},
                   "visible": {t: list(r) for t, r in visible.items()}, "kv_tokens_from_p": seen[p:kv_hi],
                   "rows_from_rejected_drafts": {t: [j for j in range(*visible[t]) if j >= p] for t in TYPES},
                   "steps": [], "kv": {t: tuple(x[0, :, visible[t][0] - tensor_pos[t][0]:visible[t][1] - tensor_pos[t][0]]
                                                 for x in shared[t]) for t in TYPES}}
            if semantics == "clean":
                assert seen[:p] == ids[:p]
            tok, bb = tau, b
            for _ in range(nd):
                inputs = torch.cat([emb(torch.tensor([[tok]])), bb[None, None]], -1)
                o = asst(inputs_embeds=inputs, attention_mask=None, position_ids=torch.tensor([[p]]),
                         shared_kv_states=shared, use_cache=False)
                logits = o.logits[0, 0]
                d = int(logits.argmax())
                step = {"tau": tok, "b_in": bb, "logits": logits, "draft": d, "b_out": o.last_hidden_state[0, 0],
                        "h": captured["h"][0, 0], "inputs_embeds": inputs, "shared": shared}
                rec["steps"].append(step)
                drafts.append(d)
                tok, bb = d, o.last_hidden_state[0, 0]
            prefill = False
        start = L - 1
        out, end = forward((ids + drafts)[start:], start, nd + 1)
        forwards += 1
        forward_start = start
        selected = out.logits[0, -(nd + 1):].argmax(-1).tolist()
        m = next((i for i in range(nd) if drafts[i] != selected[i]), nd)
        valid = selected[:m + 1][:max_length - L]
        m = len(valid) - 1
        ids += valid
        cache.crop(-(nd - m))
        if rec is not None:
            rec.update(target_argmax=selected, accepted=m, appended=valid)
            rounds.append(rec)
    hook.remove()
    return ids[len(prompt):], rounds, forwards


def compare_with_hf(rounds, calls, hf_rounds):
    """The 'hf' emulation must be exactly the calls transformers' generate() made."""
    steps = [s for r in rounds for s in r["steps"]]
    assert len(steps) == len(calls), (len(steps), len(calls))
    for s, c, r in zip(steps, calls, [r for r in rounds for _ in r["steps"]]):
        assert c["attention_mask"] is None
        assert int(c["position_ids"]) == r["position"]
        assert torch.equal(c["inputs_embeds"], s["inputs_embeds"]), "inputs_embeds differ"
        for t in TYPES:
            assert torch.equal(c["shared_kv_states"][t][0], s["shared"][t][0]), f"{t} K differ"
            assert torch.equal(c["shared_kv_states"][t][1], s["shared"][t][1]), f"{t} V differ"
        assert torch.equal(c["logits"][0, 0], s["logits"]), "logits differ"
        assert torch.equal(c["b_next"][0, 0], s["b_out"]), "b' differs"
    drafting = [h for h in hf_rounds if not h["first"]]
    assert [h["len"] - 1 for h in drafting][:len(rounds)] == [r["position"] for r in rounds]


def margins(logits):
    top = torch.topk(logits, 2).values
    return float(top[0] - top[1])


def dump_run(writer, key, rounds, asst, target_embedding, sd, spec_diff, with_kv):
    """Adds the arrays of one (prompt, semantics) run; returns its JSON record."""
    K = NUM_DRAFT
    cfg = asst.config
    hb, hd, vocab = cfg.backbone_hidden_size, cfg.get_text_config().hidden_size, cfg.get_text_config().vocab_size
    R = len(rounds)
    tau = torch.full((R, K), -1, dtype=torch.long)
    draft = torch.full((R, K), -1, dtype=torch.long)
    b_in, b_out = torch.zeros(R, K, hb), torch.zeros(R, K, hb)
    hidden, logits = torch.zeros(R, K, hd), torch.zeros(R, K, vocab)
    kv_rounds = []
    records = []
    prev = None
    for i, r in enumerate(rounds):
        for k, s in enumerate(r["steps"]):
            tau[i, k], draft[i, k] = s["tau"], s["draft"]
            b_in[i, k], b_out[i, k], hidden[i, k], logits[i, k] = s["b_in"], s["b_out"], s["h"], s["logits"]
            want_logits, want_b, want_h = spec_draft_step(sd, cfg, target_embedding, s["tau"], s["b_in"], r["position"],
                                                          r["kv"])
            for a, w in ((want_logits, s["logits"]), (want_b, s["b_out"]), (want_h, s["h"])):
                spec_diff[0] = max(spec_diff[0], float((a - w).abs().max()))
        after = "prefill" if prev is None else ("full_acceptance" if prev["accepted"] == prev["n_drafts"] else "rejection")
        store_kv = with_kv and len(kv_rounds) < KV_ROUNDS and after not in {kr[1] for kr in kv_rounds}
        if store_kv:
            kv_rounds.append((i, after))
            for t in TYPES:
                writer.add(f"{key}.r{i}.{t}.k", r["kv"][t][0])
                writer.add(f"{key}.r{i}.{t}.v", r["kv"][t][1])
        rec = {k_: r[k_] for k_ in ("position", "tau", "n_drafts", "b_forward", "b_index_in_forward", "tensor_positions",
                                    "visible", "rows_from_rejected_drafts", "target_argmax", "accepted", "appended")}
        rec.update(round=i, after=after, drafts=[s["draft"] for s in r["steps"]], kv_arrays_stored=store_kv,
                   draft_margins=[round(margins(s["logits"]), 6) for s in r["steps"]], kv_tokens_from_p=r["kv_tokens_from_p"])
        if cfg.use_ordered_embeddings:
            rec["mask_fill"] = [float(s["logits"].min()) for s in r["steps"]]
            top = [torch.topk(s["h"] @ sd["masked_embedding.centroids.weight"].T, cfg.centroid_intermediate_top_k).indices.tolist()
                   for s in r["steps"]]
            rec["top_clusters"] = top
        records.append(rec)
        prev = r
    writer.add(f"{key}.tau", tau)
    writer.add(f"{key}.b_in", b_in)
    writer.add(f"{key}.hidden", hidden)
    writer.add(f"{key}.logits", logits)
    writer.add(f"{key}.draft", draft)
    writer.add(f"{key}.b_out", b_out)
    drafted = sum(r["n_drafts"] for r in rounds)
    accepted = sum(r["accepted"] for r in rounds)
    per_step = [sum(1 for r in rounds if r["n_drafts"] > k and r["accepted"] > k) for k in range(K)]
    per_step_n = [sum(1 for r in rounds if r["n_drafts"] > k) for k in range(K)]
    return {"rounds": records, "num_rounds": R, "drafted": drafted, "accepted": accepted,
            "acceptance_rate": round(accepted / drafted, 6), "accepted_at_step": per_step, "drafted_at_step": per_step_n,
            "kv_rounds": [i for i, _ in kv_rounds]}


@torch.no_grad()
def pair_goldens(pair_name, target, asst, prompts, directory, donors):
    writer = GoldenWriter()
    sd = {k: v.detach().clone() for k, v in asst.state_dict().items()}
    target_embedding = target.get_input_embeddings().weight.detach()
    spec_diff = [0.0]
    records, problems = [], []
    for pr in prompts:
        prompt = pr["token_ids"]
        x = torch.tensor([prompt])
        plain = target.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=NEW_TOKENS, do_sample=False,
                                eos_token_id=None, pad_token_id=0)[0, len(prompt):].tolist()
        assert plain == pr["greedy_ids"], f"{pair_name}/{pr['name']}: plain greedy differs from the committed golden"
        with record_hf_calls(asst) as (calls, hf_rounds):
            assisted = target.generate(x, attention_mask=torch.ones_like(x), assistant_model=asst,
                                       max_new_tokens=NEW_TOKENS, do_sample=False, eos_token_id=None,
                                       pad_token_id=0)[0, len(prompt):].tolist()
        assert assisted == plain, f"{pair_name}/{pr['name']}: assisted generate() changed the greedy output"
        rec = {"name": pr["name"], "token_ids": prompt, "greedy_ids": plain, "assisted_generate_ids": assisted}
        for semantics in ("hf", "clean"):
            got, rounds, forwards = run_loop(target, asst, prompt, semantics)
            assert got == plain, f"{pair_name}/{pr['name']}/{semantics}: emulation output differs"
            if semantics == "hf":
                compare_with_hf(rounds, calls, hf_rounds)
            run = dump_run(writer, f"{pr['name']}.{semantics}", rounds, asst, target_embedding, sd, spec_diff,
                           with_kv=pr is prompts[0])
            run["target_forwards"] = forwards
            rec[semantics] = run
            drafts = [d for r in run["rounds"] for d in r["drafts"]]
            run["distinct_drafts"] = len(set(drafts))
            run["min_draft_margin"] = min(m for r in run["rounds"] for m in r["draft_margins"])
            what = f"{pair_name}/{pr['name']}/{semantics}"
            print(f"{what}: {run['num_rounds']} rounds, accepted {run['accepted']}/{run['drafted']} drafts "
                  f"({run['acceptance_rate']:.3f}), per step {run['accepted_at_step']}/{run['drafted_at_step']}, "
                  f"{run['distinct_drafts']} distinct drafts, min margin {run['min_draft_margin']:.4f}", flush=True)
            if not 0 < run["accepted"] < run["drafted"]:
                problems.append(f"{what}: accepted {run['accepted']} of {run['drafted']}")
            if run["distinct_drafts"] < MIN_DISTINCT_DRAFTS:
                problems.append(f"{what}: {run['distinct_drafts']} distinct drafts < {MIN_DISTINCT_DRAFTS}")
            if run["min_draft_margin"] < MIN_DRAFT_MARGIN:
                problems.append(f"{what}: draft top-1/top-2 margin {run['min_draft_margin']} < {MIN_DRAFT_MARGIN}")
        records.append(rec)
    if spec_diff[0] > SPEC_TOLERANCE:
        sys.exit(f"{pair_name}: spec_draft_step differs from transformers by {spec_diff[0]}")
    cfg = asst.config
    tc = cfg.get_text_config()
    index = {
        "pair": pair_name, "target": f"gemma4/{PAIRS[pair_name]['target']}", "assistant": f"mtp/{pair_name}/assistant",
        "weights_dtype": "float32", "attn_implementation": "eager", "experts_implementation": "eager",
        "num_draft_tokens": NUM_DRAFT, "new_tokens": NEW_TOKENS, "vocab_size": tc.vocab_size,
        "backbone_hidden_size": cfg.backbone_hidden_size, "assistant_hidden_size": tc.hidden_size,
        "assistant_layer_types": list(tc.layer_types), "sliding_window": tc.sliding_window,
        "sliding_visible_rows": tc.sliding_window + 1,
        "donor_layers": donors,
        "kv_geometry": {t: dict(zip(("num_key_value_heads", "head_dim"), kv_geometry(tc, t))) for t in TYPES},
        "embed_scale": float(target.get_input_embeddings().embed_scale),
        "use_ordered_embeddings": bool(cfg.use_ordered_embeddings),
        "spec_reimplementation_max_abs_diff": spec_diff[0],
        "prompts": records,
    }
    if cfg.use_ordered_embeddings:
        index.update(num_centroids=cfg.num_centroids, centroid_intermediate_top_k=cfg.centroid_intermediate_top_k)
    writer.write(directory, "golden", index)
    return records, problems


def save(model, directory):
    if os.path.isdir(directory):
        shutil.rmtree(directory)
    model.save_pretrained(directory)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    args = ap.parse_args()
    check_pins()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    root = os.path.abspath(args.out)
    area = os.path.join(root, "mtp")
    os.makedirs(area, exist_ok=True)
    summary, headers = {}, {}
    for index, (name, pair) in enumerate(PAIRS.items()):
        target = load_target(pair["target"], root)
        with open(os.path.join(root, "gemma4", pair["target"], "golden_f32.json"), encoding="utf-8") as f:
            prompts = json.load(f)["prompts"]
        donors = donor_layers(target.config)
        pair_dir = os.path.join(area, name)
        for attempt in range(MAX_ATTEMPTS):
            built, distilled = build_assistant(name, index, attempt, target, prompts)
            if os.path.isdir(pair_dir):
                shutil.rmtree(pair_dir)
            os.makedirs(pair_dir)
            save(built, os.path.join(pair_dir, "assistant"))
            asst = load_assistant(os.path.join(pair_dir, "assistant"))
            for k, v in built.state_dict().items():
                assert torch.equal(v, asst.state_dict()[k]), f"{k} changed on reload"
            for t in TYPES:  # the assistant's attention geometry must be the target donors'
                assert kv_geometry(asst.config.get_text_config(), t) == kv_geometry(target.config, t), t
            records, problems = pair_goldens(name, target, asst, prompts, pair_dir, donors)
            if not problems:
                break
            print(f"{name}: attempt {attempt} rejected: " + "; ".join(problems), flush=True)
        else:
            sys.exit(f"{name}: no acceptable assistant in {MAX_ATTEMPTS} attempts")
        distilled["attempt"] = attempt
        headers[name] = safetensors_header(os.path.join(pair_dir, "assistant", "model.safetensors"))[0]
        summary[name] = {"target": f"gemma4/{pair['target']}", "distill": distilled,
                         "acceptance": {f"{r['name']}.{s}": r[s]["acceptance_rate"] for r in records for s in ("hf", "clean")}}
        print(f"{name}: done ({distilled['adam_steps']} distillation steps)", flush=True)
    write_json(os.path.join(area, "transformers_headers.json"), headers)
    versions = {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
                "safetensors": safetensors.__version__, "numpy": numpy.__version__}
    update_manifest(root, "mtp", {"generator": "scripts/golden/make_mtp_goldens.py", "seed": SEED, "versions": versions,
                                  "torch_threads": 1, "deterministic_algorithms": True, "num_draft_tokens": NUM_DRAFT,
                                  "pairs": summary})


if __name__ == "__main__":
    main()
