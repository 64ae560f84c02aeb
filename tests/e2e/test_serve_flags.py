"""Server flags whose effect shows through the API (each a fresh `gemmad serve`)."""
import json
import os
import re
import subprocess
import sys

import openai
import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
MESSAGES = [{"role": "user", "content": "Name three colours."}]


def tokenize_chat(s, **extra):
    status, _, body = e2e.http("POST", s.base_url + "/tokenize", dict({"model": MODEL, "messages": MESSAGES}, **extra))
    assert status == 200, body
    return json.loads(body)["tokens"]


def test_response_role():
    with e2e.Server([MODEL, "--response-role", "bot"], name="flags") as s:
        r = s.client().chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=2)
        assert r.choices[0].message.role == "bot"
        chunks = list(s.client().chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=2, stream=True))
        assert chunks[0].choices[0].delta.role == "bot"


def test_default_chat_template_kwargs():
    with e2e.Server([MODEL] + e2e.TOOL_FLAGS, name="flags") as plain:
        off = tokenize_chat(plain)
        on = tokenize_chat(plain, chat_template_kwargs={"enable_thinking": True})
    assert on != off
    with e2e.Server([MODEL] + e2e.TOOL_FLAGS + ["--default-chat-template-kwargs", '{"enable_thinking": true}'],
                    name="flags") as s:
        assert tokenize_chat(s) == on  # the server default applies
        assert tokenize_chat(s, chat_template_kwargs={"enable_thinking": False}) == off  # the request wins
        r = s.client().chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=1)
        assert r.usage.prompt_tokens == len(on)


def test_enable_force_include_usage():
    with e2e.Server([MODEL, "--enable-force-include-usage"], name="flags") as s:
        chunks = list(s.client().chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=3, stream=True))
        assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 3
    with e2e.Server([MODEL], name="flags") as s:
        chunks = list(s.client().chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=3, stream=True))
        assert all(c.usage is None for c in chunks)


def sampled_texts(seed):
    with e2e.Server([MODEL, "--seed", str(seed)], name="flags") as s:
        c = s.client()
        return [c.completions.create(model=MODEL, prompt=f"Story {i}:", max_tokens=12, temperature=1.0,
                                     top_p=1.0, extra_body={"top_k": -1}).choices[0].text for i in range(3)]


def test_seed_makes_unseeded_requests_reproducible():
    a, b, other = sampled_texts(7), sampled_texts(7), sampled_texts(8)
    assert a == b
    assert a != other


def test_max_num_seqs_caps_running():
    import threading
    with e2e.Server([MODEL, "--max-num-seqs", "2"], name="flags") as s:
        c = s.client()
        results = []

        def one(i):
            r = c.completions.create(model=MODEL, prompt=f"Count {i}:", max_tokens=120, temperature=0,
                                     extra_body={"ignore_eos": True})
            results.append(r.usage.completion_tokens)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        running, waiting = [], []
        while any(t.is_alive() for t in threads):
            m = s.metrics()
            running.append(sum(v for k, v in m.items() if k.startswith("vllm:num_requests_running")))
            waiting.append(sum(v for k, v in m.items() if k.startswith("vllm:num_requests_waiting")))
        for t in threads:
            t.join()
        assert results == [120] * 6
        assert max(running) <= 2, running
        assert max(waiting) >= 1, waiting  # the other requests queued behind the cap


def kv_blocks(args):
    with e2e.Server([MODEL] + args, name="flags") as s:
        s.client().completions.create(model=MODEL, prompt="Hi", max_tokens=2)  # it serves
        status, _, raw = e2e.http("GET", s.base_url + "/metrics")
        assert status == 200
        return int(re.search(r'num_gpu_blocks="(\d+)"', raw.decode()).group(1))


def test_dtype_is_the_compute_and_kv_dtype():
    """On the bf16 e2e checkpoint auto means bfloat16; float32 keeps an f32 KV cache, so the same
    KV budget holds half the blocks. float16 is cast to bfloat16 with a warning (the CPU backend has
    no f16 KV path)."""
    auto, bf16, f32 = kv_blocks([]), kv_blocks(["--dtype", "bfloat16"]), kv_blocks(["--dtype", "float32"])
    assert auto == bf16
    assert 0.4 * auto <= f32 <= 0.6 * auto, (auto, f32)
    with e2e.Server([MODEL, "--dtype", "half"], name="flags") as s:
        s.client().completions.create(model=MODEL, prompt="Hi", max_tokens=2)
        assert "--dtype half: the CPU backend has no float16 KV cache; using bfloat16 instead" in s.log()


