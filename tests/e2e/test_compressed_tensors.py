"""compressed-tensors checkpoints through `gemmad serve`, as the seeds' w4a16 and fp8 variants run them.

The seeds' YAML recipes name a `w4a16` variant (google/gemma-4-*-it-qat-w4a16-ct) and an `fp8` one
(RedHatAI/gemma-4-*-it-FP8-dynamic, with `--kv-cache-dtype fp8`): `vllm serve MODEL_ID` with the recipe's base
args, its default features' args (tool calling, reasoning) and the variant's extra args. Here those commands
run verbatim (vllm -> gemmad) over a fake HF cache holding, under those repo ids, the e2e model written by
`gemmad make-test-model --weight-format w4a16|fp8`: int4 symmetric groups of 32 packed as Google's QAT files
are (weight_packed / weight_scale / weight_shape), or FP8 E4M3 weights per channel with the FP8_DYNAMIC scheme
(the 26B-A4B repo: the e2e-moe preset with every expert unfused into FP8 Linears, as RedHat's file is), with the
quantization_config in config.json, and answer the openai client. Around it: vLLM's --quantization rules, static
FP8 KV cache scales (kv_cache_scheme), and malformed quantization configs and tensors as one-line load errors
naming the file and the module. (Numerics against transformers: tests/model/ct_golden_test.cc.)"""
import json
import os
import re
import shutil
import subprocess

import pytest

import gemmad_e2e as e2e

W4A16_REPOS = ["google/gemma-4-E2B-it-qat-w4a16-ct", "google/gemma-4-E4B-it-qat-w4a16-ct",
               "google/gemma-4-31B-it-qat-w4a16-ct"]
MOBILE_REPOS = ["google/gemma-4-E2B-it-qat-mobile-ct", "google/gemma-4-E4B-it-qat-mobile-ct"]
FP8_REPOS = ["RedHatAI/gemma-4-E2B-it-FP8-dynamic", "RedHatAI/gemma-4-E4B-it-FP8-dynamic",
             "RedHatAI/gemma-4-31B-it-FP8-dynamic", "RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic"]
DEFAULT_FEATURES = ("tool_calling", "reasoning")  # the recipes' defaults (seed 000: `features`)


def w4a16_dir():
    return e2e.generated_model("e2e_w4a16", ["--preset", "e2e", "--weight-format", "w4a16"])


def w4a16_home():
    d = w4a16_dir()
    return e2e.hf_home_for(d, W4A16_REPOS, "hf_home_w4a16-" + os.path.basename(d).split("-")[-1])


def fp8_moe_dir():
    """The e2e-moe preset (26B-A4B-like) in RedHat's FP8 layout: every expert's gate / up / down its own FP8 Linear."""
    return e2e.generated_model("e2e_moe_fp8", ["--preset", "e2e-moe", "--weight-format", "fp8"])


def fp8_home():
    """The 26B-A4B repo holds the MoE model (unfused FP8 experts), the others the e2e model in FP8."""
    d, moe = e2e.generated_model("e2e_fp8", ["--preset", "e2e", "--weight-format", "fp8"]), fp8_moe_dir()
    repos = {r: (moe if "26B-A4B" in r else d) for r in FP8_REPOS}
    key = os.path.basename(d).split("-")[-1] + os.path.basename(moe).split("-")[-1]
    return e2e.hf_home_for(repos, None, "hf_home_fp8-" + key)


def mobile_home():
    d = e2e.generated_model("e2e_mobile", ["--preset", "e2e", "--weight-format", "mobile"])
    return e2e.hf_home_for(d, MOBILE_REPOS, "hf_home_mobile-" + os.path.basename(d).split("-")[-1])


VARIANTS = {  # variant: (repos, HF home, what the load log says)
    "w4a16": (W4A16_REPOS, w4a16_home, "read in place as int4 blocks of 32"),
    "fp8": (FP8_REPOS, fp8_home, "as FP8 rows"),
    "mobile": (MOBILE_REPOS, mobile_home, "with static int8 activations"),
}


