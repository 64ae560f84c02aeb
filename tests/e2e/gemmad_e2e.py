"""Shared harness for the end-to-end tests: a real `gemmad serve` process and real clients.

Environment (set by tests/e2e/CMakeLists.txt):
  GEMMAD_BIN         the gemmad binary
  GEMMAD_TESTING_BIN gemmad-testing: the same program with the test seams (cli/test_seams.h)
  GEMMAD_SOURCE_DIR  the source tree (examples/, shared test data)
  GEMMAD_SHARED_DIR  the read-only ../shared
  GEMMAD_E2E_WORK    a writable directory under the build tree (models, HF caches, logs)

The end-to-end model is `gemmad make-test-model --preset e2e` (6 tiny layers with sliding and
full attention, KV sharing, PLE, the full 262,144-token Gemma 4 vocabulary and tokenizer, random
weights). It is written once per work directory and placed in a fake Hugging Face cache under the
repo ids the seed recipes name, so that `gemmad serve google/gemma-4-E2B-it` resolves it with
HF_HUB_OFFLINE=1 exactly as vLLM would resolve a cached download.
"""
import fcntl
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

BIN = os.environ.get("GEMMAD_BIN", "")
TESTING_BIN = os.environ.get("GEMMAD_TESTING_BIN", "")
SOURCE_DIR = os.environ.get("GEMMAD_SOURCE_DIR", "")
SHARED_DIR = os.environ.get("GEMMAD_SHARED_DIR", "")
WORK = os.environ.get("GEMMAD_E2E_WORK", "/tmp/gemmad_e2e")

# Repo ids the seeds serve; every one maps to the tiny end-to-end model.
SEED_REPOS = [
    "google/gemma-4-E2B-it",
    "google/gemma-4-E4B-it",
    "google/gemma-4-31B-it",
    "google/gemma-4-26B-A4B-it",
]
DEFAULT_REPO = "google/gemma-4-E2B-it"
SNAPSHOT = "0123456789abcdef0123456789abcdef01234567"


def _locked(name):
    """A file lock under WORK, so that parallel ctest processes build shared files once."""
    os.makedirs(WORK, exist_ok=True)
    f = open(os.path.join(WORK, name + ".lock"), "w")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


def _tree_key(d):
    """A short key for a generated model directory: its small files and file sizes."""
    h = hashlib.sha256()
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        h.update(name.encode() + b"\0" + str(os.path.getsize(path)).encode() + b"\0")
        if name.endswith(".json") and os.path.getsize(path) < (1 << 16):
            with open(path, "rb") as f:
                h.update(f.read())
    return h.hexdigest()[:12]


_MODEL_DIR = None


