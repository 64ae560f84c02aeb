"""/v1/chat/completions through the official openai client against the seed-flag server
(tool and reasoning parsers on): streaming and not, n>1, logprobs/top_logprobs, stop strings
and stop_token_ids, seeds, max_tokens/max_completion_tokens, min_tokens, ignore_eos, echo,
prompt_logprobs, return_tokens_as_token_ids, include_stop_str_in_output, usage, stream_options,
chat_template_kwargs (shared/spec/api.md §4).

The random e2e model repeats the last prompt token under greedy decoding, so the tests that need
text continue an assistant message (continue_final_message) whose last token is a plain word;
sampling tests use temperature 1.5 with top-k/top-p off, which gives varied tokens."""
import json
import re

import openai
import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
USER = [{"role": "user", "content": "Hello"}]
# Continue "Sure, here it is": greedy output is " is is is ...".
CONT = USER + [{"role": "assistant", "content": "Sure, here it is"}]
CONT_KW = {"add_generation_prompt": False, "continue_final_message": True}
IS = 563  # " is"
SAMPLE = {"temperature": 1.5, "top_p": 1.0}
SAMPLE_KW = {"top_k": 0}


def chat(client, messages=CONT, extra=None, **kw):
    body = dict(CONT_KW) if messages is CONT else {}
    body["return_token_ids"] = True
    body.update(extra or {})
    kw.setdefault("max_tokens", 5)
    return client.chat.completions.create(model=MODEL, messages=messages, extra_body=body, **kw)


def tokenize(server, **body):
    status, _, raw = e2e.http("POST", server.base_url + "/tokenize", body)
    assert status == 200, raw
    return json.loads(raw)


def test_basic_response_and_usage(server, client):
    r = chat(client, temperature=0)
    assert re.fullmatch(r"chatcmpl-[0-9a-f]{32}", r.id) and r.object == "chat.completion" and r.model == MODEL
    (c,) = r.choices
    assert c.index == 0 and c.message.role == "assistant"
    assert c.message.content == " is is is is is"
    assert c.token_ids == [IS] * 5
    assert c.finish_reason == "length" and c.stop_reason is None
    assert c.message.tool_calls == [] and c.message.reasoning is None
    t = tokenize(server, messages=CONT, **CONT_KW)
    assert r.prompt_token_ids == t["tokens"]
    assert r.usage.prompt_tokens == t["count"]
    assert r.usage.completion_tokens == 5 and r.usage.total_tokens == t["count"] + 5


def test_empty_messages_is_the_template_error(client):
    # vLLM renders [] and answers the Jinja error of the template's messages[0] read, as a 400
    # BadRequestError; no template file or line reaches the client.
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model=MODEL, messages=[], max_tokens=1)
    assert e.value.body["message"] == "list object has no element 0"
    assert e.value.body["type"] == "BadRequestError"


def test_generation_prompt_role_and_ids(client):
    r = chat(client, messages=USER, temperature=0, max_tokens=3)
    assert r.choices[0].message.role == "assistant"
    # <|turn>model\n<|channel>thought\n<channel|>: the generation prompt with thinking off.
    assert r.prompt_token_ids[-7:] == [105, 4368, 107, 100, 45518, 107, 101]
    assert r.usage.completion_tokens == 3
    # add_generation_prompt=false: the role is the last message's.
    r = chat(client, messages=USER, temperature=0, max_tokens=2, extra={"add_generation_prompt": False})
    assert r.choices[0].message.role == "user"


def test_stream_equals_non_stream(client):
    kw = dict(max_tokens=8, seed=1234, **SAMPLE)
    full = chat(client, extra=SAMPLE_KW, **kw)
    stream = chat(client, extra=SAMPLE_KW, stream=True, stream_options={"include_usage": True}, **kw)
    text, ids, finish, usage, roles = "", [], None, None, 0
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
            assert chunk.choices == []
            continue
        (c,) = chunk.choices
        if c.delta.role:
            roles += 1
            assert c.delta.role == "assistant" and c.delta.content == ""
        text += c.delta.content or ""
        ids += getattr(c, "token_ids", None) or []
        finish = c.finish_reason or finish
    assert roles == 1
    assert text == full.choices[0].message.content and text
    assert ids == full.choices[0].token_ids
    assert finish == "length"
    assert usage.prompt_tokens == full.usage.prompt_tokens and usage.completion_tokens == 8


