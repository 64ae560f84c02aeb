"""/v1/completions through the official openai client (shared/spec/api.md §5): text, token-id
and batched prompts (choice index = prompt_idx * n + choice_idx), streaming, n>1, logprobs,
prompt_logprobs, echo, stop strings and stop_token_ids, seeds, min_tokens, ignore_eos,
return_tokens_as_token_ids, include_stop_str_in_output, the default max_tokens of 16, usage.

Greedy decoding on the random e2e model repeats the last prompt token; "Hello world" therefore
continues with " world world ..."."""
import json
import re

import openai
import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
WORLD = 1902  # "▁world"
SAMPLE = {"temperature": 1.5, "top_p": 1.0}
SAMPLE_KW = {"top_k": 0}


def tokenize(server, text, add_special_tokens=True):
    status, _, raw = e2e.http("POST", server.base_url + "/tokenize",
                              {"prompt": text, "add_special_tokens": add_special_tokens})
    assert status == 200
    return json.loads(raw)["tokens"]


def comp(client, prompt="Hello world", extra=None, **kw):
    body = {"return_token_ids": True}
    body.update(extra or {})
    return client.completions.create(model=MODEL, prompt=prompt, extra_body=body, **kw)


def test_text_prompt_greedy(server, client):
    r = comp(client, max_tokens=4, temperature=0)
    assert r.id.startswith("cmpl-") and r.object == "text_completion" and r.model == MODEL
    (c,) = r.choices
    assert c.text == " world world world world" and c.index == 0
    ids = tokenize(server, "Hello world")
    assert ids[-1] == WORLD and ids[0] == 2  # BOS is added to raw prompts
    assert c.token_ids == [WORLD] * 4 and c.prompt_token_ids == ids
    assert c.finish_reason == "length" and c.stop_reason is None
    assert r.usage.prompt_tokens == len(ids) and r.usage.completion_tokens == 4
    assert r.usage.total_tokens == len(ids) + 4


def test_suffix_is_refused(client):
    # vLLM: "suffix is not currently supported" (400), after the model check; null is fine.
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model=MODEL, prompt="def f(", suffix="    return x", max_tokens=2)
    assert e.value.status_code == 400
    assert e.value.body["message"] == "suffix is not currently supported"
    assert e.value.body["type"] == "BadRequestError"
    with pytest.raises(openai.NotFoundError):
        client.completions.create(model="nope", prompt="def f(", suffix="x", max_tokens=2)
    assert comp(client, max_tokens=1, extra={"suffix": None}).choices[0].finish_reason == "length"


def test_default_max_tokens_is_16(client):
    r = comp(client, temperature=0)
    assert r.usage.completion_tokens == 16 and r.choices[0].finish_reason == "length"


def test_ids_are_32_hex_digits(client):
    # vLLM: f"cmpl-{random_uuid()}", uuid4().hex.
    assert re.fullmatch(r"cmpl-[0-9a-f]{32}", comp(client, max_tokens=1).id)
    chunks = list(client.completions.create(model=MODEL, prompt="Hi", max_tokens=1, stream=True))
    assert re.fullmatch(r"cmpl-[0-9a-f]{32}", chunks[0].id)


def test_add_special_tokens_false(server, client):
    r = comp(client, max_tokens=1, temperature=0, extra={"add_special_tokens": False})
    assert r.choices[0].prompt_token_ids == tokenize(server, "Hello world", add_special_tokens=False)
    assert r.choices[0].prompt_token_ids[0] != 2


def test_token_id_prompt(server, client):
    ids = tokenize(server, "Hello world")
    r = comp(client, prompt=ids, max_tokens=3, temperature=0)
    assert r.choices[0].text == " world world world"
    assert r.choices[0].prompt_token_ids == ids and r.usage.prompt_tokens == len(ids)


