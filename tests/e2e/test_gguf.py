"""`gemmad serve FILE.gguf` on GGUF files made by llama.cpp's own converter from the reference
checkpoints T1 and T2 (tests/golden/gguf, scripts/golden/make_gguf_goldens.py): the tokenizer and
configuration come from the file alone. Through the official openai client:
- the f32 files give transformers' greedy continuations of the goldens (the same numbers as the
  safetensors checkpoints), token for token;
- the q8_0 files (matrices read in place by the Q8_0 kernels) serve completions and chat with text
  produced by the GGUF's own tokenizer;
- the MoE model's q8_0 and q4_k_m files, expert stacks read in their blocks, serve the tokens
  `gemmad generate` gives on the same file;
- a file that is not a usable GGUF fails at startup with one line naming it.
"""
import json
import os
import subprocess

import pytest

import gemmad_e2e as e2e

GGUF_DIR = os.path.join(e2e.SOURCE_DIR, "tests", "golden", "gguf")
GOLDEN_DIR = os.path.join(e2e.SOURCE_DIR, "tests", "golden", "gemma4")


def golden_prompts(model):
    with open(os.path.join(GOLDEN_DIR, model, "golden_f32.json"), encoding="utf-8") as f:
        return json.load(f)["prompts"]


@pytest.mark.parametrize("model", ["t1", "t2"])
def test_f32_gguf_gives_the_transformers_greedy_ids(model):
    path = os.path.join(GGUF_DIR, f"gemma4_{model}_f32.gguf")
    with e2e.Server([path, "--served-model-name", model], name=f"gguf-{model}") as s:
        client = s.client()
        for p in golden_prompts(model):
            r = client.completions.create(model=model, prompt=p["token_ids"], max_tokens=len(p["greedy_ids"]),
                                          temperature=0, logprobs=1,
                                          extra_body={"ignore_eos": True, "return_tokens_as_token_ids": True})
            got = [int(t[len("token_id:"):]) for t in r.choices[0].logprobs.tokens]
            assert got == p["greedy_ids"], (model, p["name"])


def test_q8_gguf_serves_text_with_its_own_tokenizer():
    path = os.path.join(GGUF_DIR, "gemma4_t1_q8_0.gguf")
    with e2e.Server([path, "--served-model-name", "t1q8"], name="gguf-q8") as s:
        client = s.client()
        models = client.models.list()
        assert [m.id for m in models.data] == ["t1q8"]
        r = client.completions.create(model="t1q8", prompt="Hello", max_tokens=6, temperature=0,
                                      extra_body={"ignore_eos": True})
        assert r.usage.prompt_tokens >= 2 and r.usage.completion_tokens == 6
        assert isinstance(r.choices[0].text, str)
        # Tokenizing through the server uses the GGUF's vocabulary (512 tokens cut from Gemma 4's).
        status, _, body = e2e.http("POST", s.base_url + "/tokenize", {"model": "t1q8", "prompt": "Hello"})
        assert status == 200, body
        assert all(0 <= t < 512 for t in json.loads(body)["tokens"])
        chat = client.chat.completions.create(model="t1q8", messages=[{"role": "user", "content": "Hi"}],
                                              max_tokens=4, temperature=0)
        assert chat.choices[0].finish_reason in ("length", "stop")


@pytest.mark.parametrize("kind", ["q8_0", "q4_k_m"])
def test_moe_gguf_experts_in_their_blocks_serve_as_generate_runs_them(kind):
    # T2 is the MoE model: its gate_up expert stacks stay in the file's block types (Q8_0, or
    # Q4_K_M's mix), read per expert by the block kernels (their logits against transformers:
    # tests/model/gguf_golden_test.cc). The server's greedy tokens equal the CLI's on the same file.
    path = os.path.join(GGUF_DIR, f"gemma4_t2_{kind}.gguf")
    prompts = [p["token_ids"] for p in golden_prompts("t2")]
    with e2e.Server([path, "--served-model-name", "t2"], name=f"gguf-moe-{kind}") as s:
        client = s.client()
        for ids in prompts:
            r = client.completions.create(model="t2", prompt=ids, max_tokens=12, temperature=0, logprobs=1,
                                          extra_body={"ignore_eos": True, "return_tokens_as_token_ids": True})
            served = [int(t[len("token_id:"):]) for t in r.choices[0].logprobs.tokens]
            out = subprocess.run([e2e.BIN, "generate", path, "--prompt-ids", ",".join(map(str, ids)),
                                  "--max-tokens", "12", "--ignore-eos"], capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, out.stderr
            cli = [json.loads(line)["id"] for line in out.stdout.splitlines() if line.startswith('{"id"')]
            assert served == cli
            assert len(set(served)) > 3  # a run that varies, not one repeated token


def test_bad_gguf_is_one_line_at_startup(tmp_path):
    bad = tmp_path / "broken.gguf"
    with open(os.path.join(GGUF_DIR, "gemma4_t1_q8_0.gguf"), "rb") as f:
        bad.write_bytes(f.read()[:5000])  # truncated inside the tensor infos / data
    s = e2e.Server([str(bad)], name="gguf-bad")
    p = subprocess.run([e2e.BIN, "serve"] + s.args, cwd=s.cwd, env=s.env, capture_output=True, text=True,
                       timeout=120, stdin=subprocess.DEVNULL)
    out = p.stdout + p.stderr
    assert p.returncode != 0, out
    assert str(bad) in out, out
    assert "Traceback" not in out and "Aborted" not in out