def test_seed_reproducible(client):
    a = chat(client, extra=SAMPLE_KW, seed=42, max_tokens=10, **SAMPLE).choices[0].token_ids
    b = chat(client, extra=SAMPLE_KW, seed=42, max_tokens=10, **SAMPLE).choices[0].token_ids
    assert a == b
    others = [chat(client, extra=SAMPLE_KW, seed=s, max_tokens=10, **SAMPLE).choices[0].token_ids for s in (1, 2, 3)]
    assert any(o != a for o in others)
    assert len({tuple(o) for o in others}) > 1


def test_n_choices(client):
    r = chat(client, n=3, seed=9, max_tokens=6, extra=SAMPLE_KW, **SAMPLE)
    assert [c.index for c in r.choices] == [0, 1, 2]
    assert all(len(c.token_ids) == 6 for c in r.choices)
    assert r.usage.completion_tokens == 18
    assert len({tuple(c.token_ids) for c in r.choices}) > 1  # child i is seeded seed+i
    # Streaming n=2 gives the same per-index texts as non-streaming.
    full = chat(client, n=2, seed=9, max_tokens=6, extra=SAMPLE_KW, **SAMPLE)
    texts = {0: "", 1: ""}
    for chunk in chat(client, n=2, seed=9, max_tokens=6, extra=SAMPLE_KW, stream=True, **SAMPLE):
        for c in chunk.choices:
            texts[c.index] += c.delta.content or ""
    assert texts == {c.index: c.message.content for c in full.choices}


def test_logprobs(client):
    r = chat(client, temperature=0, logprobs=True, top_logprobs=3)
    content = r.choices[0].logprobs.content
    assert len(content) == r.usage.completion_tokens == 5
    for e in content:
        assert e.token == " is" and e.bytes == list(" is".encode())
        assert len(e.top_logprobs) == 3
        lps = [t.logprob for t in e.top_logprobs]
        assert lps == sorted(lps, reverse=True) and all(-9999.0 <= lp <= 0 for lp in lps)
        assert e.top_logprobs[0].token == e.token and e.top_logprobs[0].logprob == pytest.approx(e.logprob)
    r = chat(client, temperature=0, logprobs=True)
    assert all(e.top_logprobs == [] for e in r.choices[0].logprobs.content)
    assert chat(client, temperature=0).choices[0].logprobs is None


def test_return_tokens_as_token_ids(client):
    r = chat(client, extra=dict(SAMPLE_KW, return_tokens_as_token_ids=True), seed=3, logprobs=True, top_logprobs=2,
             **SAMPLE)
    c = r.choices[0]
    assert [e.token for e in c.logprobs.content] == [f"token_id:{t}" for t in c.token_ids]
    for e in c.logprobs.content:
        assert all(t.token.startswith("token_id:") for t in e.top_logprobs)


