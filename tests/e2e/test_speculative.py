"""Speculative decoding with n-gram drafting (`--speculative-config '{"method": "ngram", ...}'`) through the
openai client: every output equals the plain server's, token for token (greedy and seeded sampling, chat and
completions, streaming, logprobs, stop strings, structured outputs, tool calls and reasoning), the drafts are
verified in the same step, and vLLM's spec-decode counters show on /metrics. On the random-weight model n-gram
drafts are rarely right, so a scripted output (the gemmad-testing seam) that repeats its prompt makes them
accepted. Bad configs are vLLM's one-line startup errors. MTP with a Gemma 4 assistant: the seeds' spec_decoding
command runs verbatim over a fake HF cache holding the e2e target and a random assistant fitted to it, and its answers
equal the plain server's (random drafts are rejected: the rejection path, through HTTP)."""
import json
import os
import subprocess

import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
SPEC = ["--speculative-config",
        json.dumps({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 1, "prompt_lookup_max": 3})]
PROMPTS = ["Hello!", "Write a short poem about the sea.", "Count: one two three one two three one two"]
REPEAT = "the quick brown fox jumps over the lazy dog and the quick brown fox jumps over the lazy dog again"


@pytest.fixture(scope="module")
def plain():
    yield from e2e.module_server([MODEL] + e2e.TOOL_FLAGS, name="spec-plain")


@pytest.fixture(scope="module")
def ngram():
    yield from e2e.module_server([MODEL] + e2e.TOOL_FLAGS + SPEC, name="spec-ngram")


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("spec") / "script.jsonl")
    s = e2e.Server([MODEL] + e2e.TOOL_FLAGS + SPEC, env={"GEMMAD_TEST_SCRIPTED_OUTPUT": path}, name="spec-scripted",
                   bin=e2e.TESTING_BIN)
    s.script_path = path
    s.start()
    yield s
    assert s.stop() == 0, s.log()


def chat(server, content, **kw):
    r = server.client().chat.completions.create(model=MODEL, messages=[{"role": "user", "content": content}], **kw)
    return r.choices[0]


def test_ngram_greedy_identical(plain, ngram):
    for p in PROMPTS:
        a = chat(plain, p, max_tokens=48, temperature=0, logprobs=True, top_logprobs=2)
        b = chat(ngram, p, max_tokens=48, temperature=0, logprobs=True, top_logprobs=2)
        assert b.message.content == a.message.content, p
        assert b.finish_reason == a.finish_reason
        la = [t.logprob for t in a.logprobs.content]
        lb = [t.logprob for t in b.logprobs.content]
        assert len(la) == len(lb)
        assert max(abs(x - y) for x, y in zip(la, lb)) < 1e-3
        ca = plain.client().completions.create(model=MODEL, prompt=p, max_tokens=40, temperature=0)
        cb = ngram.client().completions.create(model=MODEL, prompt=p, max_tokens=40, temperature=0)
        assert cb.choices[0].text == ca.choices[0].text
    assert "speculative decoding: ngram (prompt_lookup_min=1, prompt_lookup_max=3), 4 drafted tokens" in ngram.log()
    assert ngram.metric("vllm:spec_decode_num_drafts_total") > 0
    assert ngram.metric("vllm:spec_decode_num_draft_tokens_total") >= ngram.metric(
        "vllm:spec_decode_num_accepted_tokens_total")
    assert plain.metric("vllm:spec_decode_num_drafts_total") == 0  # not exported without speculation


def test_ngram_seeded_sampling_identical(plain, ngram):
    for seed in (1, 2, 3):
        kw = dict(max_tokens=40, temperature=0.9, top_p=0.95, seed=seed, frequency_penalty=0.3)
        assert chat(ngram, PROMPTS[2], **kw).message.content == chat(plain, PROMPTS[2], **kw).message.content
        a = plain.client().completions.create(model=MODEL, prompt=PROMPTS[1], n=2, **kw)
        b = ngram.client().completions.create(model=MODEL, prompt=PROMPTS[1], n=2, **kw)
        assert [c.text for c in b.choices] == [c.text for c in a.choices]