def test_batched_prompts(server, client):
    prompts = ["Hello world", "The cat", "One two three"]
    r = comp(client, prompt=prompts, max_tokens=3, temperature=0)
    assert [c.index for c in r.choices] == [0, 1, 2]
    for p, c in zip(prompts, r.choices):
        alone = comp(client, prompt=p, max_tokens=3, temperature=0).choices[0]
        assert c.text == alone.text and c.token_ids == alone.token_ids
        assert c.prompt_token_ids == tokenize(server, p)
    assert r.usage.prompt_tokens == sum(len(tokenize(server, p)) for p in prompts)
    assert r.usage.completion_tokens == 9
    # Token-id batches, with n=2: index = prompt_idx * n + choice_idx.
    id_prompts = [tokenize(server, p) for p in prompts[:2]]
    r = comp(client, prompt=id_prompts, max_tokens=2, n=2, seed=5, extra=SAMPLE_KW, **SAMPLE)
    assert [c.index for c in r.choices] == [0, 1, 2, 3]
    assert [c.prompt_token_ids for c in r.choices] == [id_prompts[0]] * 2 + [id_prompts[1]] * 2
    assert r.usage.completion_tokens == 8


def test_stream(client):
    full = comp(client, max_tokens=6, seed=21, extra=SAMPLE_KW, **SAMPLE)
    text, ids, usage, finish = "", [], None, None
    for ch in comp(client, max_tokens=6, seed=21, extra=SAMPLE_KW, stream=True, stream_options={"include_usage": True},
                   **SAMPLE):
        if ch.usage is not None:
            usage = ch.usage
            assert ch.choices == []
            continue
        (c,) = ch.choices
        text += c.text
        ids += getattr(c, "token_ids", None) or []
        finish = c.finish_reason or finish
    assert text == full.choices[0].text and ids == full.choices[0].token_ids
    assert finish == "length" and usage.completion_tokens == 6
    assert usage.prompt_tokens == full.usage.prompt_tokens


def test_batched_stream(client):
    prompts = ["Hello world", "The cat"]
    texts = {0: "", 1: ""}
    finished = set()
    for ch in comp(client, prompt=prompts, max_tokens=3, temperature=0, stream=True):
        for c in ch.choices:
            texts[c.index] += c.text
            if c.finish_reason:
                finished.add(c.index)
    assert finished == {0, 1}
    assert texts[0] == " world world world" and texts[1] == comp(client, prompt="The cat", max_tokens=3,
                                                                 temperature=0).choices[0].text


def test_seed_and_n(client):
    a = comp(client, max_tokens=8, seed=3, extra=SAMPLE_KW, **SAMPLE).choices[0].token_ids
    assert a == comp(client, max_tokens=8, seed=3, extra=SAMPLE_KW, **SAMPLE).choices[0].token_ids
    assert len({tuple(comp(client, max_tokens=8, seed=s, extra=SAMPLE_KW, **SAMPLE).choices[0].token_ids)
                for s in (4, 5, 6)}) > 1
    r = comp(client, max_tokens=5, n=3, seed=3, extra=SAMPLE_KW, **SAMPLE)
    assert [c.index for c in r.choices] == [0, 1, 2] and r.usage.completion_tokens == 15
    assert r.choices[0].token_ids[:5] == a[:5]  # child 0 is seeded with the request seed


def test_logprobs(client):
    r = comp(client, max_tokens=3, temperature=0, logprobs=2)
    lp = r.choices[0].logprobs
    assert lp.tokens == [" world"] * 3
    assert len(lp.token_logprobs) == 3 and all(x <= 0 for x in lp.token_logprobs)
    for tok, lpv, top in zip(lp.tokens, lp.token_logprobs, lp.top_logprobs):
        assert 1 <= len(top) <= 3  # the sampled token plus the top 2
        assert top[tok] == pytest.approx(lpv) and max(top.values()) == pytest.approx(lpv)
    assert lp.text_offset == [0, 6, 12]
    assert comp(client, max_tokens=2, temperature=0).choices[0].logprobs is None


def test_echo(server, client):
    r = comp(client, max_tokens=2, temperature=0, echo=True)
    assert r.choices[0].text == "Hello world world world"
    r = comp(client, max_tokens=2, temperature=0, echo=True, logprobs=1)
    lp = r.choices[0].logprobs
    n_prompt = len(tokenize(server, "Hello world"))
    assert len(lp.tokens) == n_prompt + 2 and lp.tokens[0] == "<bos>"
    assert lp.token_logprobs[0] is None and lp.top_logprobs[0] is None
    # Token-id prompt with echo: the prompt text is the detokenized ids.
    ids = tokenize(server, "Hello world", add_special_tokens=False)
    assert comp(client, prompt=ids, max_tokens=1, temperature=0, echo=True).choices[0].text == "Hello world world"


