#!/usr/bin/env python3
"""Load and fault runs against a real `gemmad serve` (issue 29), on loopback only, every loop
bounded in count and time. Each scenario starts its own server over the end-to-end test model
(`gemmad make-test-model --preset e2e`: tiny random weights, the real 262,144-token tokenizer) and
reports what it measured; a scenario that breaks its expectation is listed as FAILED and the exit
code is 1.

  streams     N concurrent streaming clients (default 1000): every one gets 200 and [DONE], peak
              server RSS, and afterwards nothing running or waiting and the KV cache empty
  idle        K idle TCP connections (default 10000) while ordinary requests are served; the
              server closes every idle one after its keep-alive timeout (5 s)
  emfile      the server limited to 256 file descriptors and 400 clients: no accept spin, and it
              serves again once they leave
  slow        200 clients trickling their headers, 200 trickling their bodies: the server closes
              them (the bodies with 408) while ordinary requests are served
  disconnect  300 streams dropped by their clients at random points (before the first chunk, in
              prefill, in decode): afterwards nothing running or waiting and the KV cache empty
  kv          200 requests at once on a cache that holds a handful: all finish (preemption)
  sigterm     200 streams, then SIGTERM: every stream ends with [DONE], exit code 0

  python3 bench/serve_under_load.py --gemmad build/release/gemmad [--scenarios streams,idle,...]
      [--clients 1000] [--idle 10000] [--out results.json]
"""
import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

MODEL_NAME = "gemma4-tiny"


def lscpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        return next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except Exception:  # noqa: BLE001
        return "unknown"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    def __init__(self, gemmad, model, args=(), env=None, prefix=()):
        self.port = free_port()
        self.log = tempfile.NamedTemporaryFile(prefix="gemmad-load-", suffix=".log", delete=False)
        e = dict(os.environ, VLLM_CPU_KVCACHE_SPACE="1", **(env or {}))
        self.proc = subprocess.Popen([*prefix, gemmad, "serve", model, "--served-model-name", MODEL_NAME,
                                      "--host", "127.0.0.1", "--port", str(self.port), "--disable-log-stats",
                                      *args], stdout=self.log, stderr=subprocess.STDOUT, env=e)
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited during startup; log {self.log.name}")
            try:
                if request("GET", self.port, "/health", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server not healthy in 120 s")

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024

    def metrics(self):
        _, body = request("GET", self.port, "/metrics")
        out = {}
        for line in body.decode().splitlines():
            if line and not line.startswith("#"):
                key, _, value = line.rpartition(" ")
                name = key.split("{")[0]
                out[name] = out.get(name, 0.0) + float(value)
        return out

    def settle(self, timeout=30):
        """Waits until nothing runs or waits and the KV cache is empty; returns the last metrics."""
        deadline = time.time() + timeout
        while True:
            m = self.metrics()
            idle = (m.get("vllm:num_requests_running", 0) == 0 and m.get("vllm:num_requests_waiting", 0) == 0
                    and m.get("vllm:kv_cache_usage_perc", 0) == 0)
            if idle or time.time() > deadline:
                return m, idle
            time.sleep(0.2)

    def stop(self, sig=signal.SIGTERM, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def request(method, port, path, body=None, timeout=60):
    """(status, body bytes) over one short-lived connection."""
    data = json.dumps(body).encode() if body is not None else b""
    head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(head + data)
        chunks = []
        while True:
            b = s.recv(65536)
            if not b:
                break
            chunks.append(b)
    raw = b"".join(chunks)
    status = int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/1.1 ") else 0
    return status, raw.split(b"\r\n\r\n", 1)[-1]


def completion_body(i, max_tokens, stream=True):
    return {"model": MODEL_NAME, "prompt": f"request {i}: " + "alpha beta gamma " * (1 + i % 5),
            "max_tokens": max_tokens, "temperature": 0, "ignore_eos": True, "stream": stream}


def stream_one(port, body, drop_after=None, timeout=300):
    """Streams one completion. Returns (status, saw_done, chunks). With drop_after=k the client
    closes its socket after k data chunks (0: right after sending the request)."""
    data = json.dumps(body).encode()
    head = (f"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode()
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(head + data)
        if drop_after == 0:
            return 0, False, 0
        buf = b""
        chunks = 0
        status = 0
        while True:
            b = s.recv(65536)
            if not b:
                break
            buf += b
            if not status and b"\r\n" in buf:
                status = int(buf.split(b" ", 2)[1])
            chunks = buf.count(b"data: ")
            if drop_after is not None and chunks >= drop_after:
                return status, False, chunks
        stream_one.aborted += b'"finish_reason":"abort"' in buf
        return status, b"data: [DONE]" in buf, chunks
    finally:
        s.close()


stream_one.aborted = 0  # streams whose last chunk said finish_reason "abort" (not thread-exact; a report)


def run_threads(n, fn):
    results = [None] * n

    def work(i):
        try:
            results[i] = fn(i)
        except Exception as e:  # noqa: BLE001 (counted as an error)
            results[i] = e

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    return results


def ordinary_ok(port, n=10):
    ok = 0
    for i in range(n):
        st, body = request("POST", port, "/v1/completions", completion_body(i, 4, stream=False), timeout=60)
        ok += st == 200
    return ok


def scenario_streams(a, model):
    srv = Server(a.gemmad, model)
    try:
        rss0 = srv.peak_rss_mib()
        t0 = time.time()
        res = run_threads(a.clients, lambda i: stream_one(srv.port, completion_body(i, a.tokens)))
        wall = time.time() - t0
        errors = [r for r in res if not (isinstance(r, tuple) and r[0] == 200 and r[1])]
        m, idle = srv.settle()
        out = {"clients": a.clients, "tokens_each": a.tokens, "errors": len(errors), "wall_s": round(wall, 1),
               "peak_rss_mib_before": round(rss0), "peak_rss_mib": round(srv.peak_rss_mib()),
               "idle_after": idle, "first_errors": [repr(e)[:200] for e in errors[:3]]}
        out["ok"] = not errors and idle
        return out
    finally:
        srv.stop()


def open_connections(port, n, socks, timeout):
    """Opens up to n idle connections into `socks` (stops at the first that fails)."""
    for _ in range(n):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=timeout))
        except OSError:
            break


def scenario_idle(a, model):
    srv = Server(a.gemmad, model)
    socks = []
    try:
        t0 = time.time()
        open_connections(srv.port, a.idle, socks, timeout=10)
        opened = len(socks)
        served = ordinary_ok(srv.port)
        time.sleep(7)  # past the 5 s keep-alive timeout
        closed = 0
        for s in socks:
            s.settimeout(0.5)
            try:
                closed += s.recv(1) == b""
            except (socket.timeout, OSError):
                pass
        served_after = ordinary_ok(srv.port)
        out = {"idle_opened": opened, "ordinary_served_meanwhile": f"{served}/10", "closed_by_server": closed,
               "ordinary_served_after": f"{served_after}/10", "peak_rss_mib": round(srv.peak_rss_mib()),
               "wall_s": round(time.time() - t0, 1)}
        out["ok"] = opened == a.idle and served == 10 and closed == opened and served_after == 10
        return out
    finally:
        for s in socks:
            s.close()
        srv.stop()


def scenario_emfile(a, model):
    """Out of file descriptors: the server runs with 256 of them and 400 clients connect. It must
    not spin on accept (CPU over 3 s stays small, one warning a second at most) and serves again
    once the connections are gone."""
    srv = Server(a.gemmad, model, prefix=["prlimit", "--nofile=256:256", "--"])
    socks = []
    try:
        open_connections(srv.port, 400, socks, timeout=2)
        cpu0 = srv.cpu_seconds()
        time.sleep(3)
        cpu = srv.cpu_seconds() - cpu0
        for s in socks:
            s.close()
        socks = []
        time.sleep(1)
        served = ordinary_ok(srv.port)
        with open(srv.log.name, errors="replace") as f:
            warnings = sum("accept failed" in line for line in f)
        out = {"connections": 400, "fd_limit": 256, "server_cpu_s_over_3s": round(cpu, 2),
               "accept_warnings": warnings, "ordinary_served_after": f"{served}/10"}
        out["ok"] = cpu < 1.0 and 0 < warnings <= 10 and served == 10
        return out
    finally:
        for s in socks:
            s.close()
        srv.stop()


def scenario_slow(a, model):
    srv = Server(a.gemmad, model, ["--request-body-timeout", "3"])
    try:
        n = 200
        stop = time.time() + 30

        def trickle(i):
            s = socket.create_connection(("127.0.0.1", srv.port), timeout=15)
            try:
                if i % 2:
                    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n{")
                else:
                    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: a\r\n")
                t0 = time.time()
                got = b""
                while time.time() < stop:
                    try:
                        s.sendall(b"x" if i % 2 else b"X")  # one byte a second, never finishing
                    except OSError:
                        break
                    s.settimeout(1.0)
                    try:
                        b = s.recv(4096)
                        if not b:
                            break
                        got += b
                    except socket.timeout:
                        pass
                return time.time() - t0, got[:12]
            finally:
                s.close()

        holder = {}
        th = threading.Thread(target=lambda: holder.setdefault("r", run_threads(n, trickle)))
        th.start()
        time.sleep(1)
        served = ordinary_ok(srv.port)
        th.join(60)
        res = holder.get("r", [])
        times = [r[0] for r in res if isinstance(r, tuple)]
        bodies_408 = sum(1 for r in res if isinstance(r, tuple) and r[1].startswith(b"HTTP/1.1 408"))
        out = {"trickling_clients": n, "ordinary_served_meanwhile": f"{served}/10",
               "closed_within_s_max": round(max(times), 1) if times else None, "body_trickles_answered_408": bodies_408}
        out["ok"] = served == 10 and len(times) == n and max(times) < 15 and bodies_408 == n // 2
        return out
    finally:
        srv.stop()


def scenario_disconnect(a, model):
    srv = Server(a.gemmad, model, ["--max-num-seqs", "64"])
    try:
        rng = random.Random(0)
        drops = [rng.choice([0, 1, 2, 5, 20]) for _ in range(300)]
        t0 = time.time()
        run_threads(300, lambda i: stream_one(srv.port, completion_body(i, 200), drop_after=drops[i]))
        m, idle = srv.settle(timeout=60)
        served = ordinary_ok(srv.port)
        out = {"streams_dropped": 300, "idle_after": idle, "running": m.get("vllm:num_requests_running"),
               "waiting": m.get("vllm:num_requests_waiting"), "kv_usage": m.get("vllm:kv_cache_usage_perc"),
               "ordinary_served_after": f"{served}/10", "wall_s": round(time.time() - t0, 1)}
        out["ok"] = idle and served == 10
        return out
    finally:
        srv.stop()


def scenario_kv(a, model):
    srv = Server(a.gemmad, model, ["--kv-cache-memory-bytes", "220000", "--max-model-len", "256"])
    try:
        t0 = time.time()
        res = run_threads(200, lambda i: stream_one(srv.port, completion_body(i, 48)))
        ok = sum(1 for r in res if isinstance(r, tuple) and r[0] == 200 and r[1])
        m, idle = srv.settle(timeout=60)
        out = {"requests": 200, "finished": ok, "preemptions": m.get("vllm:num_preemptions_total"),
               "idle_after": idle, "wall_s": round(time.time() - t0, 1)}
        out["ok"] = ok == 200 and idle
        return out
    finally:
        srv.stop()


def scenario_sigterm(a, model):
    srv = Server(a.gemmad, model)
    holder = {}
    th = threading.Thread(target=lambda: holder.setdefault(
        "r", run_threads(200, lambda i: stream_one(srv.port, completion_body(i, 64)))))
    stream_one.aborted = 0
    th.start()
    time.sleep(1.0)
    t0 = time.time()
    rc = srv.stop(timeout=120)
    th.join(120)
    res = holder.get("r", [])
    done = sum(1 for r in res if isinstance(r, tuple) and r[1])
    refused_or_done = sum(1 for r in res if isinstance(r, tuple) and (r[1] or r[0] in (0, 503)) or isinstance(r, OSError))
    out = {"streams": 200, "ended_with_done": done, "of_them_aborted_at_grace_end": stream_one.aborted,
           "not_started_refused": 200 - done,
           "exit_code": rc, "drain_s": round(time.time() - t0, 1)}
    out["ok"] = rc == 0 and refused_or_done == 200 and done > 0
    return out


SCENARIOS = {"streams": scenario_streams, "idle": scenario_idle, "emfile": scenario_emfile, "slow": scenario_slow,
             "disconnect": scenario_disconnect, "kv": scenario_kv, "sigterm": scenario_sigterm}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gemmad", required=True)
    p.add_argument("--scenarios", default=",".join(SCENARIOS))
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--tokens", type=int, default=16)
    p.add_argument("--idle", type=int, default=10000)
    p.add_argument("--out")
    a = p.parse_args()
    model = tempfile.mkdtemp(prefix="gemmad-load-model-")
    subprocess.run([a.gemmad, "make-test-model", model, "--preset", "e2e"], check=True, stdout=subprocess.DEVNULL)
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpu": lscpu_model(),
              "nproc": os.cpu_count(), "gemmad": a.gemmad, "scenarios": {}}
    failed = False
    for name in a.scenarios.split(","):
        t0 = time.time()
        r = SCENARIOS[name](a, model)
        r["scenario_s"] = round(time.time() - t0, 1)
        report["scenarios"][name] = r
        failed |= not r["ok"]
        print(f"{'ok    ' if r['ok'] else 'FAILED'} {name}: {json.dumps(r)}", flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(report, f, indent=1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
