"""Tensor parallelism on the CPU (`gemmad serve -tp N`, docs/tensor-parallel.md) through the openai
client: the server relaunches itself under mpirun with N ranks, each holding 1/N of every layer; its
answers equal the single-process server's token for token (greedy chat and completions, batched
concurrent requests, streaming, n-gram speculative decoding) with logprobs within reduction-order
rounding, at -tp 2 (KV heads split) and -tp 4 (four ranks on two cores, KV heads replicated).
Sizes the model cannot be split into are one-line startup errors; SIGTERM drains through rank 0
and ends every rank; a rank that dies ends the whole server instead of leaving it hung."""
import concurrent.futures
import json
import os
import signal
import subprocess
import time

import pytest

import gemmad_e2e as e2e
import media_util as mu

MODEL = e2e.DEFAULT_REPO
PROMPTS = ["Hello!", "Write a short poem about the sea.", "Count: one two three one two three one two",
           "What is the capital of France?"]


@pytest.fixture(scope="module")
def plain():
    yield from e2e.module_server([MODEL] + e2e.TOOL_FLAGS, name="tp-plain")


@pytest.fixture(scope="module")
def tp2():
    yield from e2e.module_server([MODEL] + e2e.TOOL_FLAGS + ["-tp", "2"], name="tp-2")


@pytest.fixture(scope="module")
def tp4():
    yield from e2e.module_server([MODEL] + e2e.TOOL_FLAGS + ["--tensor-parallel-size", "4"], name="tp-4")


def chat(server, content, **kw):
    r = server.client().chat.completions.create(model=MODEL, messages=[{"role": "user", "content": content}], **kw)
    return r.choices[0]


def ranks_of(server):
    """Pids of the server's ranks (the processes mpirun started for it)."""
    out = subprocess.run(["pgrep", "-f", f"GEMMAD_TP_LAUNCHED=1 .*--port {server.port}$"], capture_output=True,
                         text=True).stdout.split()
    mpirun = [int(p) for p in out]
    ranks = []
    for m in mpirun:
        ranks += [int(p) for p in subprocess.run(["pgrep", "-P", str(m)], capture_output=True, text=True).stdout.split()]
    return ranks


@pytest.mark.parametrize("name", ["tp2", "tp4"])
def test_greedy_equals_one_process(plain, name, request):
    tp = request.getfixturevalue(name)
    n = 2 if name == "tp2" else 4
    assert f"tensor parallel: {n} ranks hold their shards" in tp.log()
    assert len(ranks_of(tp)) == n
    for p in PROMPTS:
        a = chat(plain, p, max_tokens=40, temperature=0, logprobs=True, top_logprobs=3)
        b = chat(tp, p, max_tokens=40, temperature=0, logprobs=True, top_logprobs=3)
        assert (b.message.content, b.message.reasoning) == (a.message.content, a.message.reasoning), p
        assert b.finish_reason == a.finish_reason
        ta = [t.token for t in a.logprobs.content]
        tb = [t.token for t in b.logprobs.content]
        assert ta == tb
        diff = max(abs(x.logprob - y.logprob) for x, y in zip(a.logprobs.content, b.logprobs.content))
        assert diff < 1e-3, (p, diff)
        for x, y in zip(a.logprobs.content, b.logprobs.content):
            assert [t.token for t in y.top_logprobs][:1] == [t.token for t in x.top_logprobs][:1]
        ca = plain.client().completions.create(model=MODEL, prompt=p, max_tokens=32, temperature=0)
        cb = tp.client().completions.create(model=MODEL, prompt=p, max_tokens=32, temperature=0)
        assert cb.choices[0].text == ca.choices[0].text


def complete(server, prompt, **kw):
    return server.client().completions.create(model=MODEL, prompt=prompt, **kw).choices[0].text


def test_concurrent_and_streaming_requests_equal_one_process(plain, tp2):
    # Several sequences in each step (prefill and decode mixed), as the engine batches them.
    def run(server, p):
        return complete(server, p, max_tokens=48, temperature=0, extra_body={"ignore_eos": True})
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        want = list(pool.map(lambda p: run(plain, p), PROMPTS * 2))
        got = list(pool.map(lambda p: run(tp2, p), PROMPTS * 2))
    assert got == want
    assert len(set(want)) == len(PROMPTS) and all(len(w) > 40 for w in want)
    stream = tp2.client().completions.create(model=MODEL, prompt=PROMPTS[1], max_tokens=40, temperature=0,
                                             stream=True)
    text = "".join(c.choices[0].text for c in stream if c.choices)
    assert text == complete(plain, PROMPTS[1], max_tokens=40, temperature=0)


def test_image_request_equals_one_process(plain, tp2):
    # The vision tower runs on rank 0; its soft tokens travel to the other ranks with the step.
    url = mu.data_url(mu.encode(mu.picture(320, 240, seed=3), "PNG"), "image/png")
    messages = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}},
                                             {"type": "text", "text": "Describe the picture."}]}]
    out = []
    for server in (plain, tp2):
        r = server.client().chat.completions.create(model=MODEL, messages=messages, max_tokens=24, temperature=0,
                                                    logprobs=True)
        out.append(([t.token for t in r.choices[0].logprobs.content], r.usage.prompt_tokens))
    assert out[1] == out[0]
    assert out[0][1] > 200  # the image's soft tokens are in the prompt


def test_seeded_sampling_equals_one_process(plain, tp2):
    for seed in (1, 2):
        kw = dict(max_tokens=32, temperature=0.8, top_p=0.9, seed=seed)
        assert complete(tp2, PROMPTS[2], **kw) == complete(plain, PROMPTS[2], **kw)


