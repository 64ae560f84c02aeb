"""--kv-cache-dtype fp8 through `gemmad serve`: the KV cache is stored as FP8 E4M3 (scale 1.0, vLLM's default
without checkpoint scales), so the same --kv-cache-memory-bytes holds twice the blocks of the bf16 cache; the
server answers the openai client, greedy and deterministic, with answers close to the bf16 cache's. (Accuracy
against the transformers goldens: tests/model/kv_fp8_accuracy_test.cc.)"""
import re

import gemmad_e2e as e2e

BUDGET = str(64 << 20)


def kv_blocks(log):
    """{group name: (blocks, dtype)} from the startup log."""
    return {m.group(1): (int(m.group(2)), m.group(3))
            for m in re.finditer(r"KV group (.+?): (\d+) blocks of \d+ tokens \([\d.]+ MiB, (\w+)\)", log)}


def run(extra):
    args = [e2e.DEFAULT_REPO, "--kv-cache-memory-bytes", BUDGET, "--max-model-len", "4096"] + extra
    with e2e.Server(args, name="kv-fp8") as s:
        blocks = kv_blocks(s.log())
        client = s.client()
        answers = []
        for prompt in ("Hello!", "Write a short poem about the sea."):
            r = client.chat.completions.create(model=e2e.DEFAULT_REPO, messages=[{"role": "user", "content": prompt}],
                                               max_tokens=24, temperature=0, logprobs=True)
            answers.append((r.choices[0].message.content, [t.logprob for t in r.choices[0].logprobs.content]))
        again = client.chat.completions.create(model=e2e.DEFAULT_REPO,
                                               messages=[{"role": "user", "content": "Hello!"}],
                                               max_tokens=24, temperature=0)
        assert again.choices[0].message.content == answers[0][0]
    return blocks, answers


def test_kv_cache_fp8():
    bf16_blocks, bf16_answers = run(["--kv-cache-dtype", "bfloat16"])
    fp8_blocks, fp8_answers = run(["--kv-cache-dtype", "fp8"])
    assert bf16_blocks and bf16_blocks.keys() == fp8_blocks.keys(), (bf16_blocks, fp8_blocks)
    for name, (n, dtype) in fp8_blocks.items():
        assert dtype == "F8_E4M3" and bf16_blocks[name][1] == "BF16"
        assert n >= 2 * bf16_blocks[name][0] - 2, (name, n, bf16_blocks[name])  # half the bytes per block
    # The first greedy token sees the prompt's own keys through the cache: it may move, but the
    # answers' log-probabilities stay close on this model.
    for (text_a, lp_a), (text_b, lp_b) in zip(bf16_answers, fp8_answers):
        assert lp_b
        assert abs(lp_a[0] - lp_b[0]) < 1.0, (lp_a[0], lp_b[0])


def test_calculate_kv_scales():
    """--calculate-kv-scales (vLLM's flag): the first forward measures every KV-owning layer's FP8 scales from its keys
    and values (amax / 200, amax / 100) and logs them; the server then answers deterministically, close to the bf16
    cache. Without an FP8 cache the flag has no effect and says so."""
    args = [e2e.DEFAULT_REPO, "--kv-cache-memory-bytes", BUDGET, "--max-model-len", "4096", "--kv-cache-dtype", "fp8",
            "--calculate-kv-scales"]
    with e2e.Server(args, name="kv-fp8-calc") as s:
        assert "calculate-kv-scales" not in s.log()  # nothing measured before the first forward
        client = s.client()
        first = client.chat.completions.create(model=e2e.DEFAULT_REPO, messages=[{"role": "user", "content": "Hello!"}],
                                               max_tokens=24, temperature=0, logprobs=True)
        m = re.search(r"--calculate-kv-scales: FP8 KV scales of (\d+) layers from the first forward: "
                      r"k ([\d.e+-]+)\.\.([\d.e+-]+), v ([\d.e+-]+)\.\.([\d.e+-]+)", s.log())
        assert m, s.log()
        assert int(m.group(1)) > 0 and 0 < float(m.group(2)) <= float(m.group(3))
        assert 0 < float(m.group(4)) <= float(m.group(5))
        assert s.log().count("--calculate-kv-scales: FP8 KV scales") == 1
        again = client.chat.completions.create(model=e2e.DEFAULT_REPO, messages=[{"role": "user", "content": "Hello!"}],
                                               max_tokens=24, temperature=0)
        assert again.choices[0].message.content == first.choices[0].message.content
        assert s.log().count("--calculate-kv-scales: FP8 KV scales") == 1  # measured once, then frozen
    _, bf16_answers = run(["--kv-cache-dtype", "bfloat16"])
    assert abs(bf16_answers[0][1][0] - first.choices[0].logprobs.content[0].logprob) < 1.0
    with e2e.Server([e2e.DEFAULT_REPO, "--kv-cache-memory-bytes", BUDGET, "--max-model-len", "4096",
                     "--kv-cache-dtype", "bfloat16", "--calculate-kv-scales"], name="kv-bf16-calc") as s:
        assert "--calculate-kv-scales: no effect, the KV cache is BF16" in s.log(), s.log()
