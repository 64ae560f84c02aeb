"""`gemmad serve --quantization int8|int4` (load-time weight quantization) through the openai
client: the server reports the conversion, answers completions and chat, and its greedy tokens
and first-token distribution stay close to the unquantized server on the same prompts; unknown
methods are a one-line startup error (exit 2), as vLLM's argparse choices."""
import math
import subprocess

import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
PROMPTS = ["Hello world", "The capital of France is", "1, 2, 3, 4,", "def fib(n):", "Gemma runs on CPUs"]


def first_token_dists(client):
    """Greedy 4-token continuation and the top-20 first-token logprobs of every prompt."""
    out = []
    for p in PROMPTS:
        r = client.completions.create(model=MODEL, prompt=p, max_tokens=4, temperature=0, logprobs=20,
                                      extra_body={"return_token_ids": True})
        (c,) = r.choices
        out.append((c.token_ids, c.logprobs.top_logprobs[0]))
    return out


@pytest.fixture(scope="module")
def reference():
    with e2e.Server([MODEL], name="quant-none") as s:
        dists = first_token_dists(s.client())
        log = s.log()
    # The tiny checkpoint stores its matrices off 64-byte boundaries (safetensors aligns to 8 bytes):
    # the unquantized server reads aligned copies of them (model/gemma4/weight_alignment.h).
    assert "streamed matrices the checkpoint stores unaligned copied to 64-byte-aligned memory" in log, log
    return dists


@pytest.mark.parametrize("method,max_kl", [("int8", 0.01), ("int4", 0.2)])
def test_quantized_server_stays_close(reference, method, max_kl):
    with e2e.Server([MODEL, "--quantization", method], name=f"quant-{method}") as s:
        got = first_token_dists(s.client())
        chat = s.client().chat.completions.create(model=MODEL, max_tokens=3, temperature=0,
                                                  messages=[{"role": "user", "content": "Hi"}])
        assert chat.choices[0].finish_reason == "length"
        log = s.log()
    assert f"--quantization {method}:" in log and "matrices quantized" in log and "on huge pages" in log, log
    # A service log (no terminal) follows the conversion in progress lines (issue 28).
    assert f"Quantizing weights (--quantization {method}): 0% (" in log, log
    assert f"Quantizing weights (--quantization {method}): done, 100% (" in log and " MB/s in " in log, log
    first_agree = 0
    for (ref_ids, ref_top), (ids, top) in zip(reference, got):
        first_agree += ref_ids[0] == ids[0]
        # KL(ref || quant) restricted to the reference's top-20 tokens (renormalised).
        common = [t for t in ref_top if t in top]
        assert len(common) >= 10, (ref_top, top)
        zr = sum(math.exp(ref_top[t]) for t in common)
        zq = sum(math.exp(top[t]) for t in common)
        kl = sum(math.exp(ref_top[t]) / zr * ((ref_top[t] - math.log(zr)) - (top[t] - math.log(zq))) for t in common)
        assert kl < max_kl, (method, kl)
    assert first_agree >= len(PROMPTS) - 1, (reference, got)


def test_unknown_method_is_a_startup_error():
    s = e2e.Server([MODEL, "--quantization", "awq"], name="quant-bad")
    p = subprocess.run([e2e.BIN, "serve"] + s.args, cwd=s.cwd, env=s.env, capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "--quantization" in p.stderr and "awq" in p.stderr, p.stderr
