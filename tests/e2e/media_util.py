"""Media for the end-to-end tests, generated at test time (never fetched): images with Pillow,
videos and compressed audio with the ffmpeg CLI, WAV with the standard library, a local HTTP
server for media URLs, and a local TLS endpoint behind a CONNECT proxy so the seeds'
https://upload.wikimedia.org/... URLs are answered unchanged.

Also independent restatements of the Gemma 4 soft-token counts (spec multimodal.md §2.3, §2.8
for images, §4.7 for audio), so tests can predict how many placeholder tokens an item becomes."""
import base64
import contextlib
import io
import math
import os
import select
import socket
import ssl
import subprocess
import threading
import time
import wave
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
from PIL import Image

IMAGE_TOKEN = 258880
VIDEO_TOKEN = 258884
AUDIO_TOKEN = 258881
BOI, EOI = 255999, 258882
BOA, EOA = 256000, 258883


def picture(w, h, seed=0, mode="RGB"):
    """A deterministic noisy gradient picture."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)), ((x + y) * 7) % 256], axis=-1)
    noise = rng.integers(-20, 21, size=(h, w, 3))
    arr = np.clip(base + noise, 0, 255).astype(np.uint8)
    img = Image.fromarray(arr, "RGB")
    if mode == "RGBA":
        img.putalpha(Image.fromarray(((x * 3 + y) % 256).astype(np.uint8), "L"))
    return img


def encode(img, fmt="PNG", **kw):
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kw)
    return buf.getvalue()


def data_url(data, mime):
    return f"data:{mime};base64," + base64.b64encode(data).decode()


def soft_tokens(h, w, budget=280, patch=16, k=3):
    """Gemma 4's soft-token count of an h x w image at `budget` (spec §2.3 and §2.8)."""
    max_patches = budget * k * k
    area = max_patches * patch * patch
    s = math.sqrt(area / (h * w))
    unit = k * patch
    th = math.floor(s * h / unit) * unit
    tw = math.floor(s * w / unit) * unit
    cap = budget * unit
    if th == 0 and tw == 0:
        raise ValueError("too small")
    if th == 0:
        th, tw = unit, min(math.floor(w / h) * unit, cap)
    elif tw == 0:
        tw, th = unit, min(math.floor(h / w) * unit, cap)
    return (th // unit) * (tw // unit)


def runs(ids, token):
    """Lengths of the runs of `token` in ids."""
    out, n = [], 0
    for t in list(ids) + [None]:
        if t == token:
            n += 1
        elif n:
            out.append(n)
            n = 0
    return out


def tone(seconds, rate=16000, channels=1, seed=0):
    """A deterministic clip: a few sines plus noise, float32 in [-1, 1], shape [n, channels]."""
    rng = np.random.default_rng(seed)
    n = int(round(seconds * rate))
    t = np.arange(n) / rate
    out = np.zeros((n, channels), np.float32)
    for c in range(channels):
        f = rng.uniform(150, 900, 3)
        out[:, c] = (0.3 * np.sin(2 * np.pi * f[0] * t) + 0.2 * np.sin(2 * np.pi * f[1] * t)
                     + 0.1 * np.sin(2 * np.pi * f[2] * t) + 0.05 * rng.standard_normal(n))
    return out


def wav(samples, rate=16000):
    """16-bit PCM WAV bytes of float samples [n, channels] (stdlib wave)."""
    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(pcm.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


def encode_audio(samples, rate, fmt):
    """`samples` [n, channels] encoded by the ffmpeg CLI as fmt: "mp3", "ogg" (Vorbis), "opus", "flac"."""
    codec = {"mp3": ["-c:a", "libmp3lame", "-f", "mp3"], "ogg": ["-c:a", "libvorbis", "-f", "ogg"],
             "opus": ["-c:a", "libopus", "-f", "ogg"], "flac": ["-c:a", "flac", "-f", "flac"]}[fmt]
    r = subprocess.run(["ffmpeg", "-v", "error", "-f", "s16le", "-ar", str(rate), "-ac", str(samples.shape[1]),
                        "-i", "pipe:0"] + codec + ["pipe:1"],
                       input=(np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes(), capture_output=True, check=True)
    return r.stdout


def audio_soft_tokens(samples_16k):
    """Placeholder tokens of a clip of `samples_16k` mono samples at 16 kHz (multimodal.md §4.7):
    frames of 320 samples every 160 after 160 leading zeros, two stride-2 convolutions, at most 750."""
    n = min(samples_16k, 480000)
    frames = (n + 160 - 321) // 160 + 1
    if frames <= 0:
        return 0
    for _ in range(2):
        frames = (frames - 1) // 2 + 1
    return min(frames, 750)


def resampled_length(n, rate):
    """librosa's resampled length: ceil(n * 16000 / rate)."""
    return n if rate == 16000 else -(-n * 16000 // rate)


def make_video(path, w=64, h=48, frames=40, fps=10, codec="libx264"):
    """A tiny test video written with the ffmpeg CLI (lavfi test source)."""
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc=size={w}x{h}:rate={fps}",
                    "-frames:v", str(frames), "-c:v", codec, "-pix_fmt", "yuv420p", path], check=True)
    with open(path, "rb") as f:
        return f.read()


class MediaServer:
    """An HTTP server on 127.0.0.1 serving `files` {path: (bytes, content type)}, plus
    /slow/<seconds> (headers then nothing), /redirect?to=<url> (302) and /big/<bytes>."""

    def __init__(self, files):
        self.files = dict(files)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                p = self.path
                if p.startswith("/slow/"):
                    self.send_response(200)
                    self.send_header("Content-Type", "image/png")
                    self.end_headers()
                    time.sleep(float(p.split("/")[2]))
                    return
                if p.startswith("/redirect?to="):
                    self.send_response(302)
                    self.send_header("Location", p.split("=", 1)[1])
                    self.end_headers()
                    return
                if p.startswith("/big/"):
                    n = int(p.split("/")[2])
                    self.send_response(200)
                    self.send_header("Content-Type", "image/png")
                    self.end_headers()
                    chunk = b"\0" * 65536
                    with contextlib.suppress(OSError):
                        while n > 0:
                            self.wfile.write(chunk[:n])
                            n -= len(chunk)
                    return
                if p not in outer.files:
                    self.send_error(404)
                    return
                data, ctype = outer.files[p]
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


class TlsSite:
    """`host`'s https URLs answered locally: a self-signed certificate for `host` (made with the
    openssl CLI), an HTTPS server on 127.0.0.1 serving `body` for every path, and a CONNECT proxy
    that tunnels to it. Point the server at it with https_proxy=<proxy_url> and
    SSL_CERT_FILE=<cert_file> (the variables Python clients, and so vLLM, honour too)."""

    def __init__(self, workdir, host, body, content_type="image/jpeg"):
        """`host`: one name or a list of them (all answered by the same server); `body`: the bytes
        for every path, or {path suffix: (bytes, content type)} (the first matching suffix wins)."""
        os.makedirs(workdir, exist_ok=True)
        hosts = [host] if isinstance(host, str) else list(host)
        routes = body if isinstance(body, dict) else {"": (body, content_type)}
        self.cert_file = os.path.join(workdir, "site.crt")
        key = os.path.join(workdir, "site.key")
        san = ",".join(f"DNS:{h}" for h in hosts)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                        f"/CN={hosts[0]}", "-addext", f"subjectAltName={san}", "-keyout", key, "-out", self.cert_file],
                       check=True, capture_output=True)
        outer = self
        self.requests = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                outer.requests.append(self.path)
                match = next((v for k, v in routes.items() if self.path.endswith(k)), None)
                if match is None:
                    self.send_error(404)
                    return
                data, ctype = match
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.https = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.cert_file, key)
        self.https.socket = ctx.wrap_socket(self.https.socket, server_side=True)
        self.https.daemon_threads = True
        self.proxy = socket.socket()
        self.proxy.bind(("127.0.0.1", 0))
        self.proxy.listen(16)
        self.proxy_url = f"http://127.0.0.1:{self.proxy.getsockname()[1]}"
        self._stop = False

    def _tunnel(self, client):
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk:
                    return
                head += chunk
            if not head.startswith(b"CONNECT "):
                client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\n\r\n")
                return
            upstream = socket.create_connection(("127.0.0.1", self.https.server_address[1]))
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            with upstream:
                socks = [client, upstream]
                while True:
                    ready, _, _ = select.select(socks, [], [], 30)
                    if not ready:
                        return
                    for s in ready:
                        data = s.recv(65536)
                        if not data:
                            return
                        (upstream if s is client else client).sendall(data)

    def _accept(self):
        while not self._stop:
            try:
                c, _ = self.proxy.accept()
            except OSError:
                return
            threading.Thread(target=self._tunnel, args=(c,), daemon=True).start()

    def env(self):
        return {"https_proxy": self.proxy_url, "SSL_CERT_FILE": self.cert_file}

    def __enter__(self):
        threading.Thread(target=self.https.serve_forever, daemon=True).start()
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._stop = True
        self.proxy.close()
        self.https.shutdown()
        self.https.server_close()