def test_ngram_speculation_under_tp_equals_one_process(plain):
    spec = ["--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": 3,
                                                "prompt_lookup_min": 1, "prompt_lookup_max": 3})]
    with e2e.Server([MODEL] + spec + ["-tp", "2"], name="tp-ngram") as s:
        for p in PROMPTS[1:3]:
            assert complete(s, p, max_tokens=40, temperature=0) == complete(plain, p, max_tokens=40, temperature=0)
        assert s.metric("vllm:spec_decode_num_drafts_total") > 0
    assert s.proc.returncode == 0, s.log()


def test_sizes_the_model_cannot_split_are_startup_errors():
    s = e2e.Server([MODEL, "-tp", "3"], name="tp-3")
    t0 = time.time()
    r = subprocess.run([e2e.BIN, "serve"] + s.args, cwd=e2e.SOURCE_DIR, env=s.env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert lines[-1] == "gemmad serve: error: tensor parallel size 3 does not divide the 4 attention heads of this model"
    assert "mpirun" not in r.stderr  # refused before any rank starts
    assert time.time() - t0 < 60
    assert "Traceback" not in r.stderr and "terminate called" not in r.stderr


def assert_ranks_gone(ranks, within=15.0):
    """Every rank process ends (or is a zombie) soon after the server does: mpirun's teardown of the
    last ranks may lag the launcher's own exit by a moment on a loaded machine, never forever."""
    def alive(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split()[2] != "Z"
        except FileNotFoundError:
            return False
    deadline = time.time() + within
    while any(alive(pid) for pid in ranks) and time.time() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in ranks if alive(pid)], f"ranks still running {within} s after the server ended"


def test_sigterm_drains_every_rank():
    s = e2e.Server([MODEL, "-tp", "2"], name="tp-drain").start()
    ranks = ranks_of(s)
    assert len(ranks) == 2
    stream = s.client().completions.create(model=MODEL, prompt="Once upon a time", max_tokens=200, temperature=0,
                                           stream=True, extra_body={"ignore_eos": True})
    chunks = iter(stream)
    next(chunks)
    s.proc.send_signal(signal.SIGTERM)
    rest = list(chunks)
    assert rest and rest[-1].choices[0].finish_reason == "length"  # the request finished, not cut
    assert s.proc.wait(60) == 0, s.log()
    assert "Shutdown complete." in s.log()
    assert_ranks_gone(ranks)


def test_a_dead_rank_stops_the_server():
    s = e2e.Server([MODEL, "-tp", "2"], name="tp-dead").start()
    ranks = ranks_of(s)
    assert len(ranks) == 2
    worker = max(ranks)  # mpirun starts rank 0 first
    os.kill(worker, signal.SIGKILL)
    t0 = time.time()
    rc = s.proc.wait(60)
    assert rc != 0
    assert time.time() - t0 < 30
    assert "exited on signal 9" in s.log()
    assert_ranks_gone(ranks)


def test_threads_bind_pins_each_rank(plain):
    # vLLM's VLLM_CPU_OMP_THREADS_BIND: one CPU list per rank; each rank runs (and counts its threads) there.
    env = {"VLLM_CPU_OMP_THREADS_BIND": "0|1"}
    with e2e.Server([MODEL, "-tp", "2"], env=env, name="tp-bind") as s:
        allowed = set()
        for pid in ranks_of(s):
            with open(f"/proc/{pid}/status") as f:
                allowed |= {l.split()[1] for l in f if l.startswith("Cpus_allowed_list")}
        assert allowed == {"0", "1"}
        assert "tensor parallel rank 1 of 2: shard loaded, 1 threads" in s.log()
        assert complete(s, PROMPTS[0], max_tokens=16, temperature=0) == complete(plain, PROMPTS[0], max_tokens=16,
                                                                                   temperature=0)
    assert s.proc.returncode == 0, s.log()
    bad = e2e.Server([MODEL, "-tp", "2"], env={"VLLM_CPU_OMP_THREADS_BIND": "0|1|2"}, name="tp-bind-bad")
    r = subprocess.run([e2e.BIN, "serve"] + bad.args, cwd=e2e.SOURCE_DIR, env=bad.env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2
    assert "has 3 CPU lists for 2 tensor-parallel ranks" in r.stderr


def test_under_an_mpi_launcher(plain, tmp_path):
    # Several hosts run the ranks under the user's own mpirun (here one host named by --host): gemmad
    # joins the launcher's ranks instead of relaunching; SIGTERM to rank 0 (the HTTP server) drains
    # and ends every rank.
    s = e2e.Server([MODEL, "-tp", "2"], name="tp-mpirun")
    pidfile = str(tmp_path / "rank0.pid")
    env = dict(s.env, GEMMAD_TP_PIDFILE=pidfile)
    cmd = ["mpirun", "--host", "localhost:2", "-np", "2", "--mca", "btl_vader_single_copy_mechanism", "none"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    with open(s.log_path, "wb") as log:
        proc = subprocess.Popen(cmd + [e2e.BIN, "serve"] + s.args, cwd=e2e.SOURCE_DIR, env=env, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            deadline = time.time() + 120
            while time.time() < deadline and not os.path.exists(pidfile):
                assert proc.poll() is None, s.log()
                time.sleep(0.1)
            while time.time() < deadline:
                try:
                    if e2e.http("GET", s.base_url + "/health", timeout=2)[0] == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.1)
            assert "--tensor-parallel-size 2: starting" not in s.log()  # joined, not relaunched
            assert complete(s, PROMPTS[1], max_tokens=24, temperature=0) == complete(plain, PROMPTS[1], max_tokens=24,
                                                                                      temperature=0)
            with open(pidfile) as f:
                os.kill(int(f.read()), signal.SIGTERM)
            assert proc.wait(60) == 0, s.log()
        finally:
            if proc.poll() is None:
                proc.kill()