def test_block_size():
    with e2e.Server([MODEL, "--block-size", "32"], name="flags") as s:
        s.client().completions.create(model=MODEL, prompt="Hi", max_tokens=2)
        status, _, raw = e2e.http("GET", s.base_url + "/metrics")
        assert 'block_size="32"' in raw.decode()


def default_sampled(args):
    """A seeded completion that names no sampling parameter: the server's defaults decide."""
    with e2e.Server([MODEL] + args, name="flags") as s:
        c = s.client()
        text = c.completions.create(model=MODEL, prompt="Story:", max_tokens=24, seed=3).choices[0].text
        greedy = c.completions.create(model=MODEL, prompt="Story:", max_tokens=24, temperature=0).choices[0].text
        return text, greedy, s.log()


def test_generation_config_and_override():
    # auto: the checkpoint's generation_config.json (top_k 64, top_p 0.95) and vLLM's warning;
    # vllm: vLLM's own defaults; an override wins over both.
    auto, greedy, log = default_sampled([])
    assert "Default sampling parameters have been overridden" in log
    plain, _, log = default_sampled(["--generation-config", "vllm"])
    assert "Default sampling parameters have been overridden" not in log
    assert plain != auto
    zero, _, _ = default_sampled(["--override-generation-config", '{"temperature": 0}'])
    assert zero == greedy != auto


def test_max_logprobs():
    with e2e.Server([MODEL, "--max-logprobs", "3"], name="flags") as s:
        c = s.client()
        r = c.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=1, logprobs=True, top_logprobs=3)
        assert len(r.choices[0].logprobs.content[0].top_logprobs) == 3
        with pytest.raises(openai.BadRequestError) as e:
            c.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=1, logprobs=True, top_logprobs=4)
        assert "Requested sample logprobs of 4, which is greater than max allowed: 3" in e.value.message


def test_host():
    """--host binds that address only: 127.0.0.2 (loopback) answers, 127.0.0.1 is refused."""
    class OnHost(e2e.Server):
        @property
        def base_url(self):
            return f"http://127.0.0.2:{self.port}"

    with OnHost([MODEL, "--host", "127.0.0.2"], name="flags") as s:
        assert e2e.http("GET", s.base_url + "/health")[0] == 200
        with pytest.raises(OSError):
            e2e.http("GET", f"http://127.0.0.1:{s.port}/health", timeout=5)


def test_revision():
    rc = subprocess.run([e2e.BIN, "serve", MODEL, "--revision", "no-such-branch", "--port", str(e2e.free_port())],
                        env=e2e.Server([MODEL]).env, capture_output=True, text=True, timeout=120,
                        stdin=subprocess.DEVNULL)
    assert rc.returncode == 2 and "no-such-branch" in rc.stdout + rc.stderr, rc.stdout + rc.stderr
    with e2e.Server([MODEL, "--revision", "main"], name="flags") as s:
        assert tokenize_chat(s)


def test_tokenizer_revision():
    rc = subprocess.run([e2e.BIN, "serve", MODEL, "--tokenizer", "google/gemma-4-E4B-it", "--tokenizer-revision",
                         "no-such-branch", "--port", str(e2e.free_port())], env=e2e.Server([MODEL]).env,
                        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert rc.returncode == 2 and "no-such-branch" in rc.stdout + rc.stderr, rc.stdout + rc.stderr
    with e2e.Server([MODEL, "--tokenizer", "google/gemma-4-E4B-it", "--tokenizer-revision", "main"], name="flags") as s:
        assert tokenize_chat(s)


def test_chat_template_content_format():
    # The template prints whether it received message content as a string or as parts.
    template = "{% for m in messages %}{{ m['content'] is string }}{% endfor %}"
    for fmt, shown in (("string", "True"), ("openai", "False")):
        with e2e.Server([MODEL, "--chat-template", template, "--chat-template-content-format", fmt],
                        name="flags") as s:
            status, _, raw = e2e.http("POST", s.base_url + "/tokenize",
                                      {"model": MODEL, "messages": MESSAGES, "add_special_tokens": False})
            assert status == 200, raw
            status, _, text = e2e.http("POST", s.base_url + "/detokenize",
                                       {"model": MODEL, "tokens": json.loads(raw)["tokens"]})
            assert json.loads(text)["prompt"] == shown, (fmt, text)


TOOL = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


def prompt_tokens(s, **kw):
    return s.client().chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=1, **kw).usage.prompt_tokens