def test_ngram_structured_output_identical(plain, ngram):
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"enum": ["x", "y"]}},
              "required": ["a", "b"], "additionalProperties": False}
    fmt = {"type": "json_schema", "json_schema": {"name": "t", "schema": schema, "strict": True}}
    a = chat(plain, "Give me JSON.", max_tokens=40, temperature=0, response_format=fmt)
    b = chat(ngram, "Give me JSON.", max_tokens=40, temperature=0, response_format=fmt)
    assert b.message.content == a.message.content


def test_repeating_output_is_accepted_and_streams(scripted):
    body = e2e.chat_body(MODEL, [{"role": "user", "content": "Say it twice: " + REPEAT}])
    e2e.script_output(scripted, body, REPEAT + "<turn|>")
    before = scripted.metric("vllm:spec_decode_num_accepted_tokens_total")
    drafts_before = scripted.metric("vllm:spec_decode_num_drafts_total")
    r = chat(scripted, "Say it twice: " + REPEAT, max_tokens=64, temperature=0)
    assert r.message.content == REPEAT and r.finish_reason == "stop"
    accepted = scripted.metric("vllm:spec_decode_num_accepted_tokens_total") - before
    drafts = scripted.metric("vllm:spec_decode_num_drafts_total") - drafts_before
    assert accepted >= 10, accepted  # the repeated half is drafted from the prompt and accepted
    assert drafts < 30, drafts       # fewer verification rounds than output tokens
    per_pos = [v for k, v in scripted.metrics().items()
               if k.startswith("vllm:spec_decode_num_accepted_tokens_per_pos_total{")]
    assert len(per_pos) == 4 and per_pos[0] > 0
    # Streaming: several tokens per delta, the same text; a stop string inside an accepted run cuts there.
    stream = scripted.client().chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Say it twice: " + REPEAT}], max_tokens=64, temperature=0,
        stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == REPEAT
    stopped = chat(scripted, "Say it twice: " + REPEAT, max_tokens=64, temperature=0, stop=["dog again"])
    assert stopped.message.content == REPEAT[:REPEAT.index("dog again")] and stopped.finish_reason == "stop"


def test_tool_call_and_reasoning_parse_under_speculation(scripted):
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
    msgs = [{"role": "user", "content": "Weather in Paris? Think: Paris Paris Paris."}]
    body = e2e.chat_body(MODEL, msgs, tools=tools, thinking=True)
    text = ("<|channel>thought\nParis Paris Paris, the user wants Paris.<channel|>"
            '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|><|tool_response>')
    e2e.script_output(scripted, body, text)
    kw = dict(model=MODEL, messages=msgs, tools=tools, max_tokens=80, temperature=0,
              extra_body={"chat_template_kwargs": {"enable_thinking": True}})
    r = scripted.client().chat.completions.create(**kw).choices[0]
    assert r.finish_reason == "tool_calls"
    assert r.message.tool_calls[0].function.name == "get_weather"
    assert json.loads(r.message.tool_calls[0].function.arguments) == {"city": "Paris"}
    assert "Paris Paris Paris" in (getattr(r.message, "reasoning", None) or getattr(r.message, "reasoning_content", ""))
    args, reasoning = "", ""
    for c in scripted.client().chat.completions.create(stream=True, **kw):
        if not c.choices:
            continue
        d = c.choices[0].delta
        reasoning += getattr(d, "reasoning", None) or getattr(d, "reasoning_content", None) or ""
        for tc in d.tool_calls or []:
            args += tc.function.arguments or ""
    assert json.loads(args) == {"city": "Paris"} and "Paris Paris Paris" in reasoning


@pytest.mark.parametrize("config,message", [
    ('{"method": "ngram"}', "--speculative-config: num_speculative_tokens must be provided with speculative model "
                            "unless the draft model config contains an n_predict parameter."),
    ('{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 4, "prompt_lookup_max": 2}',
     "--speculative-config: prompt_lookup_min=4 must be <= prompt_lookup_max=2"),
])
def test_speculative_config_errors(config, message):
    p = subprocess.run([e2e.BIN, "serve", MODEL, "--speculative-config", config], capture_output=True, text=True,
                       timeout=60, env=e2e.Server([MODEL]).env)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines()[-1] == f"gemmad serve: error: {message}", p.stderr


# ---- MTP: a Gemma 4 assistant drafts -------------------------------------------------------------------------

