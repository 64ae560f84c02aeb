"""OpenAI error bodies and HTTP status codes as vLLM sends them (shared/spec/api.md §1, §2, §11):
validation (type "Bad Request") vs semantic (type "BadRequestError") 400s, 404 for an unknown
model, framework 404/405 bodies, content-type checks, context-length overflow, the API key on
/v1 routes only (--api-key and VLLM_API_KEY), and the openai client's exception classes. After
every bad request the server must still be healthy and answer a good one."""
import json

import openai
import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
MAX_LEN = 128
MSGS = [{"role": "user", "content": "Hi"}]


@pytest.fixture(scope="module")
def server():
    yield from e2e.module_server([MODEL] + e2e.TOOL_FLAGS + ["--max-model-len", str(MAX_LEN)], "errors")


@pytest.fixture(autouse=True)
def still_healthy(server):
    """Every test ends with a healthy server that still serves a request."""
    yield
    e2e.assert_still_serving(server)


def post(server, path, body, headers=None):
    status, hdrs, raw = e2e.http("POST", server.base_url + path, body, headers=headers)
    return status, hdrs, raw


def error_of(raw, status):
    """The standard error object; checks its shape and that code == HTTP status."""
    doc = json.loads(raw)
    assert list(doc) == ["error"], doc
    err = doc["error"]
    assert list(err) == ["message", "type", "param", "code"], err
    assert err["code"] == status
    assert isinstance(err["message"], str) and err["message"]
    return err


CHAT = "/v1/chat/completions"
COMP = "/v1/completions"

# (path, body, status, type, param, message substring)
CASES = [
    (CHAT, {"max_tokens": 3}, 400, "Bad Request", "messages", "body.messages: Field required"),
    (CHAT, {"messages": "hi"}, 400, "Bad Request", "messages", "Input should be a valid list"),
    (CHAT, [1, 2], 400, "Bad Request", None, "Input should be a valid dictionary"),
    (CHAT, {"messages": MSGS, "temperature": "hot"}, 400, "Bad Request", "temperature",
     "Input should be a valid number"),
    (CHAT, {"messages": [{"content": "x"}]}, 400, "Bad Request", "messages.0.role", "role: Field required"),
    (CHAT, {"model": "gemma", "messages": MSGS}, 404, "NotFoundError", "model", "The model `gemma` does not exist."),
    (COMP, {"model": "gemma", "prompt": "x"}, 404, "NotFoundError", "model", "The model `gemma` does not exist."),
    (CHAT, {"messages": MSGS, "temperature": -1}, 400, "BadRequestError", "temperature",
     "temperature must be non-negative"),
    (CHAT, {"messages": MSGS, "top_p": 0}, 400, "BadRequestError", "top_p", "top_p must be in (0, 1]"),
    (CHAT, {"messages": MSGS, "top_p": 1.5}, 400, "BadRequestError", "top_p", "top_p must be in (0, 1]"),
    (CHAT, {"messages": MSGS, "presence_penalty": 3}, 400, "BadRequestError", "presence_penalty",
     "presence_penalty must be in [-2, 2]"),
    (CHAT, {"messages": MSGS, "frequency_penalty": -2.5}, 400, "BadRequestError", "frequency_penalty",
     "frequency_penalty must be in [-2, 2]"),
    (CHAT, {"messages": MSGS, "max_tokens": 0}, 400, "BadRequestError", "max_tokens", "max_tokens must be at least 1"),
    (CHAT, {"messages": MSGS, "n": 2, "temperature": 0}, 400, "BadRequestError", "n",
     "n must be 1 when using greedy sampling"),
    (CHAT, {"messages": MSGS, "logprobs": True, "top_logprobs": 21}, 400, "BadRequestError", "logprobs",
     "Requested sample logprobs of 21, which is greater than max allowed: 20"),
    (COMP, {"prompt": "x", "logprobs": 21}, 400, "BadRequestError", "logprobs",
     "Requested sample logprobs of 21, which is greater than max allowed: 20"),
    (CHAT, {"messages": MSGS, "top_logprobs": 2}, 400, "Bad Request", None,
     "when using `top_logprobs`, `logprobs` must be set to true."),
    (CHAT, {"messages": MSGS, "stop": [""]}, 400, "BadRequestError", "stop", "stop cannot contain an empty string"),
    (CHAT, {"messages": MSGS, "stream_options": {"include_usage": True}}, 400, "Bad Request", None,
     "Stream options can only be defined when `stream=True`."),
    (CHAT, {"messages": MSGS, "stream": True, "prompt_logprobs": 1}, 400, "Bad Request", None,
     "`prompt_logprobs` are not available when `stream=True`."),
    (CHAT, {"messages": MSGS + [{"role": "assistant", "content": "a"}], "continue_final_message": True},
     400, "Bad Request", None, "Cannot set both `continue_final_message` and `add_generation_prompt` to True."),
    (CHAT, {"messages": MSGS, "chat_template": "{{ 'x' }}"}, 400, "BadRequestError", None,
     "--trust-request-chat-template"),
    (CHAT, {"messages": MSGS, "tool_choice": "auto"}, 400, "Bad Request", None,
     "When using `tool_choice`, `tools` must be set."),
    (CHAT, {"messages": MSGS, "logit_bias": {"300000": 1.0}}, 400, "BadRequestError", "logit_bias",
     "token_id(s) [300000] in logit_bias contain out-of-vocab token ids. Vocabulary size: 262144"),
    (CHAT, {"messages": [{"role": "user", "content": [{"type": "bogus"}]}]}, 400, "BadRequestError", None,
     "unsupported chat content part type 'bogus'"),
    (CHAT, {"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
        {"type": "text", "text": "Describe this image."}]}]},
     400, "BadRequestError", "messages", "messages[0].content[0]: cannot load the image"),
    (COMP, {"max_tokens": 3}, 400, "Bad Request", None,
     "Either prompt or prompt_embeds must be provided and non-empty."),
    (COMP, {"prompt": ""}, 400, "Bad Request", None, "Either prompt or prompt_embeds must be provided and non-empty."),
    (COMP, {"prompt": []}, 400, "Bad Request", None, "Either prompt or prompt_embeds must be provided and non-empty."),
    (COMP, {"prompt": [999999999]}, 400, "BadRequestError", "prompt", "out of vocabulary"),
    (COMP, {"prompt": {"a": 1}}, 400, "Bad Request", "prompt", "Input should be a valid string or list"),
]


