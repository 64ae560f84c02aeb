"""Transport flags through real clients (shared/spec/api.md §1, vLLM's uvicorn + Starlette):
CORS (browser-like preflights and simple requests, default and restricted flags), TLS with curl
and the openai client (certificates made here with the openssl CLI), a client certificate required
with --ssl-cert-reqs 2 --ssl-ca-certs, certificates replaced under --enable-ssl-refresh, --uds with
curl --unix-socket, --root-path, and uvicorn's 400 for a malformed request line or a request over
--h11-max-incomplete-event-size / --h11-max-header-count over a raw socket."""
import json
import os
import re
import socket
import ssl
import subprocess
import time

import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
BASE = [MODEL, "--max-model-len", "256"]
UVICORN_400 = (b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
               b"Invalid HTTP request received.")


def curl(*args):
    """(status, {lowercase header: value}, body bytes) of one curl call (-i output)."""
    out = subprocess.run(["curl", "-sS", "-i", "--max-time", "30", *args], capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr.decode()
    head, _, body = out.stdout.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def curl_fails(*args):
    out = subprocess.run(["curl", "-sS", "--max-time", "30", *args], capture_output=True, timeout=60)
    return out.returncode != 0


def preflight(url, origin, method="POST", headers=None):
    args = ["-X", "OPTIONS", url, "-H", f"Origin: {origin}", "-H", f"Access-Control-Request-Method: {method}"]
    if headers:
        args += ["-H", f"Access-Control-Request-Headers: {headers}"]
    return curl(*args)


@pytest.fixture(scope="module")
def server():
    """Default CORS flags, --root-path /api."""
    yield from e2e.module_server(BASE + ["--root-path", "/api"], name="transport")


def test_cors_defaults(server):
    url = server.base_url + "/v1/chat/completions"
    status, h, body = preflight(url, "https://app.example", headers="authorization, content-type")
    assert (status, body) == (200, b"OK")
    assert h["content-type"] == "text/plain; charset=utf-8"
    assert h["access-control-allow-origin"] == "*"
    assert h["access-control-allow-methods"] == "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT"
    assert h["access-control-allow-headers"] == "authorization, content-type"
    assert h["access-control-max-age"] == "600"
    assert "access-control-allow-credentials" not in h and "vary" not in h
    # A simple request from a page gets the allow-origin header; one without Origin does not.
    status, h, _ = curl(server.base_url + "/v1/models", "-H", "Origin: https://app.example")
    assert status == 200 and h["access-control-allow-origin"] == "*"
    status, h, _ = curl(server.base_url + "/v1/models")
    assert status == 200 and "access-control-allow-origin" not in h
    # The browser's real request after the preflight, streamed: the headers are on the stream too.
    status, h, body = curl(url, "-H", "Origin: https://app.example", "-H", "Content-Type: application/json",
                           "-d", json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 2,
                                             "stream": True}))
    assert status == 200 and h["access-control-allow-origin"] == "*" and body.endswith(b"data: [DONE]\n\n")


def test_root_path(server):
    # FastAPI's root_path: the prefix is stripped when present; paths without it are served too.
    for path in ["/api/v1/models", "/v1/models"]:
        status, _, body = curl(server.base_url + path)
        assert status == 200 and json.loads(body)["data"][0]["id"] == MODEL, path
    assert curl(server.base_url + "/api/health")[0] == 200
    assert curl(server.base_url + "/other/v1/models")[0] == 404
    import openai
    client = openai.OpenAI(base_url=server.base_url + "/api/v1", api_key="EMPTY", max_retries=0)
    r = client.completions.create(model=MODEL, prompt="Hi", max_tokens=2, temperature=0)
    assert r.usage.completion_tokens == 2


def test_malformed_request_line(server):
    for raw in [b"GARBAGE\r\n\r\n", b"GET /v1/models HTTP/1.1\r\nHost: a\r\nno colon\r\n\r\n"]:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(raw)
            got = b""
            while chunk := s.recv(4096):  # the server closes after its answer
                got += chunk
        assert got == UVICORN_400, raw
    e2e.assert_still_serving(server)


def raw_exchange(port, raw):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(raw)
        got = b""
        while chunk := s.recv(65536):  # the server closes: after a 400, or on Connection: close
            got += chunk
    return got