def test_stop_strings(client):
    base = chat(client, extra=SAMPLE_KW, seed=77, max_tokens=12, **SAMPLE).choices[0].message.content
    assert len(base) >= 8, base
    stop = base[len(base) // 2: len(base) // 2 + 2]
    cut = base.find(stop)
    r = chat(client, extra=SAMPLE_KW, seed=77, max_tokens=12, stop=[stop, "never-there"], **SAMPLE)
    c = r.choices[0]
    assert c.message.content == base[:cut]
    assert c.finish_reason == "stop" and c.stop_reason == stop
    r = chat(client, extra=dict(SAMPLE_KW, include_stop_str_in_output=True), seed=77, max_tokens=12, stop=stop,
             **SAMPLE)
    assert r.choices[0].message.content == base[:cut + len(stop)]
    # Streaming stops at the same place.
    text = "".join(ch.choices[0].delta.content or "" for ch in
                   chat(client, extra=SAMPLE_KW, seed=77, max_tokens=12, stop=[stop], stream=True, **SAMPLE)
                   if ch.choices)
    assert text == base[:cut]


def test_stop_token_ids_and_min_tokens(client):
    r = chat(client, temperature=0, max_tokens=6, extra={"stop_token_ids": [IS]})
    c = r.choices[0]
    assert c.finish_reason == "stop" and c.stop_reason == IS
    # The stop token is not part of the text (vLLM); gemmad's parsers report the empty text as null.
    assert c.token_ids == [IS] and c.message.content in ("", None) and r.usage.completion_tokens == 1
    # min_tokens masks the stop ids for the first tokens.
    r = chat(client, temperature=0, max_tokens=6, extra={"stop_token_ids": [IS], "min_tokens": 3})
    ids = r.choices[0].token_ids
    assert len(ids) >= 3 and IS not in ids[:3]
    assert r.usage.completion_tokens == len(ids)


def test_ignore_eos(client):
    # The prompt ends with <turn|> (106, an EOS of the generation config): greedy repeats it.
    msgs = USER + [{"role": "assistant", "content": "Hi<turn|>"}]
    r = chat(client, messages=msgs, temperature=0, max_tokens=4, extra=CONT_KW)
    c = r.choices[0]
    assert c.finish_reason == "stop" and c.stop_reason == 106 and c.token_ids == [106]
    r = chat(client, messages=msgs, temperature=0, max_tokens=4, extra=dict(CONT_KW, ignore_eos=True))
    c = r.choices[0]
    assert c.finish_reason == "length" and c.token_ids == [106] * 4


def test_max_tokens_and_max_completion_tokens(client):
    assert chat(client, temperature=0, max_tokens=3).usage.completion_tokens == 3
    r = chat(client, temperature=0, max_tokens=10, max_completion_tokens=2)
    assert r.usage.completion_tokens == 2 and r.choices[0].finish_reason == "length"
    r = client.chat.completions.create(model=MODEL, messages=CONT, max_completion_tokens=4, temperature=0,
                                       extra_body=CONT_KW)
    assert r.usage.completion_tokens == 4


def test_max_tokens_default_fills_context():
    with e2e.Server([MODEL, "--max-model-len", "48"], name="chat-len") as s:
        r = s.client().chat.completions.create(model=MODEL, messages=CONT, temperature=0, extra_body=CONT_KW)
        assert r.usage.total_tokens == 48 and r.choices[0].finish_reason == "length"


def test_echo(client):
    r = chat(client, temperature=0, max_tokens=2, extra={"echo": True})
    assert r.choices[0].message.content == "Sure, here it is is is"
    # Echo only applies when the last message has the response's role.
    r = chat(client, messages=USER, temperature=0, max_tokens=2, extra={"echo": True})
    assert not (r.choices[0].message.content or "").startswith("Hello")
    # Streaming: the echoed text comes first.
    chunks = [ch for ch in chat(client, temperature=0, max_tokens=2, extra={"echo": True}, stream=True) if ch.choices]
    assert "".join(ch.choices[0].delta.content or "" for ch in chunks) == "Sure, here it is is is"


def test_prompt_logprobs(client):
    r = chat(client, temperature=0, max_tokens=1, extra={"prompt_logprobs": 1})
    pl = r.prompt_logprobs
    assert len(pl) == r.usage.prompt_tokens and pl[0] is None
    for tok, entry in zip(r.prompt_token_ids[1:], pl[1:]):
        assert str(tok) in entry  # the actual prompt token is always listed
        assert 1 <= len(entry) <= 2
        for v in entry.values():
            assert v["logprob"] <= 0 and v["rank"] >= 1 and "decoded_token" in v


def test_usage_with_stream_options(client):
    chunks = list(chat(client, temperature=0, max_tokens=3, stream=True,
                       stream_options={"include_usage": True, "continuous_usage_stats": True}))
    usage = [ch.usage for ch in chunks if ch.usage is not None]
    assert usage[-1].completion_tokens == 3 and chunks[-1].choices == []
    # continuous_usage_stats: cumulative completion_tokens never decreases.
    counts = [u.completion_tokens for u in usage]
    assert counts == sorted(counts) and counts[0] == 0


def test_chat_template_kwargs_enable_thinking(server, client):
    msgs = [{"role": "user", "content": "Think about it"}]
    off = chat(client, messages=msgs, temperature=0, max_tokens=1)
    on = chat(client, messages=msgs, temperature=0, max_tokens=1,
              extra={"chat_template_kwargs": {"enable_thinking": True}})
    assert on.prompt_token_ids != off.prompt_token_ids
    t_on = tokenize(server, messages=msgs, chat_template_kwargs={"enable_thinking": True})
    t_off = tokenize(server, messages=msgs)
    assert on.usage.prompt_tokens == t_on["count"] and off.usage.prompt_tokens == t_off["count"]
    assert on.prompt_token_ids == t_on["tokens"]
    # Thinking on: a system turn carrying <|think|>, and no empty thought channel at the end.
    strs_on = tokenize(server, messages=msgs, chat_template_kwargs={"enable_thinking": True},
                       return_token_strs=True)["token_strs"]
    strs_off = tokenize(server, messages=msgs, return_token_strs=True)["token_strs"]
    assert strs_on[:5] == ["<bos>", "<|turn>", "system", "\n", "<|think|>"]
    assert strs_on[-3:] == ["<|turn>", "model", "\n"]
    assert strs_off[-4:] == ["<|channel>", "thought", "\n", "<channel|>"]