def seed_variant_commands(variant):
    """[(seed file, args after `serve`)] of every YAML recipe with that variant."""
    out = []
    for seed, doc in e2e.seed_recipes():
        if variant not in (doc.get("variants") or {}):
            continue
        v = doc["variants"][variant]
        args = [v["model_id"]] + list(doc["model"].get("base_args") or [])
        for feature in DEFAULT_FEATURES:
            args += list((doc.get("features") or {}).get(feature, {}).get("args") or [])
        args += list(v.get("extra_args") or [])
        out.append((seed, args))
    return out


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_seeds_variant_commands_answer(variant):
    """`vllm serve <variant model_id> <the recipe's args>` (fp8 adds `--kv-cache-dtype fp8`: an FP8 E4M3 cache with
    a scale of 1.0, RedHat's files bringing no KV scales)."""
    repos, home, loaded = VARIANTS[variant]
    commands = seed_variant_commands(variant)
    assert commands, f"no seed has a {variant} variant"
    for seed, args in commands:
        assert args[0] in repos, args[0]
        with e2e.Server(args, env={"HF_HOME": home()}, name="ct-seed", startup_timeout=180) as s:
            log = s.log()
            assert "compressed-tensors checkpoint:" in log and loaded in log, log
            client = s.client()
            assert [m.id for m in client.models.list().data] == [args[0]]
            r = client.chat.completions.create(model=args[0], messages=[{"role": "user", "content": "Hello!"}],
                                               max_tokens=12, temperature=0, logprobs=True, top_logprobs=2)
            c = r.choices[0]
            assert r.usage.completion_tokens > 0 and c.finish_reason in ("stop", "length"), r
            assert len(c.logprobs.content) == r.usage.completion_tokens
            again = client.chat.completions.create(model=args[0], messages=[{"role": "user", "content": "Hello!"}],
                                                   max_tokens=12, temperature=0)
            assert again.choices[0].message.content == c.message.content  # greedy is deterministic


