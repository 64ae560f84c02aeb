"""tool_choice through the HTTP API on the random-weight e2e model (chat-format.md §8, api.md §4.4).

none / auto (400 without --enable-auto-tool-choice, as vLLM) / required / named, parallel_tool_calls,
streaming and not. `required` and named calls are constrained to Gemma 4's native call syntax with
arguments satisfying the tool's JSON schema, so on random weights every call must parse and its
arguments must validate; finish_reason is "tool_calls" for required and "stop" for named.
"""
import json
import re

import jsonschema
import openai
import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
MSG = [{"role": "user", "content": "What is the weather in Paris?"}]
PROTOCOL = ['<|"|>', "<|tool_call>", "<tool_call|>", "<|channel>", "<channel|>", "<|turn>", "<turn|>",
            "<|tool_response>", "<tool_response|>", "<|think|>"]

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Current weather",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "minLength": 1, "maxLength": 20},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "unit": {"enum": ["celsius", "fahrenheit"]}},
            "required": ["city"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "search.docs", "description": "Search",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string", "maxLength": 24},
            "filters": {"type": "object", "properties": {
                "lang": {"enum": ["en", "fr"]}, "max": {"type": "integer", "minimum": 1, "maximum": 10},
                "exact": {"type": "boolean"}}, "required": ["lang"], "additionalProperties": False},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 3},
            "score": {"type": "number", "minimum": 0, "maximum": 1}},
            "required": ["query", "filters"], "additionalProperties": False}}},
    {"type": "function", "function": {"name": "ping", "description": "No arguments"}},
]
SCHEMAS = {t["function"]["name"]: t["function"].get("parameters", {"type": "object"}) for t in TOOLS}


def _ids(server, text):
    status, _, body = e2e.http("POST", server.base_url + "/tokenize",
                               {"model": MODEL, "prompt": text, "add_special_tokens": False})
    assert status == 200
    ids = json.loads(body)["tokens"]
    assert len(ids) == 1, (text, ids)
    return ids[0]


@pytest.fixture(scope="module")
def bias(server):
    """Nudges the random model to close strings (the `<|"|>` token), objects and arrays, and to end
    after a call (`<|tool_response>`); only tokens the grammar allows are affected."""
    b = {str(_ids(server, '<|"|>')): 30, str(_ids(server, "}")): 8, str(_ids(server, "]")): 8,
         str(_ids(server, "<|tool_response>")): 30}
    for d in range(10):
        b[str(_ids(server, str(d)))] = -4
    return b


def check_calls(calls, names=None):
    assert calls, "no tool calls"
    ids = set()
    for c in calls:
        assert c.type == "function"
        assert re.fullmatch(r"chatcmpl-tool-[0-9a-f]{32}", c.id) and c.id not in ids  # vLLM: uuid4().hex
        ids.add(c.id)
        assert c.function.name in (names or SCHEMAS)
        args = json.loads(c.function.arguments)
        jsonschema.validate(args, SCHEMAS[c.function.name], format_checker=jsonschema.FormatChecker())
        for m in PROTOCOL:
            assert m not in c.function.arguments


def no_protocol(text):
    for m in PROTOCOL:
        assert m not in (text or ""), (m, text)


def create(client, bias, **kw):
    kw.setdefault("max_tokens", 200)
    kw.setdefault("messages", MSG)
    kw.setdefault("tools", TOOLS)
    return client.chat.completions.create(model=MODEL, logit_bias=bias, **kw)


def collect_stream(stream):
    """Reassembles a streamed chat response; checks the tool-call delta order on the way."""
    content, finish, calls = "", None, {}
    for chunk in stream:
        for ch in chunk.choices:
            d = ch.delta
            if d.content:
                content += d.content
            for tc in d.tool_calls or []:
                if tc.index not in calls:
                    # First delta of a call: id, type and name, arguments "" (or a first fragment).
                    assert tc.id and tc.type == "function" and tc.function and tc.function.name, tc
                    calls[tc.index] = {"id": tc.id, "name": tc.function.name, "args": tc.function.arguments or ""}
                else:
                    assert tc.id is None and (tc.function.name is None), tc  # id/name only once
                    calls[tc.index]["args"] += tc.function.arguments or ""
            if ch.finish_reason:
                finish = ch.finish_reason
    return content, finish, [calls[i] for i in sorted(calls)]


def test_tool_choice_none_never_calls(client, bias):
    for seed in range(2):
        r = create(client, bias, tool_choice="none", seed=seed, max_tokens=40)
        m = r.choices[0].message
        assert not m.tool_calls
        assert r.choices[0].finish_reason in ("stop", "length")
        no_protocol(m.content)
    content, finish, calls = collect_stream(create(client, bias, tool_choice="none", seed=0, max_tokens=40,
                                                   stream=True))
    assert not calls and finish in ("stop", "length")
    no_protocol(content)


