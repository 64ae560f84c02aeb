"""Server flags whose effect shows through the API (each a fresh `gemmad serve`)."""
import json
import os
import re
import subprocess
import sys

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
    KV budget holds half the blocks. float16 is refused (the CPU backend has no f16 path)."""
    auto, bf16, f32 = kv_blocks([]), kv_blocks(["--dtype", "bfloat16"]), kv_blocks(["--dtype", "float32"])
    assert auto == bf16
    assert 0.4 * auto <= f32 <= 0.6 * auto, (auto, f32)
    s = e2e.Server([MODEL, "--dtype", "half"], name="flags")
    with pytest.raises(RuntimeError) as e:
        s.start()
    assert "exited with 2" in str(e.value) and "--dtype half" in str(e.value)


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