@pytest.mark.parametrize("path,body,status,etype,param,message", CASES,
                         ids=[f"{i}-{'chat' if 'chat' in c[0] else 'completions'}-{c[2]}" for i, c in enumerate(CASES)])
def test_error_object(server, path, body, status, etype, param, message):
    got, hdrs, raw = post(server, path, body)
    assert got == status, raw
    assert hdrs.get("content-type", hdrs.get("Content-Type", "")).startswith("application/json")
    err = error_of(raw, status)
    assert err["type"] == etype, err
    assert err["param"] == param, err
    assert message in err["message"], err


def test_bad_json(server):
    for path in (CHAT, COMP, "/tokenize", "/detokenize"):
        status, _, raw = post(server, path, b'{"messages": [')
        assert status == 400, (path, raw)
        err = error_of(raw, 400)
        assert err["type"] == "Bad Request"
        assert "JSON decode error" in err["message"]


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "application/jsonl"])
def test_wrong_content_type(server, ctype):
    body = json.dumps({"messages": MSGS, "max_tokens": 2}).encode()
    for path in (CHAT, COMP, "/tokenize"):
        status, _, raw = post(server, path, body, headers={"Content-Type": ctype})
        assert status == 400, (path, raw)  # vLLM: 400, not 415
        err = error_of(raw, 400)
        assert "Unsupported Media Type: Only 'application/json' is allowed" in err["message"]


def test_content_type_parameters_accepted(server):
    body = json.dumps({"prompt": "Hi", "max_tokens": 2, "temperature": 0}).encode()
    status, _, raw = post(server, COMP, body, headers={"Content-Type": "application/json; charset=utf-8"})
    assert status == 200, raw


def test_unknown_fields_ignored(server):
    status, _, raw = post(server, COMP, {"prompt": "Hi", "max_tokens": 2, "temperature": 0,
                                         "guided_json": {"type": "object"}, "no_such_field": [1]})
    assert status == 200, raw
    assert json.loads(raw)["usage"]["completion_tokens"] == 2


def test_framework_404_405(server):
    for method, path, status, detail in [("GET", "/v1/nope", 404, "Not Found"),
                                         ("POST", "/v1/embeddings", 404, "Not Found"),
                                         ("POST", "/v1/audio/speech", 404, "Not Found"),
                                         ("GET", "/v1/chat/completions", 405, "Method Not Allowed"),
                                         ("DELETE", "/v1/models", 405, "Method Not Allowed"),
                                         ("GET", "/v1/completions", 405, "Method Not Allowed")]:
        got, _, raw = e2e.http(method, server.base_url + path)
        assert got == status, (method, path, raw)
        assert json.loads(raw) == {"detail": detail}


def test_prompt_too_long(server):
    prompt = "hello " * (2 * MAX_LEN)
    status, _, raw = post(server, COMP, {"prompt": prompt, "max_tokens": 1})
    assert status == 400, raw
    err = error_of(raw, 400)
    assert err["type"] == "BadRequestError"
    assert f"maximum context length is {MAX_LEN} tokens" in err["message"] or \
        f"exceeds model's maximum context length ({MAX_LEN})" in err["message"], err
    # Chat, too (the rendered prompt alone is too long).
    status, _, raw = post(server, CHAT, {"messages": [{"role": "user", "content": prompt}], "max_tokens": 1})
    assert status == 400, raw
    assert error_of(raw, 400)["type"] == "BadRequestError"