def test_unfused_fp8_experts_are_read_as_the_moe_stacks():
    """RedHat's 26B-A4B FP8 layout: the per-expert FP8 matrices load as the MoE stacks, read as FP8 rows (none
    dequantized), and the model answers, greedy deterministic (numerics: CtGolden t2_fp8_experts; the seeds' 26B-A4B
    FP8 command runs on this model in test_the_seeds_variant_commands_answer)."""
    d = fp8_moe_dir()
    with open(os.path.join(d, "model.safetensors"), "rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
    assert header["model.layers.0.experts.7.down_proj.weight"]["dtype"] == "F8_E4M3"
    assert "model.layers.0.experts.gate_up_proj" not in header
    with e2e.Server([d], name="ct-moe") as s:
        assert "0 dequantized" in s.log(), s.log()
        client = s.client()
        kw = dict(model=d, messages=[{"role": "user", "content": "Tell me about the sea."}], max_tokens=16,
                  temperature=0, logprobs=True)
        a = client.chat.completions.create(**kw).choices[0]
        b = client.chat.completions.create(**kw).choices[0]
        assert a.message.content == b.message.content and len(a.logprobs.content) > 0


@pytest.mark.parametrize("variant", ["w4a16", "fp8", "mobile"])
def test_generate_on_the_quantized_file_differs_from_the_dense_one_as_quantization_does(variant):
    """The quantized weights are what runs: the same seed's dense model gives other logprobs, close ones."""
    dense = e2e.model_dir()
    packed = e2e.generated_model("e2e_" + variant, ["--preset", "e2e", "--weight-format", variant])

    def first_logprob(model):
        out = subprocess.run([e2e.BIN, "generate", model, "--prompt", "The capital of France is", "--max-tokens", "1",
                              "--logprobs", "5"], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        line = [l for l in out.stdout.splitlines() if l.startswith("{")][0]
        return json.loads(line)

    a, b = first_logprob(dense), first_logprob(packed)
    assert a["logprob"] != b["logprob"]
    top_a = {t["id"] for t in a["top_logprobs"]}
    top_b = {t["id"] for t in b["top_logprobs"]}
    # mobile's int2 embeddings and int2/int8 layers move the tail more: the greedy token must stay.
    assert len(top_a & top_b) >= (1 if variant == "mobile" else 2), (a, b)
    assert a["id"] in top_b, (a, b)


def start_fails(args, env=None):
    s = e2e.Server(args, env=env, name="ct-fail")
    with pytest.raises(RuntimeError) as e:
        s.start()
    return str(e.value)


def test_quantization_flag_follows_vllm():
    home = {"HF_HOME": w4a16_home()}
    repo = W4A16_REPOS[0]
    msg = start_fails([repo, "--quantization", "int4"], env=home)
    assert ("Quantization method specified in the model config (compressed-tensors) does not match the quantization "
            "method specified in the `quantization` argument (int4).") in msg, msg
    with e2e.Server([repo, "--quantization", "compressed-tensors"], env=home, name="ct-q") as s:
        e2e.assert_still_serving(s)
    msg = start_fails([e2e.DEFAULT_REPO, "--quantization", "compressed-tensors"])
    assert "has no compressed-tensors quantization_config" in msg, msg


def broken_copy(tmp_path, name, edit_config=None, edit_tensors=None):
    src = w4a16_dir()
    d = tmp_path / name
    d.mkdir()
    for f in os.listdir(src):
        if f not in ("config.json", "model.safetensors"):
            os.link(os.path.join(src, f), d / f)
    with open(os.path.join(src, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    if edit_config:
        edit_config(cfg["quantization_config"])
    (d / "config.json").write_text(json.dumps(cfg))
    if edit_tensors:
        edit_tensors(os.path.join(src, "model.safetensors"), d / "model.safetensors")
    else:
        os.link(os.path.join(src, "model.safetensors"), d / "model.safetensors")
    return str(d)


def flatten_scale(src, dst):
    """Copies a safetensors file with MODULE's weight_scale [N, G] described as [N * G] (same bytes)."""
    raw = open(src, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    rows, groups = header[MODULE + ".weight_scale"]["shape"]
    header[MODULE + ".weight_scale"]["shape"] = [rows * groups]
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (n - len(text)) if len(text) <= n else b""
    assert len(text) == n
    open(dst, "wb").write(n.to_bytes(8, "little") + text + raw[8 + n:])


GROUP = ["config_groups", "group_0", "weights"]
MODULE = "model.language_model.layers.0.self_attn.q_proj"
BROKEN = [
    ("method", lambda q: q.update(quant_method="awq"), None, 'quantization method "awq" is not supported'),
    ("no_group_size", lambda q: q["config_groups"]["group_0"]["weights"].pop("group_size"), None,
     "strategy group needs a group_size"),
    ("bits", lambda q: q["config_groups"]["group_0"]["weights"].update(num_bits=8), None,
     "but int8 rows of"),
    ("activations", lambda q: q["config_groups"]["group_0"].update(
        input_activations={"num_bits": 8, "type": "float", "strategy": "token", "dynamic": True}), None,
     "quantized activations (float8 token symmetric dynamic) are not supported yet"),
    ("no_scheme", lambda q: q["ignore"].append("re:.*q_proj"), None,
     "has packed weights but the quantization_config gives it no weight scheme"),
    ("bad_regex", lambda q: q["ignore"].append("re:(("), None, "is not a valid regular expression"),
    ("scale_shape", None, lambda s, d: flatten_scale(s, d), "weight_scale is [128]"),
    ("kv_scheme_int", lambda q: q.update(kv_cache_scheme={"num_bits": 8, "type": "int", "symmetric": True,
                                                          "strategy": "tensor", "dynamic": False}), None,
     "only num_bits=8 and type=float are supported for the KV cache"),
    ("kv_scheme_dynamic", lambda q: q.update(kv_cache_scheme={"num_bits": 8, "type": "float", "symmetric": True,
                                                              "strategy": "token", "dynamic": True}), None,
     "only static symmetric scales per tensor or per attention head"),
    ("kv_scales_missing", lambda q: q.update(kv_cache_scheme={"num_bits": 8, "type": "float", "symmetric": True,
                                                              "strategy": "tensor", "dynamic": False}), None,
     "has no k_scale / v_scale"),
]


@pytest.mark.parametrize("name,edit_config,edit_tensors,needle", BROKEN, ids=[b[0] for b in BROKEN])
def test_malformed_checkpoints_are_one_line_errors(tmp_path, name, edit_config, edit_tensors, needle):
    d = broken_copy(tmp_path, name, edit_config, edit_tensors)
    out = subprocess.run([e2e.BIN, "serve", d, "--port", str(e2e.free_port())], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode != 0
    # The source's checks end in a usage line; the checkpoint's against config.json (KV scales per layer) in the
    # one ERROR line of a model that does not load.
    errors = [l for l in out.stderr.splitlines() if l.startswith("gemmad serve: error:") or l.startswith("ERROR")]
    assert len(errors) == 1, out.stderr
    assert needle in errors[0] and "config.json" in errors[0], errors[0]


def kv_scales_dir(strategy):
    return e2e.generated_model("e2e_fp8_kv_" + strategy, ["--preset", "e2e", "--weight-format", "fp8",
                                                          "--kv-cache-scheme", strategy])


def first_answer(args):
    """(KV groups' dtypes from the startup log, the greedy answer's log-probabilities)."""
    with e2e.Server(args, name="ct-kv") as s:
        log = s.log()
        dtypes = set(re.findall(r"KV group .+?: \d+ blocks of \d+ tokens \([\d.]+ MiB, (\w+)\)", log))
        client = s.client()
        r = client.chat.completions.create(model=args[0], messages=[{"role": "user", "content": "Hello there!"}],
                                           max_tokens=16, temperature=0, logprobs=True)
        assert r.usage.completion_tokens > 0, r
        return dtypes, [t.logprob for t in r.choices[0].logprobs.content], log


@pytest.mark.parametrize("strategy", ["tensor", "attn_head"])
def test_checkpoint_kv_cache_scales_choose_and_scale_the_fp8_cache(strategy):
    """A kv_cache_scheme checkpoint (static FP8 KV scales per tensor or per KV head): with --kv-cache-dtype auto the
    cache is FP8 E4M3 (vLLM's choice for such a checkpoint) and `fp8` gives the very same answer; `bfloat16` keeps a
    bf16 cache, the scales unused, and the answer moves."""
    d = kv_scales_dir(strategy)
    inspect = json.loads(subprocess.run([e2e.BIN, "inspect", d], capture_output=True, text=True, check=True).stdout)
    assert inspect["kv_cache"]["dtype"] == "fp8_e4m3" and inspect["kv_cache"]["checkpoint_scales"]
    dense = json.loads(subprocess.run([e2e.BIN, "inspect", e2e.model_dir()], capture_output=True, text=True,
                                      check=True).stdout)
    assert 2 * inspect["kv_cache"]["bytes_per_token_all_groups"] == dense["kv_cache"]["bytes_per_token_all_groups"]
    auto_dtypes, auto_lp, log = first_answer([d])
    assert auto_dtypes == {"F8_E4M3"}, auto_dtypes
    assert "static FP8 KV cache scales" in log, log
    fp8_dtypes, fp8_lp, _ = first_answer([d, "--kv-cache-dtype", "fp8"])
    assert fp8_dtypes == {"F8_E4M3"} and fp8_lp == auto_lp
    bf16_dtypes, bf16_lp, _ = first_answer([d, "--kv-cache-dtype", "bfloat16"])
    assert bf16_dtypes == {"BF16"}, bf16_dtypes
    assert bf16_lp != auto_lp
    assert abs(bf16_lp[0] - auto_lp[0]) < 1.0, (bf16_lp[0], auto_lp[0])  # the same model, another KV rounding


def test_per_head_kv_scales_split_across_ranks():
    """-tp 2 splits the KV heads, and with them the per-head KV scales: the same greedy answer as one process. The
    ranks' all-reduced residual differs from one process's in the last bits, and a key or value near an E4M3 rounding
    boundary then takes the other step (6 % of that element), so log-probabilities agree to about 1e-2 here, where a
    bf16 cache agrees to 1e-3 (test_tensor_parallel.py). Which head got which scale: tp_parity_test.cc."""
    d = kv_scales_dir("attn_head")
    answers = []
    for extra in ([], ["-tp", "2"]):
        with e2e.Server([d] + extra, name="ct-kv-tp") as s:
            r = s.client().completions.create(model=d, prompt="Hello there, how are", max_tokens=12, temperature=0,
                                              logprobs=1)
            answers.append((r.choices[0].text, r.choices[0].logprobs.token_logprobs))
    (text_a, lp_a), (text_b, lp_b) = answers
    assert text_a == text_b
    assert max(abs(x - y) for x, y in zip(lp_a, lp_b)) < 2e-2, (lp_a, lp_b)


def test_mtp_drafts_over_the_scaled_fp8_cache_and_change_nothing():
    """The MTP assistant attends over the target's FP8 cache with the target's per-head scales: greedy output
    with speculation is the output without it, and drafts are made and checked."""
    target = kv_scales_dir("attn_head")
    assistant = e2e.generated_model("e2e_assistant_fp8_kv", ["--assistant-for", target, "--seed", "1"])
    config = json.dumps({"method": "mtp", "model": assistant, "num_speculative_tokens": 2})
    kw = dict(prompt="Hello there, how are", max_tokens=24, temperature=0, logprobs=1)
    with e2e.Server([target], name="ct-kv-plain") as s:
        a = s.client().completions.create(model=target, **kw).choices[0]
    with e2e.Server([target, "--speculative-config", config], name="ct-kv-mtp") as s:
        b = s.client().completions.create(model=target, **kw).choices[0]
        assert s.metric("vllm:spec_decode_num_draft_tokens_total") > 0
    assert b.text == a.text
    assert max(abs(x - y) for x, y in zip(a.logprobs.token_logprobs, b.logprobs.token_logprobs)) < 1e-3


def renamed_copy(tmp_path, name, src, rename):
    """A copy of checkpoint `src` whose safetensors header renames tensors by `rename(name) -> name` (same data)."""
    d = tmp_path / name
    d.mkdir()
    for f in os.listdir(src):
        if f != "model.safetensors":
            os.link(os.path.join(src, f), d / f)
    raw = open(os.path.join(src, "model.safetensors"), "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    header = {rename(k): v for k, v in header.items()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    (d / "model.safetensors").write_bytes(len(text).to_bytes(8, "little") + text + raw[8 + n:])
    return str(d)


EXPERTS_BROKEN = [
    ("expert_without_up", lambda k: k.replace("experts.3.up_proj", "experts.3.mid_proj"), "has no up_proj"),
    ("expert_gap", lambda k: k.replace("experts.7.", "experts.9."), "has 8 per-expert modules but expert 9"),
]


@pytest.mark.parametrize("name,rename,needle", EXPERTS_BROKEN, ids=[b[0] for b in EXPERTS_BROKEN])
def test_malformed_unfused_experts_are_one_line_errors(tmp_path, name, rename, needle):
    d = renamed_copy(tmp_path, name, fp8_moe_dir(), rename)
    out = subprocess.run([e2e.BIN, "serve", d, "--port", str(e2e.free_port())], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode != 0
    errors = [l for l in out.stderr.splitlines() if l.startswith("gemmad serve: error:")]
    assert len(errors) == 1 and needle in errors[0] and "config.json" in errors[0], out.stderr


def test_mobile_int2_embeddings_are_read_in_place():
    """The mobile file's int2 per-row embeddings (weight-only) load as int4 blocks, read as stored by the gather and
    the tied LM head instead of a bf16 copy 8x their size, its int4/int2 Linears as code tables and its int8 PLE
    gates as int8 rows; the model still computes in bf16 (its norms' dtype), so
    the KV cache is bf16 as for the dense model, not the f32 a block-quantized embedding alone would suggest."""
    d = e2e.generated_model("e2e_mobile", ["--preset", "e2e", "--weight-format", "mobile"])
    with open(os.path.join(d, "config.json"), encoding="utf-8") as f:
        groups = json.load(f)["quantization_config"]["config_groups"]
    assert groups["embed"]["weights"]["num_bits"] == 2 and groups["embed"]["input_activations"] is None
    with e2e.Server([d], name="ct-mobile") as s:
        log = s.log()
        assert "1 modules read in place as int4 blocks of 32" in log, log
        # Its int4/int2 per-channel Linears (static int8 activations around them) are read in place as code tables
        # of their reference values, and its int8 PLE gates as int8 rows; left dequantized: the per-layer embedding
        # table, whose 48-element rows at this tiny shape are not whole blocks of 32.
        m = re.search(r"(\d+) as code tables per row, 0 as FP8 rows, (\d+) as int8 rows, (\d+) dequantized", log)
        assert m and int(m.group(1)) > int(m.group(2)) > int(m.group(3)), log
        assert set(re.findall(r"KV group .+?: \d+ blocks of \d+ tokens \([\d.]+ MiB, (\w+)\)", log)) == {"BF16"}, log
        r = s.client().completions.create(model=d, prompt="The capital of France is", max_tokens=8, temperature=0)
        assert r.usage.completion_tokens == 8


@pytest.mark.parametrize("args,needle", [
    (["--weight-format", "dense", "--kv-cache-scheme", "tensor"], "--kv-cache-scheme needs a quantized --weight-format"),
    (["--weight-format", "fp8", "--kv-cache-scheme", "channel"], "--kv-cache-scheme must be tensor or attn_head"),
])
def test_make_test_model_kv_cache_scheme_usage_errors(tmp_path, args, needle):
    out = subprocess.run([e2e.BIN, "make-test-model", str(tmp_path / "m"), "--preset", "t1"] + args,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and needle in out.stderr.splitlines()[0], out.stderr
