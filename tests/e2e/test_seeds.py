"""The vLLM recipes in shared/seeds/*.txt, run as written.

Every `vllm serve` command of the seeds is parsed out of the seed files at test time (```bash
blocks, indented ones inside the YAML `guide` too; a seed without fences, such as the plain-text
one, contributes its `vllm serve` lines with their backslash continuations) and run verbatim with
`vllm` replaced by the gemmad binary, from the repo root (so `--chat-template examples/...`
resolves) and on the recipes' port 8000. Each one must start and serve a chat request; those with
`--tensor-parallel-size 2` start their ranks through mpirun (docs/tensor-parallel.md); commands
with `<placeholders>` are skipped.

Then every Python client example of the seeds runs unchanged against a server for its model (the
examples of one seed run in order in one namespace, as a reader pastes them): text, image and
audio examples must succeed — their https://upload.wikimedia.org/... and https://example.com/...
URLs are answered by a local TLS site behind a CONNECT proxy (https_proxy and SSL_CERT_FILE in the
server's environment, the variables vLLM's Python clients honour too), since there is no
internet: a JPEG picture for .jpg paths, an OGG/Vorbis clip for .ogg, a WAV clip for .wav."""
import contextlib
import glob
import io
import os
import re
import shlex
import subprocess

import openai
import pytest

import gemmad_e2e as e2e
import media_util as mu

PORT = 8000
SEEDS = sorted(glob.glob(os.path.join(e2e.SHARED_DIR, "seeds", "*.txt")))
AUDIO = ("audio_url", "input_audio")
MEDIA_HOSTS = ["upload.wikimedia.org", "example.com"]
CLIP = mu.tone(3.0, rate=44100, channels=2, seed=5)  # 3 s of stereo 44.1 kHz: 75 soft tokens at 16 kHz


def _fenced(text, lang):
    """Bodies of ```lang blocks (any indentation; the indentation of the fence is removed)."""
    out = []
    for m in re.finditer(r"^([ \t]*)```" + lang + r"[ \t]*\n(.*?)^\1```", text, re.S | re.M):
        ind = m.group(1)
        out.append("\n".join(l[len(ind):] if l.startswith(ind) else l for l in m.group(2).splitlines()))
    return out


def _serve_lines(block):
    """`vllm serve ...` commands of a shell text, continuation lines joined."""
    cmds = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("vllm serve"):
            cmd = line
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + " " + lines[i].strip()
            cmds.append(cmd)
        i += 1
    return cmds


def serve_commands():
    """[(id, seed file, command line)], first occurrence of each distinct argv."""
    out, seen = [], set()
    for path in SEEDS:
        text = open(path, encoding="utf-8").read()
        blocks = _fenced(text, "bash") if "```" in text else [text]
        stem = os.path.basename(path).split("_")[0]
        for k, cmd in enumerate(c for b in blocks for c in _serve_lines(b)):
            argv = tuple(shlex.split(cmd, comments=True))
            if argv in seen:
                continue
            seen.add(argv)
            out.append((f"seed{stem}-{k}", path, cmd))
    return out


def python_examples(path):
    """The seed's Python client examples, in order."""
    text = open(path, encoding="utf-8").read()
    if "```" in text:
        snippets = _fenced(text, "python")
    else:  # plain text: blank-line separated paragraphs that are Python using the client
        snippets = []
        for para in re.split(r"\n[ \t]*\n", text):
            if "client." not in para and "OpenAI(" not in para:
                continue
            try:
                compile(para, path, "exec")
            except SyntaxError:
                continue
            snippets.append(para)
    return [s for s in snippets if "client" in s]


COMMANDS = serve_commands()


def test_seeds_were_found():
    assert len(SEEDS) >= 3
    assert len(COMMANDS) >= 10, COMMANDS
    assert all(shlex.split(c, comments=True)[:2] == ["vllm", "serve"] for _, _, c in COMMANDS)
    assert sum(len(python_examples(p)) for p in SEEDS) >= 5


def _flag(argv, name):
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def _model_of(args):
    m = _flag(args, "--model")
    return m if m is not None else args[0]