def test_exclude_tools_when_tool_choice_none():
    with e2e.Server([MODEL] + e2e.TOOL_FLAGS, name="flags") as s:
        bare = prompt_tokens(s)
        assert prompt_tokens(s, tools=TOOL, tool_choice="none") > bare  # vLLM default: tools stay
    with e2e.Server([MODEL] + e2e.TOOL_FLAGS + ["--exclude-tools-when-tool-choice-none"], name="flags") as s:
        assert prompt_tokens(s, tools=TOOL, tool_choice="none") == bare
        assert prompt_tokens(s, tools=TOOL) > bare


def test_enable_prompt_tokens_details():
    long_prompt = "The same long prompt, repeated so that its blocks are cached: " * 4
    for flag, shown in (([], False), (["--enable-prompt-tokens-details"], True)):
        with e2e.Server([MODEL] + flag, name="flags") as s:
            c = s.client()
            c.completions.create(model=MODEL, prompt=long_prompt, max_tokens=1)
            details = c.completions.create(model=MODEL, prompt=long_prompt, max_tokens=1).usage.prompt_tokens_details
            if shown:
                assert details is not None and details.cached_tokens >= 16, details
            else:
                assert details is None


def test_request_logging_and_log_level():
    prompt = "A prompt whose text the request log shows cut short."
    with e2e.Server([MODEL, "--enable-log-requests", "--max-log-len", "12"], name="flags") as s:
        s.client().chat.completions.create(model=MODEL, messages=[{"role": "user", "content": prompt}], max_tokens=1)
        line = next(l for l in s.log().splitlines() if "Received request chatcmpl-" in l)
        assert 'prompt: "<bos><|turn>",' in line and prompt not in line, line  # 12 characters
    with e2e.Server([MODEL, "--log-level", "warning"], name="flags") as s:
        s.client().chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=1)
    assert "Received request" not in s.log()  # off by default
    assert not [l for l in s.log().splitlines() if l.startswith("INFO ")], s.log()


def test_disable_log_stats():
    """The throughput line comes every 10 s while there is traffic, unless --disable-log-stats."""
    import time
    for flag, shown in (([], True), (["--disable-log-stats"], False)):
        with e2e.Server([MODEL] + flag, name="flags") as s:
            s.client().completions.create(model=MODEL, prompt="Hi", max_tokens=2)
            time.sleep(11)
            assert ("Avg prompt throughput" in s.log()) == shown, s.log()


def test_hf_token_and_download_dir(tmp_path):
    """--hf-token is the hub's Bearer token and --download-dir the cache the model is downloaded
    to and loaded from (vLLM: huggingface_hub cache_dir), instead of HF_TOKEN and the HF cache."""
    log = tmp_path / "hub.log"
    hub = subprocess.Popen([sys.executable, os.path.join(e2e.SOURCE_DIR, "tests", "hub", "fake_hub.py"),
                            e2e.model_dir(), MODEL, e2e.SNAPSHOT, "--token", "s3cret", "--log", str(log)],
                           stdout=subprocess.PIPE, text=True)
    try:
        port = int(hub.stdout.readline())
        env = {"HF_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "0", "HF_TOKEN": "",
               "HF_ENDPOINT": f"http://127.0.0.1:{port}"}
        downloads = tmp_path / "downloads"
        refused = e2e.Server([MODEL, "--download-dir", str(downloads)], env=env, name="flags-hub")
        with pytest.raises(RuntimeError) as e:
            refused.start()
        assert "HTTP 401" in str(e.value)
        with e2e.Server([MODEL, "--hf-token", "s3cret", "--download-dir", str(downloads)], env=env,
                        name="flags-hub") as s:
            assert s.client().completions.create(model=MODEL, prompt="Hi", max_tokens=1).usage.completion_tokens == 1
        snapshot = downloads / ("models--" + MODEL.replace("/", "--")) / "snapshots" / e2e.SNAPSHOT
        assert (snapshot / "config.json").is_file() and list(snapshot.glob("*.safetensors"))
        assert not (tmp_path / "home" / "hub").exists()  # the HF cache stayed untouched
        assert "auth=Bearer s3cret" in log.read_text()
    finally:
        hub.terminate()
        hub.wait()
