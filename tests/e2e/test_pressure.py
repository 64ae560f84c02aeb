"""Serving under pressure, through the HTTP API of real `gemmad serve` processes: chunked prefill,
prefix caching, preemption under a tight KV budget, client disconnects, SIGTERM with streams in
flight, and `gemmad bench serve` against a live server. See docs/serving-under-pressure.md.

Prompts are random token ids (the e2e model's sliding window is 32 tokens, blocks are 16), so the
lengths are exact. Outputs are compared as text plus per-token top logprobs (greedy) and as text
of seeded samples.
"""
import concurrent.futures as futures
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import time

import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
LOGPROB_TOL = 1e-4  # exact on x86 today; a little room for kernels whose sums depend on batch shape


def ids(seed, n):
    rng = random.Random(seed)
    return [rng.randrange(1000, 200000) for _ in range(n)]


def complete(server, prompt, max_tokens=8, **kw):
    body = {"model": MODEL, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0, "ignore_eos": True}
    body.update(kw)
    status, _, raw = e2e.http("POST", server.base_url + "/v1/completions", body, timeout=120)
    assert status == 200, raw
    return json.loads(raw)["choices"][0]


def greedy(server, prompt, max_tokens=8):
    c = complete(server, prompt, max_tokens, logprobs=3)
    lp = c["logprobs"]
    return c["text"], lp["tokens"], lp["token_logprobs"], lp["top_logprobs"]


def sampled(server, prompt, seed, max_tokens=8):
    return complete(server, prompt, max_tokens, temperature=1.0, seed=seed)["text"]


def assert_same_greedy(a, b):
    text_a, tokens_a, lps_a, tops_a = a
    text_b, tokens_b, lps_b, tops_b = b
    assert text_a == text_b
    assert tokens_a == tokens_b
    for x, y in zip(lps_a, lps_b):
        assert abs(x - y) <= LOGPROB_TOL, (lps_a, lps_b)
    for ta, tb in zip(tops_a, tops_b):
        assert set(ta) == set(tb), (ta, tb)
        for k in ta:
            assert abs(ta[k] - tb[k]) <= LOGPROB_TOL, (ta, tb)


def histogram_counts(server, name):
    """{le: cumulative count} of a Prometheus histogram."""
    out = {}
    for key, v in server.metrics().items():
        if key.startswith(name + "_bucket{"):
            le = key.split('le="', 1)[1].split('"', 1)[0]
            out[le] = v
    return out


def labeled(server, name, label):
    """Sum of the samples of `name` whose label set contains `label` (e.g. 'finished_reason="abort"')."""
    return sum(v for k, v in server.metrics().items() if k.startswith(name + "{") and label in k)