@pytest.mark.parametrize("path,cmd", [(p, c) for _, p, c in COMMANDS], ids=[i for i, _, _ in COMMANDS])
def test_serve_command(path, cmd):
    argv = shlex.split(cmd, comments=True)
    if any("<" in a and ">" in a for a in argv):
        pytest.skip(f"placeholder in the recipe command: {cmd}")
    args = argv[2:]  # after `vllm serve`
    tp = _flag(args, "--tensor-parallel-size") or _flag(args, "-tp")
    server = e2e.Server(args, port=PORT, name="seed")
    model = _model_of(args)
    with server:
        client = openai.OpenAI(base_url=f"http://localhost:{PORT}/v1", api_key="EMPTY", max_retries=0)
        models = client.models.list().data
        assert [m.id for m in models] == [model]
        max_len = _flag(args, "--max-model-len")
        if max_len is not None:
            assert models[0].max_model_len == int(max_len)
        r = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Hello!"}],
                                           max_tokens=4, temperature=0)
        assert r.model == model
        assert r.choices[0].finish_reason in ("stop", "length")
        assert 1 <= r.usage.completion_tokens <= 4
        assert r.usage.prompt_tokens > 5
        if "--reasoning-parser" in args:
            r = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Why?"}],
                                               max_tokens=3, temperature=0,
                                               extra_body={"chat_template_kwargs": {"enable_thinking": True}})
            assert r.usage.completion_tokens >= 1
        if tp is not None and int(tp) > 1:  # every rank of the group is up
            assert f"tensor parallel rank {int(tp) - 1} of {tp}: shard loaded" in server.log()
    assert server.proc.returncode == 0, server.log()


@pytest.mark.parametrize("path", [p for p in SEEDS if python_examples(p)],
                         ids=[os.path.basename(p).split("_")[0] for p in SEEDS if python_examples(p)])
def test_client_examples(path):
    snippets = python_examples(path)
    model = re.search(r'model="([^"]+)"', "\n".join(snippets)).group(1)
    site = mu.TlsSite(os.path.join(e2e.WORK, "tls_site"), MEDIA_HOSTS,
                      {".jpg": (mu.encode(mu.picture(1200, 900, seed=7), "JPEG"), "image/jpeg"),
                       ".ogg": (mu.encode_audio(CLIP, 44100, "ogg"), "audio/ogg"),
                       ".wav": (mu.wav(CLIP, 44100), "audio/wav")})
    with site, e2e.Server([model] + e2e.TOOL_FLAGS, port=PORT, name="seed-client", env=site.env()) as server:
        ns = {"__name__": "__seed_example__"}
        ran = 0
        for snippet in snippets:
            out = io.StringIO()
            ns.pop("response", None)
            fetched = len(site.requests)
            with contextlib.redirect_stdout(out):
                exec(compile(snippet, path, "exec"), ns)  # noqa: S102 - the recipe's own example
            resp = ns["response"]
            assert resp.choices[0].finish_reason in ("stop", "length")
            limit = int(re.search(r"max_tokens=(\d+)", snippet).group(1))
            assert 1 <= resp.usage.completion_tokens <= limit
            if "print(" in snippet:
                assert out.getvalue().strip() == str(resp.choices[0].message.content)
            if "image_url" in snippet:  # the picture was fetched from the (local) site and encoded
                assert len(site.requests) > fetched and resp.usage.prompt_tokens > 200, (site.requests, resp.usage)
            if any(m in snippet for m in AUDIO):  # the clip was fetched, decoded and resampled: 75 soft tokens
                assert len(site.requests) > fetched and resp.usage.prompt_tokens > 75 + 2, (site.requests, resp.usage)
            ran += 1
            assert server.proc.poll() is None, server.log()
        assert ran == len(snippets)
        # The server is healthy after all of them.
        assert e2e.http("GET", server.base_url + "/health")[0] == 200
    assert server.proc.returncode == 0


def _tokens(server, messages):
    import json
    status, _, raw = e2e.http("POST", server.base_url + "/tokenize", {"messages": messages})
    assert status == 200
    return json.loads(raw)["tokens"]


def test_missing_recipe_template_falls_back_to_embedded(tmp_path):
    """The recipe's relative `--chat-template examples/tool_chat_template_gemma4.jinja` run from a
    directory without that file: gemmad uses its embedded copy and says so in the log."""
    msgs = [{"role": "system", "content": "S"}, {"role": "user", "content": "Hi"}]
    flags = [e2e.DEFAULT_REPO, "--chat-template", "examples/tool_chat_template_gemma4.jinja"]
    with e2e.Server(flags, cwd=str(tmp_path), name="tmpl-fallback") as s:
        log = s.log()
        assert "--chat-template examples/tool_chat_template_gemma4.jinja does not exist" in log, log
        assert "embedded copy" in log
        fallback = _tokens(s, msgs)
        r = s.client().chat.completions.create(model=e2e.DEFAULT_REPO, messages=msgs, max_tokens=2, temperature=0)
        assert r.usage.prompt_tokens == len(fallback)
    with e2e.Server(flags, name="tmpl-file") as s:  # repo root: the real file
        assert "embedded copy" not in s.log()
        assert _tokens(s, msgs) == fallback


def test_missing_other_template_is_vllm_error(tmp_path):
    server = e2e.Server([e2e.DEFAULT_REPO], name="tmpl-missing")
    r = subprocess.run([e2e.BIN, "serve", e2e.DEFAULT_REPO, "--chat-template", "templates/missing.jinja"],
                       cwd=str(tmp_path), env=server.env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert ("The supplied chat template (templates/missing.jinja) looks like a file path, but it failed to be "
            "opened") in r.stderr