def test_tool_choice_auto_needs_enable_auto_tool_choice(bias):
    flags = ["--tool-call-parser", "gemma4", "--chat-template", "examples/tool_chat_template_gemma4.jinja"]
    with e2e.Server([MODEL] + flags, name="tools-no-auto") as s:
        client = s.client()
        with pytest.raises(openai.BadRequestError) as e:
            create(client, bias, tool_choice="auto", max_tokens=5)
        assert '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' in \
            e.value.message
        # required and named need only the parser.
        r = create(client, bias, tool_choice="required", seed=1)
        check_calls(r.choices[0].message.tool_calls)
    with e2e.Server([MODEL, "--chat-template", "examples/tool_chat_template_gemma4.jinja"], name="tools-none") as s:
        client = s.client()
        for choice, message in [("required", 'tool_choice="required" requires --tool-call-parser to be set'),
                                ({"type": "function", "function": {"name": "ping"}},
                                 "a named tool_choice requires --tool-call-parser to be set")]:
            with pytest.raises(openai.BadRequestError) as e:
                create(client, bias, tool_choice=choice, max_tokens=5)
            assert message in e.value.message


def test_tool_choice_auto_answers(client, bias):
    """auto on random weights: free text (a call is possible but unlikely); never protocol leakage."""
    r = create(client, bias, tool_choice="auto", seed=3, max_tokens=40)
    c = r.choices[0]
    if c.message.tool_calls:
        assert c.finish_reason == "tool_calls"
    no_protocol(c.message.content)


@pytest.mark.parametrize("seed", range(6))
def test_required_non_streaming(client, bias, seed):
    r = create(client, bias, tool_choice="required", seed=seed)
    c = r.choices[0]
    assert c.finish_reason == "tool_calls", c
    check_calls(c.message.tool_calls)
    assert c.message.content in ("", None)


@pytest.mark.parametrize("seed", range(4))
def test_required_streaming(client, bias, seed):
    content, finish, calls = collect_stream(create(client, bias, tool_choice="required", seed=seed, stream=True))
    assert finish == "tool_calls"
    assert calls
    for call in calls:
        assert call["name"] in SCHEMAS
        jsonschema.validate(json.loads(call["args"]), SCHEMAS[call["name"]])
    no_protocol(content)
    assert content.strip() == ""


def test_required_streaming_matches_non_streaming(client, bias):
    full = create(client, bias, tool_choice="required", seed=9).choices[0].message.tool_calls
    _, _, streamed = collect_stream(create(client, bias, tool_choice="required", seed=9, stream=True))
    assert [(c.function.name, c.function.arguments) for c in full] == [(c["name"], c["args"]) for c in streamed]


def test_parallel_tool_calls_false_gives_one_call(client, bias):
    for seed in range(4):
        r = create(client, bias, tool_choice="required", parallel_tool_calls=False, seed=seed)
        calls = r.choices[0].message.tool_calls
        check_calls(calls)
        assert len(calls) == 1
        assert r.choices[0].finish_reason == "tool_calls"


def test_required_allows_several_calls(server, client, bias):
    """Without the <|tool_response> nudge the model may chain calls; each one is valid."""
    b = dict(bias)
    b.pop(str(_ids(server, "<|tool_response>")))
    b[str(_ids(server, "<|tool_call>"))] = 10  # prefer another call over stopping
    r = create(client, b, tool_choice="required", seed=2, max_tokens=400)
    calls = r.choices[0].message.tool_calls
    check_calls(calls)
    assert r.choices[0].finish_reason in ("tool_calls", "length")
    if r.choices[0].finish_reason == "tool_calls":
        assert len(calls) >= 2


@pytest.mark.parametrize("name", ["get_weather", "search.docs", "ping"])
def test_named_function(client, bias, name):
    choice = {"type": "function", "function": {"name": name}}
    for seed in range(2):
        r = create(client, bias, tool_choice=choice, seed=seed)
        c = r.choices[0]
        assert c.finish_reason == "stop", c
        check_calls(c.message.tool_calls, names=[name])
        assert len(c.message.tool_calls) == 1
        assert c.message.content in ("", None)
    content, finish, calls = collect_stream(create(client, bias, tool_choice=choice, seed=5, stream=True))
    assert finish == "stop"
    assert len(calls) == 1 and calls[0]["name"] == name
    jsonschema.validate(json.loads(calls[0]["args"]), SCHEMAS[name])
    no_protocol(content)


def test_named_unknown_function_is_400(client, bias):
    with pytest.raises(openai.BadRequestError) as e:
        create(client, bias, tool_choice={"type": "function", "function": {"name": "nope"}}, max_tokens=5)
    assert "Tool 'nope' has not been passed in `tools`." in e.value.message


def test_tool_choice_without_tools_is_400(client, bias):
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model=MODEL, messages=MSG, tool_choice="required", max_tokens=5)
    assert "When using `tool_choice`, `tools` must be set." in e.value.message


def test_required_replaces_response_format(client, bias):
    """A forced tool choice wins over response_format (vLLM replaces it with the tool schema)."""
    r = create(client, bias, tool_choice="required", seed=4, response_format={"type": "json_object"})
    assert r.choices[0].finish_reason == "tool_calls"
    check_calls(r.choices[0].message.tool_calls)