def wait_for(pred, timeout=10.0, step=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(step)
    return pred()


class Stream:
    """A raw streaming /v1/completions request over http.client (so that it can be dropped)."""

    def __init__(self, server, prompt, max_tokens):
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        body = json.dumps({"model": MODEL, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0,
                           "ignore_eos": True, "stream": True})
        self.conn.request("POST", "/v1/completions", body, {"Content-Type": "application/json"})
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200
        self.events = []
        self.done = False

    def next_event(self):
        while True:
            line = self.resp.readline()
            if not line:
                return None
            line = line.strip()
            if line.startswith(b"data: "):
                data = line[6:].decode()
                self.events.append(data)
                if data == "[DONE]":
                    self.done = True
                return data

    def read_all(self):
        while self.next_event() is not None:
            pass
        return self.events

    def text_and_finish(self):
        text, finish = "", None
        for e in self.events:
            if e == "[DONE]":
                continue
            c = json.loads(e)["choices"]
            if c:
                text += c[0]["text"]
                finish = c[0]["finish_reason"] or finish
        return text, finish

    def close(self):
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.conn.close()


def start_servers(specs):
    """Starts the servers in parallel (each load is mostly single-threaded I/O and parsing)."""
    servers = [e2e.Server(args, name=name) for name, args in specs]
    with futures.ThreadPoolExecutor(len(servers)) as pool:
        list(pool.map(lambda s: s.start(), servers))
    return servers


@pytest.fixture(scope="module")
def fleet():
    """default: prefix caching on; nocache: --no-enable-prefix-caching; chunked: a 64-token step
    budget without caching; tight: a KV cache of ~20 blocks per group."""
    names = ["default", "nocache", "chunked", "tight"]
    servers = start_servers([
        ("default", [MODEL]),
        ("nocache", [MODEL, "--no-enable-prefix-caching"]),
        ("chunked", [MODEL, "--no-enable-prefix-caching", "--max-num-batched-tokens", "64"]),
        ("tight", [MODEL, "--max-model-len", "256", "--kv-cache-memory-bytes", "220000"]),
    ])
    yield dict(zip(names, servers))
    for s in servers:
        rc = s.stop()
        assert rc == 0, f"gemmad serve exited with {rc}:\n{s.log()}"


def test_chunked_prefill_matches_one_shot_prefill(fleet):
    chunked, whole = fleet["chunked"], fleet["nocache"]
    for seed, n in [(1, 200), (2, 65), (3, 130)]:  # all longer than the 64-token budget
        p = ids(seed, n)
        assert_same_greedy(greedy(chunked, p), greedy(whole, p))
        assert sampled(chunked, p, seed=seed) == sampled(whole, p, seed=seed)
    # Every step of the chunked server stayed within its budget; the other one ran bigger steps.
    h = histogram_counts(chunked, "vllm:iteration_tokens_total")
    assert h["64.0"] == h["+Inf"] > 0, h
    big = histogram_counts(whole, "vllm:iteration_tokens_total")
    assert big["+Inf"] > big["128.0"], big


def test_prefix_caching_hits_and_matches_uncached(fleet):
    cached, uncached = fleet["default"], fleet["nocache"]
    base = ids(10, 150)  # > the sliding window: sliding blocks of the prefix were dropped
    prompts = [base, base, base[:100] + ids(11, 50), ids(12, 20)]
    hits0 = cached.metric("vllm:prefix_cache_hits_total")
    queries0 = cached.metric("vllm:prefix_cache_queries_total")
    results = [greedy(cached, p) for p in prompts]
    hits1 = cached.metric("vllm:prefix_cache_hits_total")
    queries1 = cached.metric("vllm:prefix_cache_queries_total")
    assert queries1 - queries0 >= sum(len(p) for p in prompts)
    # The repeat hits every full block but the one holding the last token (>= 144 of 150), the
    # shared 100-token prefix at least its 6 full blocks (96).
    assert hits1 - hits0 >= 144 + 96, (hits0, hits1)
    for p, r in zip(prompts, results):
        assert_same_greedy(r, greedy(uncached, p))
    for i, p in enumerate(prompts):
        assert sampled(cached, p, seed=100 + i) == sampled(uncached, p, seed=100 + i)
    assert uncached.metric("vllm:prefix_cache_hits_total") == 0


def test_preemption_under_tight_kv(fleet):
    tight, roomy = fleet["tight"], fleet["default"]
    # 8 requests of 48 + 24 tokens (5 blocks each) against ~20 blocks per group.
    prompts = [ids(200 + i, 48) for i in range(8)]
    seq = [greedy(roomy, p, max_tokens=24) for p in prompts]
    seq_sampled = [sampled(roomy, p, seed=7 + i, max_tokens=24) for i, p in enumerate(prompts)]
    before = tight.metric("vllm:num_preemptions_total")
    with futures.ThreadPoolExecutor(16) as pool:
        g = [pool.submit(greedy, tight, p, 24) for p in prompts]
        s = [pool.submit(sampled, tight, p, 7 + i, 24) for i, p in enumerate(prompts)]
        conc = [f.result(timeout=120) for f in g]
        conc_sampled = [f.result(timeout=120) for f in s]
    assert tight.metric("vllm:num_preemptions_total") > before
    for a, b in zip(conc, seq):
        assert_same_greedy(a, b)
    assert conc_sampled == seq_sampled
    assert wait_for(lambda: tight.metric("vllm:num_requests_running") == 0)
    assert tight.metric("vllm:kv_cache_usage_perc") == 0


def test_request_that_can_never_fit_is_rejected(fleet):
    tight = fleet["tight"]
    t0 = time.time()
    status, _, raw = e2e.http("POST", tight.base_url + "/v1/completions",
                              {"model": MODEL, "prompt": ids(300, 200), "max_tokens": 100}, timeout=30)
    assert status == 400, raw
    err = json.loads(raw)["error"]
    assert "maximum context length is 256 tokens" in err["message"], err
    assert time.time() - t0 < 5
    # The server keeps serving.
    assert complete(tight, ids(301, 10), max_tokens=4)["finish_reason"] == "length"
    assert tight.metric("vllm:num_requests_waiting") == 0


def test_client_disconnect_frees_the_request(fleet):
    server = fleet["default"]
    assert wait_for(lambda: server.metric("vllm:num_requests_running") == 0)
    idle_usage = server.metric("vllm:kv_cache_usage_perc")
    abort0 = labeled(server, "vllm:request_success_total", 'finished_reason="abort"')
    st = Stream(server, ids(400, 40), max_tokens=4000)
    for _ in range(3):
        assert st.next_event() not in (None, "[DONE]")
    assert server.metric("vllm:num_requests_running") == 1
    assert server.metric("vllm:kv_cache_usage_perc") > idle_usage
    st.close()
    assert wait_for(lambda: server.metric("vllm:num_requests_running") == 0, timeout=5), server.metrics()
    assert wait_for(lambda: server.metric("vllm:kv_cache_usage_perc") == idle_usage, timeout=5)
    assert labeled(server, "vllm:request_success_total", 'finished_reason="abort"') >= abort0 + 1
    # And the server still answers.
    assert complete(server, ids(401, 8), max_tokens=2)["finish_reason"] == "length"


def test_disconnects_under_preemption_leave_nothing_behind(fleet):
    tight = fleet["tight"]
    assert wait_for(lambda: tight.metric("vllm:num_requests_running") == 0)
    before = tight.metric("vllm:num_preemptions_total")
    # 8 x (48 + 200) tokens against ~20 blocks: some streams run, others wait or get preempted.
    with futures.ThreadPoolExecutor(8) as pool:
        streams = list(pool.map(lambda i: Stream(tight, ids(700 + i, 48), max_tokens=200), range(8)))
    first = streams[0]
    for _ in range(40):
        assert first.next_event() not in (None, "[DONE]")
    assert wait_for(lambda: tight.metric("vllm:num_preemptions_total") > before, timeout=30)
    for st in streams:
        st.close()
    assert wait_for(lambda: tight.metric("vllm:num_requests_running") == 0
                    and tight.metric("vllm:num_requests_waiting") == 0, timeout=10), tight.metrics()
    assert wait_for(lambda: tight.metric("vllm:kv_cache_usage_perc") == 0, timeout=5)
    assert complete(tight, ids(799, 8), max_tokens=2)["finish_reason"] == "length"


def test_sigterm_drains_streams_and_refuses_new_connections():
    s = e2e.Server([MODEL, "--shutdown-timeout", "30"], name="sigterm").start()
    try:
        streams = [Stream(s, ids(500 + i, 16), max_tokens=120) for i in range(3)]
        for st in streams:
            assert st.next_event() not in (None, "[DONE]")
        t0 = time.time()
        s.proc.send_signal(signal.SIGTERM)

        def refused():
            try:
                socket.create_connection(("127.0.0.1", s.port), timeout=1).close()
                return False
            except (ConnectionRefusedError, ConnectionResetError):
                # Reset: the connect raced the listening socket's close and was dropped from
                # its backlog. Either way the server did not take the connection.
                return True
        assert wait_for(refused, timeout=5)
        assert any(not st.done for st in streams), "streams finished before the check"
        for st in streams:
            st.read_all()
            assert st.done and st.events[-1] == "[DONE]"
            text, finish = st.text_and_finish()
            assert finish == "length"
        rc = s.proc.wait(timeout=30)
        assert rc == 0, s.log()
        assert time.time() - t0 < 30
    finally:
        s.stop()


def test_sigterm_grace_period_expiry_aborts_streams():
    s = e2e.Server([MODEL, "--shutdown-timeout", "1"], name="sigterm-grace").start()
    try:
        st = Stream(s, ids(600, 16), max_tokens=4000)
        assert st.next_event() not in (None, "[DONE]")
        t0 = time.time()
        s.proc.send_signal(signal.SIGTERM)
        st.read_all()
        _, finish = st.text_and_finish()
        assert finish == "abort", st.events[-3:]
        assert st.events[-1] == "[DONE]"
        assert s.proc.wait(timeout=15) == 0, s.log()
        assert time.time() - t0 < 10
    finally:
        s.stop()


def test_bench_serve_against_gemmad(fleet, tmp_path):
    server = fleet["default"]
    out = tmp_path / "result.json"
    env = dict(os.environ, HF_HOME=e2e.hf_home(), HF_HUB_OFFLINE="1")
    n, inp, outp = 12, 24, 6
    p = subprocess.run([e2e.BIN, "bench", "serve", "--base-url", server.base_url, "--num-prompts", str(n),
                        "--max-concurrency", "4", "--random-input-len", str(inp), "--random-output-len", str(outp),
                        "--request-rate", "50", "--seed", "3", "--result-json", str(out)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "============ Serving Benchmark Result ============" in p.stdout
    assert "Successful requests:                     12" in p.stdout, p.stdout
    r = json.loads(out.read_text())
    assert r["completed"] == n and r["failed"] == 0
    assert r["total_input_tokens"] == n * inp
    assert r["total_output_tokens"] == n * outp  # ignore_eos
    assert r["model_id"] == MODEL and r["max_concurrency"] == 4 and r["request_rate"] == 50
    assert r["duration"] > 0 and r["request_throughput"] > 0 and r["output_throughput"] > 0
    for k in ("ttft", "tpot", "itl", "e2el"):
        for stat in ("mean", "median", "p99"):
            assert r[f"{stat}_{k}_ms"] >= 0, k
    assert 0 < r["mean_ttft_ms"] <= r["mean_e2el_ms"]
    assert r["output_lens"] == [outp] * n
    # One inter-token gap per streamed chunk after the first (as vLLM's bench); a loaded server may
    # merge pending tokens of a slow reader into one chunk, so there are at most outp - 1.
    assert all(1 <= len(itl) <= outp - 1 for itl in r["itls"]), r["itls"]
    assert all(ttft + sum(itl) <= r["duration"] for ttft, itl in zip(r["ttfts"], r["itls"]))
    # Bad input: one line, exit 2.
    bad = subprocess.run([e2e.BIN, "bench", "serve", "--base-url", server.base_url, "--num-prompts", "0"],
                         capture_output=True, text=True, env=env, timeout=30)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