def test_h11_limits(server):
    # vLLM's defaults (4 MiB of request line and headers, 256 fields): 100 KB of headers are served.
    big = b"".join(b"X-%d: %s\r\n" % (i, b"v" * 500) for i in range(200))
    big = b"GET /v1/models HTTP/1.1\r\nHost: a\r\n" + big + b"Connection: close\r\n\r\n"
    assert raw_exchange(server.port, big).startswith(b"HTTP/1.1 200 OK\r\n")
    # One field larger than gemmad's HTTP parser stores (64 KiB; h11 has no such bound): the 400.
    huge = b"GET /v1/models HTTP/1.1\r\nHost: a\r\nX-Huge: " + b"x" * 70_000 + b"\r\n\r\n"
    assert raw_exchange(server.port, huge) == UVICORN_400
    e2e.assert_still_serving(server)
    args = BASE + ["--h11-max-incomplete-event-size", "2048", "--h11-max-header-count", "8"]
    with e2e.Server(args, name="h11") as s:
        over = b"GET /v1/models HTTP/1.1\r\nHost: a\r\nX-Big: " + b"x" * 2100 + b"\r\n\r\n"
        assert raw_exchange(s.port, over) == UVICORN_400
        fields = [b"X-%d: v\r\n" % i for i in range(8)]  # with Host: 9 fields
        nine = b"GET /v1/models HTTP/1.1\r\nHost: a\r\n" + b"".join(fields) + b"\r\n"
        assert raw_exchange(s.port, nine) == UVICORN_400
        ok = b"GET /v1/models HTTP/1.1\r\nHost: a\r\n" + b"".join(fields[:6]) + b"Connection: close\r\n\r\n"
        assert raw_exchange(s.port, ok).startswith(b"HTTP/1.1 200 OK\r\n")
        e2e.assert_still_serving(s)


def test_cors_restricted_with_credentials():
    args = BASE + ["--allowed-origins", '["https://app.example"]', "--allowed-methods", '["GET", "POST"]',
                   "--allowed-headers", '["authorization", "content-type"]', "--allow-credentials",
                   "--api-key", "sk-test"]
    with e2e.Server(args, name="cors") as s:
        url = s.base_url + "/v1/chat/completions"
        status, h, body = preflight(url, "https://app.example", headers="Authorization, Content-Type")
        assert (status, body) == (200, b"OK")  # OPTIONS needs no API key
        assert h["access-control-allow-origin"] == "https://app.example" and h["vary"] == "Origin"
        assert h["access-control-allow-credentials"] == "true"
        assert h["access-control-allow-methods"] == "GET, POST"
        assert h["access-control-allow-headers"] == \
            "Accept, Accept-Language, Content-Language, Content-Type, authorization, content-type"
        status, h, body = preflight(url, "https://evil.example", method="DELETE", headers="x-other")
        assert (status, body) == (400, b"Disallowed CORS origin, method, headers")
        assert "access-control-allow-origin" not in h
        # Simple requests: the listed origin is echoed; another gets no allow-origin.
        auth = ["-H", "Authorization: Bearer sk-test"]
        status, h, _ = curl(s.base_url + "/v1/models", "-H", "Origin: https://app.example", *auth)
        assert status == 200 and h["access-control-allow-origin"] == "https://app.example"
        assert h["access-control-allow-credentials"] == "true" and h["vary"] == "Origin"
        status, h, _ = curl(s.base_url + "/v1/models", "-H", "Origin: https://evil.example", *auth)
        assert status == 200 and "access-control-allow-origin" not in h
        assert h["access-control-allow-credentials"] == "true"
        # vLLM's auth middleware answers 401 outside CORS: no CORS headers.
        status, h, _ = curl(s.base_url + "/v1/models", "-H", "Origin: https://app.example")
        assert status == 401 and "access-control-allow-origin" not in h


def test_uds(tmp_path):
    path = str(tmp_path / "g.sock")

    def ready():
        out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--unix-socket", path,
                              "http://localhost/health"], capture_output=True, timeout=10)
        return out.stdout == b"200"

    s = e2e.Server(BASE + ["--uds", path], name="uds", ready=ready)
    with s:
        assert "Starting gemmad API server on unix:" + path in s.log()
        status, _, body = curl("--unix-socket", path, "http://localhost/v1/models")
        assert status == 200 and json.loads(body)["data"][0]["id"] == MODEL
        status, _, body = curl("--unix-socket", path, "http://localhost/v1/completions", "-H",
                               "Content-Type: application/json", "-d",
                               json.dumps({"prompt": "Hi", "max_tokens": 2, "temperature": 0}))
        assert status == 200 and json.loads(body)["usage"]["completion_tokens"] == 2
        # host/port are ignored: nothing listens on the port.
        assert curl_fails(s.base_url + "/health")
        # A second server on the same path fails at startup, naming it.
        with pytest.raises(RuntimeError, match=re.escape("cannot bind unix:" + path)):
            e2e.Server(BASE + ["--uds", path], name="uds2", ready=lambda: False).start()
    assert not os.path.exists(path)


def make_cert(workdir, name, cn):
    key, cert = os.path.join(workdir, f"{name}-key.pem"), os.path.join(workdir, f"{name}.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={cn}",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", cert],
                   check=True, capture_output=True)
    return cert, key