def test_prompt_plus_max_tokens_too_long(server):
    n_prompt = json.loads(post(server, "/tokenize", {"prompt": "Hello"})[2])["count"]
    status, _, raw = post(server, COMP, {"prompt": "Hello", "max_tokens": MAX_LEN})
    assert status == 400, raw
    err = error_of(raw, 400)
    assert err["message"].startswith(
        f"This model's maximum context length is {MAX_LEN} tokens. However, you requested {MAX_LEN} output tokens "
        f"and your prompt contains {n_prompt} input tokens, for a total of {MAX_LEN + n_prompt} tokens."), err
    assert err["param"] == "input_tokens"
    # At the limit exactly it is served.
    status, _, raw = post(server, COMP, {"prompt": "Hello", "max_tokens": MAX_LEN - n_prompt, "temperature": 0,
                                         "ignore_eos": True})
    assert status == 200, raw
    assert json.loads(raw)["usage"]["total_tokens"] == MAX_LEN


def test_openai_client_exceptions(server):
    client = server.client()
    with pytest.raises(openai.NotFoundError) as e:
        client.chat.completions.create(model="gemma", messages=MSGS, max_tokens=2)
    assert e.value.status_code == 404
    assert e.value.body["message"] == "The model `gemma` does not exist."
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model=MODEL, messages=MSGS, max_tokens=2, temperature=-0.5)
    assert e.value.status_code == 400 and e.value.body["param"] == "temperature"
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model=MODEL, prompt="x", max_tokens=2, extra_body={"top_p": 0})
    assert "top_p must be in (0, 1]" in e.value.body["message"]
    # Errors before a stream starts are plain HTTP errors, also for stream=True.
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model=MODEL, messages=MSGS, max_tokens=2, stream=True, n=2, temperature=0)
    with pytest.raises(openai.NotFoundError):
        client.completions.create(model="nope", prompt="x", max_tokens=2, stream=True)


def _key_server(args, env=None, name="apikey"):
    return e2e.Server([MODEL, "--max-model-len", str(MAX_LEN)] + args, env=env, name=name)


def _check_key_enforced(s, good, bad):
    base = s.base_url
    for path in ("/v1/models",):
        assert e2e.http("GET", base + path)[0] == 401
    # 401 body is vLLM's {"error": "Unauthorized"}, not the usual error object.
    status, _, raw = e2e.http("POST", base + COMP, {"prompt": "x", "max_tokens": 1})
    assert status == 401 and json.loads(raw) == {"error": "Unauthorized"}
    status, _, raw = e2e.http("POST", base + CHAT, {"messages": MSGS, "max_tokens": 1},
                              headers={"Authorization": f"Bearer {bad}"})
    assert status == 401 and json.loads(raw) == {"error": "Unauthorized"}
    assert e2e.http("GET", base + "/v1/models", headers={"Authorization": good})[0] == 401  # no scheme
    assert e2e.http("GET", base + "/v1/models", headers={"Authorization": f"Bearer {good}x"})[0] == 401
    assert e2e.http("GET", base + "/v1/models", headers={"Authorization": f"Bearer {good}"})[0] == 200
    assert e2e.http("GET", base + "/v1/models", headers={"Authorization": f"bearer {good}"})[0] == 200
    # Unprotected routes.
    for method, path, body in [("GET", "/health", None), ("GET", "/ping", None), ("GET", "/version", None),
                               ("GET", "/metrics", None), ("POST", "/tokenize", {"prompt": "x"}),
                               ("POST", "/detokenize", {"tokens": [2]})]:
        status, _, raw = e2e.http(method, base + path, body)
        assert status == 200, (path, raw)
    # Unknown /v1 route: auth runs first (vLLM middleware), so 401.
    assert e2e.http("GET", base + "/v1/nope")[0] == 401
    # The openai client.
    with pytest.raises(openai.AuthenticationError) as e:
        s.client(api_key=bad).models.list()
    assert e.value.status_code == 401
    r = s.client(api_key=good).completions.create(model=MODEL, prompt="x", max_tokens=2, temperature=0)
    assert r.usage.completion_tokens == 2


def test_api_key_flag():
    with _key_server(["--api-key", "sekrit"]) as s:
        _check_key_enforced(s, "sekrit", "wrong")


def test_api_key_flag_several_keys():
    with _key_server(["--api-key", "k1", "k2"]) as s:
        _check_key_enforced(s, "k1", "k3")
        assert e2e.http("GET", s.base_url + "/v1/models", headers={"Authorization": "Bearer k2"})[0] == 200


def test_api_key_env():
    with _key_server([], env={"VLLM_API_KEY": "from-env"}, name="apikey-env") as s:
        _check_key_enforced(s, "from-env", "EMPTY")


def test_api_key_cli_wins_over_env():
    with _key_server(["--api-key", "cli"], env={"VLLM_API_KEY": "env"}, name="apikey-both") as s:
        assert e2e.http("GET", s.base_url + "/v1/models", headers={"Authorization": "Bearer cli"})[0] == 200
        assert e2e.http("GET", s.base_url + "/v1/models", headers={"Authorization": "Bearer env"})[0] == 401


def test_no_key_means_open(server):
    status, _, _ = e2e.http("GET", server.base_url + "/v1/models", headers={"Authorization": "Bearer anything"})
    assert status == 200
    assert e2e.http("GET", server.base_url + "/v1/models")[0] == 200