def test_prompt_logprobs(server, client):
    r = comp(client, max_tokens=1, temperature=0, extra={"prompt_logprobs": 2})
    pl = r.choices[0].prompt_logprobs
    ids = tokenize(server, "Hello world")
    assert len(pl) == len(ids) and pl[0] is None
    for tok, entry in zip(ids[1:], pl[1:]):
        assert str(tok) in entry and 1 <= len(entry) <= 3
        ranks = sorted(v["rank"] for v in entry.values())
        assert ranks[0] >= 1


def test_return_tokens_as_token_ids(client):
    r = comp(client, max_tokens=3, temperature=0, logprobs=1, extra={"return_tokens_as_token_ids": True})
    c = r.choices[0]
    assert c.logprobs.tokens == [f"token_id:{WORLD}"] * 3
    assert all(set(t) <= {f"token_id:{WORLD}"} or all(k.startswith("token_id:") for k in t)
               for t in c.logprobs.top_logprobs)


def test_stop_strings(client):
    base = comp(client, max_tokens=12, seed=8, extra=SAMPLE_KW, **SAMPLE).choices[0].text
    assert len(base) >= 8, base
    stop = base[len(base) // 2: len(base) // 2 + 2]
    cut = base.find(stop)
    r = comp(client, max_tokens=12, seed=8, stop=[stop], extra=SAMPLE_KW, **SAMPLE)
    c = r.choices[0]
    assert c.text == base[:cut] and c.finish_reason == "stop" and c.stop_reason == stop
    r = comp(client, max_tokens=12, seed=8, stop=stop, extra=dict(SAMPLE_KW, include_stop_str_in_output=True),
             **SAMPLE)
    assert r.choices[0].text == base[:cut + len(stop)]
    text = "".join(ch.choices[0].text for ch in comp(client, max_tokens=12, seed=8, stop=[stop], stream=True,
                                                       extra=SAMPLE_KW, **SAMPLE) if ch.choices)
    assert text == base[:cut]
    # Greedy: " world world ..." stops before the second " world".
    r = comp(client, max_tokens=6, temperature=0, stop=[" world world"])
    assert r.choices[0].text == "" and r.choices[0].stop_reason == " world world"


def test_stop_token_ids_min_tokens_ignore_eos(client):
    r = comp(client, max_tokens=5, temperature=0, extra={"stop_token_ids": [WORLD]})
    c = r.choices[0]
    assert c.finish_reason == "stop" and c.stop_reason == WORLD and c.token_ids == [WORLD] and c.text == ""
    r = comp(client, max_tokens=5, temperature=0, extra={"stop_token_ids": [WORLD], "min_tokens": 2})
    assert WORLD not in r.choices[0].token_ids[:2] and len(r.choices[0].token_ids) >= 2
    # The primary EOS (1): a prompt ending in it makes greedy emit it; stop_reason stays null.
    r = comp(client, prompt=[2, 10979, 1], max_tokens=5, temperature=0)
    c = r.choices[0]
    assert c.finish_reason == "stop" and c.stop_reason is None and c.token_ids == [1]
    r = comp(client, prompt=[2, 10979, 1], max_tokens=5, temperature=0, extra={"ignore_eos": True})
    assert r.choices[0].finish_reason == "length" and r.choices[0].token_ids == [1] * 5
    # min_tokens also holds EOS back.
    r = comp(client, prompt=[2, 10979, 1], max_tokens=5, temperature=0, extra={"min_tokens": 3})
    assert 1 not in r.choices[0].token_ids[:3] and r.usage.completion_tokens >= 3


def test_usage_n_and_batch(client):
    r = comp(client, prompt=["a b", "c d e"], max_tokens=2, n=2, seed=1, extra=SAMPLE_KW, **SAMPLE)
    assert r.usage.completion_tokens == 8
    assert r.usage.total_tokens == r.usage.prompt_tokens + 8
