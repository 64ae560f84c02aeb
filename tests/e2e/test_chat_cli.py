"""`gemmad chat` and `gemmad complete` (issue 28, part 1): vLLM's `vllm chat` / `vllm complete`
against a running server, driven as a user would (arguments, stdin, stdout). The server is the
test binary with the TEST-ONLY scripted-output seam, so every answer is known in advance and
goes through the real template, tokenizer, parsers and HTTP layer: the conversation history, the
system prompt, the reasoning shown apart from the answer and the tool calls are all checked from
what the client prints."""
import json
import subprocess

import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
TURN_END = "<turn|>"
TOOL_RESPONSE = "<|tool_response>"
Q = '<|"|>'
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
    "city": {"type": "string"}}, "required": ["city"]}}}]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("script") / "script.jsonl")
    open(path, "w").close()
    # Every request below is scripted and ends with a stop token.
    s = e2e.Server([MODEL] + e2e.TOOL_FLAGS, env={"GEMMAD_TEST_SCRIPTED_OUTPUT": path}, name="chatcli", bin=e2e.TESTING_BIN)
    s.start()
    s.script_path = path
    yield s
    assert s.stop() == 0, s.log()


def cli(server, *args, stdin=None, url=None):
    p = subprocess.run([e2e.BIN, *args, "--url", url or server.base_url + "/v1"], input=stdin, capture_output=True,
                       text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def chat_body(messages, tools=None, thinking=False):
    return e2e.chat_body(MODEL, messages, tools, thinking)


def user(text):
    return {"role": "user", "content": text}


def test_quick_message_with_system_prompt_and_stats(server):
    msgs = [{"role": "system", "content": "Be brief."}, user("cli quick")]
    e2e.script_output(server, chat_body(msgs), "Hello from the script!" + TURN_END)
    rc, out, err = cli(server, "chat", "--system-prompt", "Be brief.", "-q", "cli quick", "--stats")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == f"Using model: {MODEL}"
    assert lines[1] == "Hello from the script!"
    assert lines[2].startswith("TTFT: ") and lines[2].endswith(" ms")
    assert lines[3].startswith("TPS:") and "(6 tokens in" in lines[3], out


def test_interactive_conversation_keeps_its_history(server):
    first = [user("first turn")]
    e2e.script_output(server, chat_body(first), "One." + TURN_END)
    second = first + [{"role": "assistant", "content": "One."}, user("second turn")]
    e2e.script_output(server, chat_body(second), "Two, after one." + TURN_END)
    rc, out, err = cli(server, "chat", stdin="first turn\nsecond turn\n")
    assert rc == 0, err
    assert out == (f"Using model: {MODEL}\nPlease enter a message for the chat model:\n"
                   "> One.\n> Two, after one.\n> \n"), out


def test_thinking_is_shown_apart_from_the_answer(server):
    msgs = [user("cli think")]
    e2e.script_output(server, chat_body(msgs, thinking=True),
                      "<|channel>thought\nThe user wants a test.\nKeep it short.<channel|>Done." + TURN_END)
    rc, out, err = cli(server, "chat", "--enable-thinking", "-q", "cli think")
    assert rc == 0, err
    assert out.split("\n", 1)[1] == "<thinking>\nThe user wants a test.\nKeep it short.\n</thinking>\nDone.\n", out


def test_tool_calls_are_shown(server, tmp_path):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    msgs = [user("cli weather")]
    e2e.script_output(server, chat_body(msgs, tools=TOOLS),
                      f"Checking.<|tool_call>call:get_weather{{city:{Q}Paris{Q}}}<tool_call|>" + TOOL_RESPONSE)
    rc, out, err = cli(server, "chat", "--tools", str(tools), "-q", "cli weather")
    assert rc == 0, err
    body = out.split("\n", 1)[1]
    assert body.startswith("Checking.\n[tool call] get_weather "), out
    assert json.loads(body.split("get_weather ", 1)[1]) == {"city": "Paris"}


def test_complete_quick_and_interactive(server):
    e2e.script_output(server, {"model": MODEL}, " upon a time." + TURN_END, prompt="Once")
    rc, out, err = cli(server, "complete", "-q", "Once", "--max-tokens", "16")
    assert rc == 0, err
    assert out == f"Using model: {MODEL}\n upon a time.\n", out
    rc, out, err = cli(server, "complete", "--max-tokens", "16", stdin="Once\n")
    assert rc == 0, err
    assert out == f"Using model: {MODEL}\nPlease enter prompt to complete:\n>  upon a time.\n> \n", out


def test_errors_are_one_line_and_the_session_goes_on(server):
    rc, out, err = cli(server, "chat", "-q", "x", url=f"http://127.0.0.1:{e2e.free_port()}/v1")
    assert rc == 1 and "cannot reach" in err and err.count("\n") == 1, err
    rc, out, err = cli(server, "chat", "--model-name", "nope", "-q", "x")
    assert rc == 1 and "HTTP 404" in err and "nope" in err, err
    # In a session a failed turn is reported and the next prompt comes.
    rc, out, err = cli(server, "chat", "--model-name", "nope", stdin="a\nb\n")
    assert rc == 0 and out.count("> ") == 3 and err.count("HTTP 404") == 2, (out, err)
    rc, out, err = cli(server, "chat", "--tools", "/no/such/file.json", "-q", "x")
    assert rc == 2 and "--tools" in err, err
    rc, out, err = cli(server, "chat", "--bogus")
    assert rc == 2 and "unrecognized arguments: --bogus" in err, err
    rc, out, err = cli(server, "complete", "--max-tokens", "0", "-q", "x")
    assert rc == 2 and "--max-tokens must be at least 1" in err, err


def test_run_chats_with_a_model_loaded_in_process(server, tmp_path):
    """`gemmad run MODEL`: no server of its own to start; the answers come from the model loaded
    by the `run` process (the test binary, following a script written from this module's server,
    which renders and tokenizes the same way)."""
    first = [{"role": "system", "content": "Be brief."}, user("run one")]
    second = first + [{"role": "assistant", "content": "Loaded here."}, user("run two")]
    path = tmp_path / "run_script.jsonl"
    saved, server.script_path = server.script_path, str(path)
    try:
        e2e.script_output(server, chat_body(first), "Loaded here." + TURN_END)
        e2e.script_output(server, chat_body(second), "Still here." + TURN_END)
    finally:
        server.script_path = saved
    env = dict(server.env)
    env["GEMMAD_TEST_SCRIPTED_OUTPUT"] = str(path)
    p = subprocess.run([e2e.TESTING_BIN, "run", MODEL, "--system-prompt", "Be brief."], input="run one\nrun two\n",
                       capture_output=True, text=True, timeout=180, env=env, cwd=e2e.SOURCE_DIR)
    assert p.returncode == 0, p.stderr
    assert p.stdout == (f"Using model: {MODEL}\nPlease enter a message for the chat model:\n"
                        "> Loaded here.\n> Still here.\n> \n"), p.stdout
    # Startup errors are one line with the usage exit code.
    p = subprocess.run([e2e.BIN, "run", "/no/such/model"], capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 2 and "gemmad run: error:" in p.stderr and p.stderr.count("\n") == 1, p.stderr


def test_chat_sends_images_with_the_first_message(server, tmp_path):
    import media_util as mu
    png = mu.encode(mu.picture(64, 48, seed=11), "PNG")
    path = tmp_path / "pic.png"
    path.write_bytes(png)
    first = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": mu.data_url(png, "image/png")}},
                                          {"type": "text", "text": "what is it"}]}]
    e2e.script_output(server, chat_body(first), "A gradient." + TURN_END)
    second = first + [{"role": "assistant", "content": "A gradient."}, user("and now")]
    e2e.script_output(server, chat_body(second), "Still a gradient." + TURN_END)
    rc, out, err = cli(server, "chat", "--image", str(path), stdin="what is it\nand now\n")
    assert rc == 0, err
    assert "A gradient." in out and "Still a gradient." in out, out
    rc, out, err = cli(server, "chat", "--image", str(tmp_path / "missing.png"), "-q", "x")
    assert rc == 2 and "--image" in err, err
    (tmp_path / "notes.txt").write_text("hello")
    rc, out, err = cli(server, "chat", "--image", str(tmp_path / "notes.txt"), "-q", "x")
    assert rc == 2 and "not a JPEG, PNG, WebP, GIF or BMP image" in err, err


def test_chat_sends_audio_with_the_first_message(server, tmp_path):
    import base64

    import media_util as mu
    wav = mu.wav(mu.tone(0.5, seed=12))
    path = tmp_path / "clip.WAV"
    path.write_bytes(wav)
    first = [{"role": "user", "content": [
        {"type": "input_audio", "input_audio": {"data": base64.b64encode(wav).decode(), "format": "wav"}},
        {"type": "text", "text": "what is it"}]}]
    e2e.script_output(server, chat_body(first), "A tone." + TURN_END)
    rc, out, err = cli(server, "chat", "--audio", str(path), "-q", "what is it")
    assert rc == 0, err
    assert "A tone." in out, out
    rc, out, err = cli(server, "chat", "--audio", str(tmp_path / "missing.wav"), "-q", "x")
    assert rc == 2 and "--audio" in err, err