def mtp_home():
    """A fake HF cache with the e2e model as the E2B and E4B targets and a random assistant fitted to it as
    google/gemma-4-E{2,4}B-it-assistant (`gemmad make-test-model --assistant-for`)."""
    target = e2e.model_dir()
    assistant = e2e.generated_model("e2e_assistant", ["--assistant-for", target, "--seed", "1"])
    repos = {"google/gemma-4-E2B-it": target, "google/gemma-4-E4B-it": target,
             "google/gemma-4-E2B-it-assistant": assistant, "google/gemma-4-E4B-it-assistant": assistant}
    return e2e.hf_home_for(repos, None, "hf_home_mtp-" + os.path.basename(assistant).split("-")[-1])


def seed_mtp_commands():
    """[(seed, args after `serve`)]: every YAML recipe's model with its default features (tool calling,
    reasoning) and its spec_decoding feature, as the recipes' command builder puts them together."""
    out = []
    for seed, doc in e2e.seed_recipes():
        features = doc.get("features")
        if not features or "spec_decoding" not in features:
            continue
        args = [doc["model"]["model_id"]] + list(doc["model"].get("base_args") or [])
        for f in ("tool_calling", "reasoning", "spec_decoding"):
            args += list(features.get(f, {}).get("args") or [])
        out.append((seed, args))
    return out


def test_the_seeds_mtp_command_answers_and_changes_nothing(plain):
    commands = seed_mtp_commands()
    assert commands, "no seed has a spec_decoding feature"
    for seed, args in commands:
        assert "--speculative-config" in args, args
        with e2e.Server(args, env={"HF_HOME": mtp_home()}, name="mtp-seed", startup_timeout=180) as s:
            assert "speculative decoding: mtp with google/gemma-4-E4B-it-assistant" in s.log(), s.log()
            for p in PROMPTS:
                kw = dict(messages=[{"role": "user", "content": p}], max_tokens=32, temperature=0, logprobs=True)
                a = plain.client().chat.completions.create(model=MODEL, **kw).choices[0]
                b = s.client().chat.completions.create(model=args[0], **kw).choices[0]
                assert b.message.content == a.message.content, (seed, p)
                la = [t.logprob for t in a.logprobs.content]
                lb = [t.logprob for t in b.logprobs.content]
                assert len(la) == len(lb) and max(abs(x - y) for x, y in zip(la, lb)) < 1e-3
            seeded = dict(messages=[{"role": "user", "content": PROMPTS[1]}], max_tokens=24, temperature=0.8, seed=5)
            assert (s.client().chat.completions.create(model=args[0], **seeded).choices[0].message.content ==
                    plain.client().chat.completions.create(model=MODEL, **seeded).choices[0].message.content)
            assert s.metric("vllm:spec_decode_num_drafts_total") > 0
            assert s.metric("vllm:spec_decode_num_draft_tokens_total") > 0


def test_mtp_e2b_with_two_drafts_and_errors():
    cfg = json.dumps({"model": "google/gemma-4-E2B-it-assistant", "num_speculative_tokens": 2})
    with e2e.Server(["google/gemma-4-E2B-it", "--speculative-config", cfg], env={"HF_HOME": mtp_home()},
                    name="mtp-e2b") as s:
        r = s.client().completions.create(model="google/gemma-4-E2B-it", prompt="Hello", max_tokens=16, temperature=0)
        assert r.usage.completion_tokens == 16
        assert s.metric("vllm:spec_decode_num_draft_tokens_total") <= 2 * s.metric("vllm:spec_decode_num_drafts_total")
    env = dict(e2e.Server([MODEL]).env, HF_HOME=mtp_home())
    for config, message in [
        ('{"model": "google/gemma-4-E4B-it", "num_speculative_tokens": 2}',
         "model_type 'gemma4': gemmad drafts with Gemma 4 assistant checkpoints (gemma4_assistant, method mtp) or "
         "by n-gram lookup (method ngram)"),
        ('{"method": "mtp", "model": "google/no-such-assistant", "num_speculative_tokens": 2}',
         "--speculative-config: model"),
    ]:
        p = subprocess.run([e2e.BIN, "serve", "google/gemma-4-E2B-it", "--speculative-config", config],
                           capture_output=True, text=True, timeout=120, env=env)
        assert p.returncode != 0 and message in p.stderr.strip().splitlines()[-1], p.stderr