def model_dir():
    """The end-to-end test model. Written by the binary under test into a directory named by
    its content, so a binary that writes a different model never reuses a stale one and a
    directory in use by another test process is never replaced."""
    global _MODEL_DIR
    if _MODEL_DIR:
        return _MODEL_DIR
    os.makedirs(WORK, exist_ok=True)
    tmp = os.path.join(WORK, f"e2e_model.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    subprocess.run([BIN, "make-test-model", tmp, "--preset", "e2e"], check=True, stdout=subprocess.DEVNULL)
    d = os.path.join(WORK, "e2e_model-" + _tree_key(tmp))
    with _locked("e2e_model"):
        if os.path.exists(d):
            shutil.rmtree(tmp)
        else:
            os.rename(tmp, d)
    _MODEL_DIR = d
    return d


def hf_home():
    """An HF_HOME whose hub cache holds the e2e model under every SEED_REPOS id (blobs named
    by sha256, snapshot entries as relative symlinks into blobs/, refs/main)."""
    src = model_dir()
    return hf_home_for(src, SEED_REPOS, "hf_home-" + os.path.basename(src).split("-")[-1])


def hf_home_for(src, repos, name):
    """An HF_HOME under WORK/<name> whose hub cache holds the model directory `src` under every
    repo id of `repos` (built once; `name` must change when `src` does). `src` may also be a dict
    {repo id: model directory} (then `repos` is ignored)."""
    sources = src if isinstance(src, dict) else {repo: src for repo in repos}
    home = os.path.join(WORK, name)
    with _locked("hf_home"):
        if os.path.exists(os.path.join(home, ".complete")):
            return home
        for repo, src in sources.items():
            root = os.path.join(home, "hub", "models--" + repo.replace("/", "--"))
            blobs = os.path.join(root, "blobs")
            snap = os.path.join(root, "snapshots", SNAPSHOT)
            os.makedirs(blobs, exist_ok=True)
            os.makedirs(snap, exist_ok=True)
            os.makedirs(os.path.join(root, "refs"), exist_ok=True)
            with open(os.path.join(root, "refs", "main"), "w") as f:
                f.write(SNAPSHOT)
            for fname in sorted(os.listdir(src)):
                path = os.path.join(src, fname)
                if fname.startswith(".") or not os.path.isfile(path):
                    continue
                h = hashlib.sha256()
                with open(path, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                blob = os.path.join(blobs, h.hexdigest())
                if not os.path.exists(blob):
                    os.link(path, blob)  # same file system: no copy of the 60 MB weights
                link = os.path.join(snap, fname)
                if not os.path.lexists(link):
                    os.symlink(os.path.join("..", "..", "blobs", h.hexdigest()), link)
        open(os.path.join(home, ".complete"), "w").close()
    return home


def generated_model(key, make_args):
    """A model directory written by `gemmad make-test-model DIR MAKE_ARGS` into WORK, named by
    `key` and its content like model_dir()."""
    os.makedirs(WORK, exist_ok=True)
    tmp = os.path.join(WORK, f"{key}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    subprocess.run([BIN, "make-test-model", tmp] + list(make_args), check=True, stdout=subprocess.DEVNULL)
    d = os.path.join(WORK, key + "-" + _tree_key(tmp))
    with _locked(key):
        if os.path.exists(d):
            shutil.rmtree(tmp)
        else:
            os.rename(tmp, d)
    return d


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


_PORT_RNG = random.Random(os.getpid() ^ time.time_ns())


def free_port():
    """A loopback port nothing is bound to, drawn below the kernel's ephemeral range. A server binds
    its port seconds after the test chose it (a -tp server only after mpirun and its ranks start);
    a port from the ephemeral range could meanwhile become the local end of any outgoing connection
    of a test running beside it, or one of MPI's own sockets, and the server would fail to bind."""
    top = _ephemeral_low()
    bottom = 10000 if top > 12000 else 1024
    for _ in range(500):
        port = _PORT_RNG.randrange(bottom, top)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            s.close()
        return port
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http(method, url, body=None, headers=None, timeout=60):
    """(status, headers, body bytes) with the standard library; never raises on HTTP errors."""
    data = None
    h = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(url, data=data, headers=h, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class Server:
    """`gemmad serve ARGS` as a child process.

    args: the arguments after `serve` (a list), e.g. [DEFAULT_REPO, "--enable-auto-tool-choice"].
    A `--port` is added unless args has one. The server runs with HF_HOME pointing at the fake
    cache and HF_HUB_OFFLINE=1 unless `env` says otherwise. Use as a context manager, or call
    start()/stop(). stop() sends SIGTERM and returns the exit code. `ready`: a function of no
    arguments that is true once the server answers (default: GET /health over plain HTTP on the
    port; TLS and --uds servers pass their own).
    """

    def __init__(self, args, env=None, cwd=None, port=None, startup_timeout=120, name="server", bin=None,
                 ready=None):
        self.bin = bin or BIN
        self.ready = ready or (lambda: http("GET", self.base_url + "/health", timeout=2)[0] == 200)
        self.args = list(args)
        self.cwd = cwd or SOURCE_DIR
        self.startup_timeout = startup_timeout
        if port is None and "--port" not in self.args and not any(a.startswith("--port=") for a in self.args):
            port = free_port()
            self.args += ["--port", str(port)]
        if port is None:
            for i, a in enumerate(self.args):
                if a == "--port":
                    port = int(self.args[i + 1])
                elif a.startswith("--port="):
                    port = int(a.split("=", 1)[1])
        self.port = port
        self.env = dict(os.environ)
        self.env.update({"HF_HOME": hf_home(), "HF_HUB_OFFLINE": "1"})
        self.env.pop("HF_HUB_CACHE", None)
        self.env.pop("HUGGINGFACE_HUB_CACHE", None)
        # Small KV budget: the tiny model needs little, and parallel tests share 24 GiB.
        self.env.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
        if env:
            self.env.update(env)
        os.makedirs(os.path.join(WORK, "logs"), exist_ok=True)
        self.log_path = os.path.join(WORK, "logs", f"{name}-{os.getpid()}-{port}.log")
        self.proc = None

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    def log(self):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def start(self):
        self._logf = open(self.log_path, "wb")
        self.proc = subprocess.Popen([self.bin, "serve"] + self.args, cwd=self.cwd, env=self.env,
                                     stdout=self._logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.time() + self.startup_timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gemmad serve exited with {self.proc.returncode} during startup:\n{self.log()}")
            try:
                if self.ready():
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        self.proc.kill()
        raise RuntimeError(f"gemmad serve not healthy after {self.startup_timeout} s:\n{self.log()}")

    def stop(self, sig=signal.SIGTERM, timeout=60):
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"gemmad serve did not exit {timeout} s after signal {sig}:\n{self.log()}")
        self._logf.close()
        return self.proc.returncode

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def client(self, **kw):
        import openai
        kw.setdefault("api_key", "EMPTY")
        kw.setdefault("max_retries", 0)
        kw.setdefault("timeout", 120)
        return openai.OpenAI(base_url=self.base_url + "/v1", **kw)

    def metrics(self):
        """Prometheus text parsed into {name{labels}: value} (labels kept verbatim)."""
        status, _, body = http("GET", self.base_url + "/metrics")
        assert status == 200
        out = {}
        for line in body.decode().splitlines():
            if not line or line.startswith("#"):
                continue
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
        return out

    def metric(self, name):
        """Sum of every sample of `name` (all label sets)."""
        total = 0.0
        for key, v in self.metrics().items():
            if key == name or key.startswith(name + "{"):
                total += v
        return total


# The flags every seed passes for tool calling and thinking.
TOOL_FLAGS = ["--enable-auto-tool-choice", "--tool-call-parser", "gemma4", "--reasoning-parser", "gemma4",
              "--chat-template", "examples/tool_chat_template_gemma4.jinja"]


def module_server(args, name, env=None):
    """Body of a module-scoped pytest fixture: starts `gemmad serve ARGS` (with `env` added to its
    environment), yields it, and checks it exits 0 on SIGTERM."""
    s = Server(args, name=name, env=env)
    s.start()
    yield s
    rc = s.stop()
    assert rc == 0, f"gemmad serve exited with {rc}:\n{s.log()}"


def assert_still_serving(server):
    """The server is alive, /health is 200 and a 2-token completion succeeds."""
    assert server.proc.poll() is None, f"server died:\n{server.log()}"
    status, _, body = http("GET", server.base_url + "/health")
    assert status == 200 and body == b""
    status, _, body = http("POST", server.base_url + "/v1/completions",
                           {"prompt": "ok", "max_tokens": 2, "temperature": 0})
    assert status == 200, body
    assert json.loads(body)["usage"]["completion_tokens"] == 2


def chat_body(model, messages, tools=None, thinking=False):
    """A chat request as the clients send it: messages, plus tools and enable_thinking when asked."""
    body = {"model": model, "messages": messages}
    if tools:
        body["tools"] = tools
    if thinking:
        body["chat_template_kwargs"] = {"enable_thinking": True}
    return body


def script_output(server, body, text, prompt=None):
    """TEST-ONLY seam (gemmad-testing with GEMMAD_TEST_SCRIPTED_OUTPUT=server.script_path): makes
    the request `body` (a chat request: model, messages, tools, chat_template_kwargs) or, with
    `prompt`, the completion of that text generate `text`: its prompt ids, rendered and tokenized
    by the server, map to the ids of `text` (special tokens included). Returns those ids."""
    def post(route, b):
        status, _, data = http("POST", server.base_url + route, b)
        assert status == 200, data
        return json.loads(data)
    if prompt is None:
        prompt_ids = post("/tokenize", body)["tokens"]
    else:
        prompt_ids = post("/tokenize", {"model": body["model"], "prompt": prompt})["tokens"]
    out = post("/tokenize", {"model": body["model"], "prompt": text, "add_special_tokens": False})["tokens"]
    assert post("/detokenize", {"model": body["model"], "tokens": out})["prompt"] == text
    with open(server.script_path, "a") as f:
        f.write(json.dumps({"prompt_ids": prompt_ids, "token_ids": out}) + "\n")
    return out


def seed_recipes():
    """[(seed file name, parsed YAML recipe)] of every seed that is a YAML recipe (a dict), in file order."""
    import glob
    import yaml
    out = []
    for path in sorted(glob.glob(os.path.join(SHARED_DIR, "seeds", "*.txt"))):
        try:
            doc = yaml.safe_load(open(path, encoding="utf-8"))
        except yaml.YAMLError:
            continue
        if isinstance(doc, dict):
            out.append((os.path.basename(path), doc))
    return out