def tls_ready(port, cafile, client=None):
    def ready():
        args = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", cafile]
        if client:
            args += ["--cert", client[0], "--key", client[1]]
        out = subprocess.run(args + [f"https://127.0.0.1:{port}/health"], capture_output=True, timeout=10)
        return out.stdout == b"200"
    return ready


def test_tls_curl_and_openai_client(tmp_path):
    cert, key = make_cert(str(tmp_path), "server", "127.0.0.1")
    port = e2e.free_port()
    args = BASE + ["--port", str(port), "--ssl-certfile", cert, "--ssl-keyfile", key,
                   "--ssl-ciphers", "ECDHE+AESGCM"]
    with e2e.Server(args, name="tls", ready=tls_ready(port, cert)) as s:
        url = f"https://127.0.0.1:{port}"
        assert "Starting gemmad API server on https://" in s.log()
        status, _, body = curl("--cacert", cert, url + "/v1/models")
        assert status == 200 and json.loads(body)["data"][0]["id"] == MODEL
        # TLS 1.2 with the configured cipher list.
        assert curl("--cacert", cert, "--tlsv1.2", "--tls-max", "1.2", url + "/health")[0] == 200
        assert curl_fails("--cacert", cert, "--tls-max", "1.2", "--ciphers", "AES128-SHA", url + "/health")
        # An untrusted certificate is refused by the client; plain HTTP gets no answer and no hang.
        assert curl_fails(url + "/health")
        assert curl_fails(f"http://127.0.0.1:{port}/health")
        import openai
        client = openai.OpenAI(base_url=url + "/v1", api_key="EMPTY", max_retries=0,
                               http_client=openai.DefaultHttpxClient(verify=ssl.create_default_context(cafile=cert)))
        r = client.completions.create(model=MODEL, prompt="Hi", max_tokens=2, temperature=0)
        assert r.usage.completion_tokens == 2
        chunks = list(client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}],
                                                     max_tokens=2, stream=True))
        assert chunks[-1].choices[0].finish_reason == "length"


def test_tls_client_certificate_required(tmp_path):
    cert, key = make_cert(str(tmp_path), "server", "127.0.0.1")
    client_cert, client_key = make_cert(str(tmp_path), "client", "client")
    stranger = make_cert(str(tmp_path), "stranger", "stranger")
    port = e2e.free_port()
    args = BASE + ["--port", str(port), "--ssl-certfile", cert, "--ssl-keyfile", key,
                   "--ssl-ca-certs", client_cert, "--ssl-cert-reqs", "2"]
    with e2e.Server(args, name="mtls", ready=tls_ready(port, cert, (client_cert, client_key))):
        url = f"https://127.0.0.1:{port}/v1/models"
        status, _, body = curl("--cacert", cert, "--cert", client_cert, "--key", client_key, url)
        assert status == 200 and json.loads(body)["data"][0]["id"] == MODEL
        assert curl_fails("--cacert", cert, url)  # no client certificate
        assert curl_fails("--cacert", cert, "--cert", stranger[0], "--key", stranger[1], url)  # not signed by the CA


def served_subject(port, cafile):
    """The subject of the certificate curl is shown (curl -v), trusting only `cafile`."""
    out = subprocess.run(["curl", "-sS", "-v", "-o", "/dev/null", "--max-time", "30", "--cacert", cafile,
                          f"https://127.0.0.1:{port}/health"], capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr.decode()
    found = re.search(r"subject: (.*)", out.stderr.decode())
    return found.group(1).strip() if found else None


def test_tls_refresh(tmp_path):
    first = make_cert(str(tmp_path), "first", "first.example")
    second = make_cert(str(tmp_path), "second", "second.example")
    live = (str(tmp_path / "live.pem"), str(tmp_path / "live-key.pem"))

    def install(pair):  # as a certificate manager does: write beside, rename over
        for src, dst in zip(pair, live):
            with open(src, "rb") as f, open(dst + ".tmp", "wb") as g:
                g.write(f.read())
            os.replace(dst + ".tmp", dst)

    install(first)
    port = e2e.free_port()
    args = BASE + ["--port", str(port), "--ssl-certfile", live[0], "--ssl-keyfile", live[1], "--enable-ssl-refresh"]
    with e2e.Server(args, name="tlsrefresh", ready=tls_ready(port, first[0])) as s:
        assert served_subject(port, first[0]) == "CN=first.example"
        install(second)
        time.sleep(1.5)  # the files are looked at, at most once a second, when a connection arrives
        assert served_subject(port, second[0]) == "CN=second.example"
        assert "reloaded the TLS certificate" in s.log()
        # A broken certificate file: a warning, and the previous certificate stays in service.
        with open(live[0] + ".tmp", "w") as f:
            f.write("not a certificate\n")
        os.replace(live[0] + ".tmp", live[0])
        time.sleep(1.5)
        assert served_subject(port, second[0]) == "CN=second.example"
        assert "could not be loaded; keeping the previous certificate" in s.log()
