"""64 concurrent streaming requests (threads): the engine batches them (/metrics shows
`vllm:num_requests_running` > 1 while they run) and, at temperature 0, every streamed output
equals the same request's result when it was sent alone."""
import threading
import time

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
N = 64
MAX_TOKENS = 8


def prompts():
    # Distinct prompts of different lengths; half chat, half completions.
    words = ["alpha", "beta", "gamma", "delta", "ocean", "river", "stone", "cloud"]
    return [" ".join(words[(i + k) % len(words)] for k in range(1 + i % 7)) + f" {i}" for i in range(N)]


def run_one(client, i, p, stream):
    if i % 2 == 0:
        kw = dict(model=MODEL, messages=[{"role": "user", "content": p}, {"role": "assistant", "content": p}],
                  max_tokens=MAX_TOKENS, temperature=0,
                  extra_body={"add_generation_prompt": False, "continue_final_message": True,
                              "return_token_ids": True})
        if not stream:
            c = client.chat.completions.create(**kw).choices[0]
            return c.message.content, c.token_ids
        text, ids = "", []
        for ch in client.chat.completions.create(stream=True, **kw):
            for c in ch.choices:
                text += c.delta.content or ""
                ids += getattr(c, "token_ids", None) or []
        return text, ids
    kw = dict(model=MODEL, prompt=p, max_tokens=MAX_TOKENS, temperature=0, extra_body={"return_token_ids": True})
    if not stream:
        c = client.completions.create(**kw).choices[0]
        return c.text, c.token_ids
    text, ids = "", []
    for ch in client.completions.create(stream=True, **kw):
        for c in ch.choices:
            text += c.text
            ids += getattr(c, "token_ids", None) or []
    return text, ids


def test_64_concurrent_streams_match_sequential(server):
    client = server.client(timeout=300)
    ps = prompts()
    alone = [run_one(client, i, p, stream=False) for i, p in enumerate(ps)]
    assert all(len(ids) == MAX_TOKENS for _, ids in alone)

    results = [None] * N
    errors = []
    running_seen = []
    stop = threading.Event()
    start = threading.Barrier(N + 1)

    def poll():
        name = f'vllm:num_requests_running{{model_name="{MODEL}",engine="0"}}'
        while not stop.is_set():
            running_seen.append(server.metrics().get(name, 0.0))
            time.sleep(0.01)

    def worker(i):
        try:
            c = server.client(timeout=300)
            start.wait()
            results[i] = run_one(c, i, ps[i], stream=True)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append((i, repr(e)))

    poller = threading.Thread(target=poll)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(N)]
    for t in threads:
        t.start()
    poller.start()
    t0 = time.time()
    start.wait()
    for t in threads:
        t.join(300)
    elapsed = time.time() - t0
    stop.set()
    poller.join()
    assert not errors, errors
    mismatches = [(i, alone[i], results[i]) for i in range(N) if results[i] != alone[i]]
    assert not mismatches, mismatches[:3]
    assert max(running_seen) > 1, (max(running_seen), len(running_seen))
    print(f"64 concurrent streams: {elapsed:.2f} s, max num_requests_running {max(running_seen):.0f}")
    # All requests are done and counted.
    deadline = time.time() + 5
    while server.metric("vllm:num_requests_running") != 0 and time.time() < deadline:
        time.sleep(0.05)
    assert server.metric("vllm:num_requests_running") == 0
