"""Scripted model output through the whole server (issue 8): `gemmad-testing serve` (the test
binary) with the TEST-ONLY GEMMAD_TEST_SCRIPTED_OUTPUT seam (src/runner/scripted_runner.h) makes a request whose prompt is
listed in the script file "generate" the listed token ids. The ids are the real tokenizer's
(/tokenize), and the text goes back through the real detokenizer, the gemma4 reasoning and
tool-call parsers and the HTTP layer to the openai client.

Checked for every script: streaming and non-streaming give the same final message; no protocol
marker (`<|"|>`, `<|tool_call>`, …) ever reaches content, reasoning or arguments; never a 500.
"""
import json
import os

import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
TURN_END = "<turn|>"          # id 106, a stop id
TOOL_RESPONSE = "<|tool_response>"  # id 50, a stop id: the model emits it after its calls
Q = '<|"|>'
PROTOCOL = [Q, "<|tool_call>", "<tool_call|>", "<|channel>", "<channel|>", "<|turn>", "<turn|>",
            "<|tool_response>", "<tool_response|>", "<|think|>"]
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}},
    {"type": "function", "function": {"name": "search.docs", "parameters": {"type": "object", "properties": {
        "query": {"type": "string"}, "filters": {"type": "object"}, "tags": {"type": "array"},
        "score": {"type": "number"}}}}},
    {"type": "function", "function": {"name": "ping"}},
]
THINK = {"enable_thinking": True}


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("script") / "script.jsonl")
    open(path, "w").close()
    s = e2e.Server([MODEL] + e2e.TOOL_FLAGS, env={"GEMMAD_TEST_SCRIPTED_OUTPUT": path}, name="scripted",
                 bin=e2e.TESTING_BIN)
    s.start()
    s.script_path = path
    yield s
    rc = s.stop()
    assert rc == 0, s.log()
    assert "GEMMAD_TEST_SCRIPTED_OUTPUT" in s.log() and "TEST ONLY" in s.log()


def script(server, messages, text, tools=None, kwargs=None):
    """Makes the chat request (messages, tools, chat_template_kwargs) generate `text`."""
    body = {"model": MODEL, "messages": messages}
    if tools:
        body["tools"] = tools
    if kwargs:
        body["chat_template_kwargs"] = kwargs
    return e2e.script_output(server, body, text)


def parse_args(text):
    """Arguments as JSON; a call cut off before its end keeps its truncated text (docs/tool-calling.md)."""
    try:
        return json.loads(text)
    except ValueError:
        return ("truncated", text)


def no_protocol(*texts):
    for t in texts:
        for m in PROTOCOL:
            assert m not in (t or ""), (m, t)


def full(client, messages, tools=None, kwargs=None, **kw):
    extra = dict(kw.pop("extra_body", {}))
    if kwargs:
        extra["chat_template_kwargs"] = kwargs
    args = dict(model=MODEL, messages=messages, max_tokens=kw.pop("max_tokens", 200), temperature=kw.pop("temperature", 0), extra_body=extra, **kw)
    if tools:
        args["tools"] = tools
    r = client.chat.completions.create(**args)
    c = r.choices[0]
    m = c.message
    calls = [(t.function.name, parse_args(t.function.arguments)) for t in (m.tool_calls or [])]
    for t in m.tool_calls or []:
        assert t.type == "function" and t.id.startswith("chatcmpl-tool-")
        no_protocol(t.function.arguments, t.function.name)
    reasoning = (m.model_extra or {}).get("reasoning")
    no_protocol(m.content, reasoning)
    return {"content": m.content, "reasoning": reasoning, "calls": calls, "finish": c.finish_reason}


def streamed(client, messages, tools=None, kwargs=None, **kw):
    extra = dict(kw.pop("extra_body", {}))
    if kwargs:
        extra["chat_template_kwargs"] = kwargs
    args = dict(model=MODEL, messages=messages, max_tokens=kw.pop("max_tokens", 200), temperature=kw.pop("temperature", 0), extra_body=extra,
                stream=True, **kw)
    if tools:
        args["tools"] = tools
    content, reasoning, finish, calls = None, None, None, {}
    for chunk in client.chat.completions.create(**args):
        for ch in chunk.choices:
            d = ch.delta
            r = (d.model_extra or {}).get("reasoning")
            no_protocol(d.content, r)
            if d.content:
                content = (content or "") + d.content
            if r is not None:
                reasoning = (reasoning or "") + r
            for tc in d.tool_calls or []:
                if tc.index not in calls:
                    assert tc.id and tc.type == "function" and tc.function.name, tc
                    calls[tc.index] = [tc.function.name, tc.function.arguments or ""]
                else:
                    assert tc.id is None and tc.function.name is None
                    calls[tc.index][1] += tc.function.arguments or ""
                no_protocol(tc.function.arguments)
            if ch.finish_reason:
                finish = ch.finish_reason
    return {"content": content, "reasoning": reasoning,
            "calls": [(n, parse_args(a)) for n, a in (calls[i] for i in sorted(calls))], "finish": finish}


def both(client, messages, **kw):
    """The non-streaming result, after checking the streamed one equals it."""
    a = full(client, messages, **kw)
    b = streamed(client, messages, **kw)
    # Non-streaming content is strip()ped when a call was made (vLLM); compare modulo that.
    norm = lambda r: dict(r, content=(r["content"] or "").strip() or None) if r["calls"] else dict(r, content=r["content"] or None)
    assert norm(a) == norm(b), (a, b)
    return a


def msg(text):
    return [{"role": "user", "content": text}]


def test_plain_answer(scripted):
    c = scripted.client()
    m = msg("case plain")
    script(scripted, m, "Hello, world! Ünïcödé ☺" + TURN_END)
    r = both(c, m)
    assert r == {"content": "Hello, world! Ünïcödé ☺", "reasoning": None, "calls": [], "finish": "stop"}


def test_only_special_tokens_give_empty_content(scripted):
    # vLLM: the parsers' text, "" included, is the content; null only after tool calls or a
    # thinking channel with nothing after it.
    c = scripted.client()
    m = msg("case nothing to say")
    script(scripted, m, TURN_END)
    r = full(c, m)
    assert r == {"content": "", "reasoning": None, "calls": [], "finish": "stop"}
    m = msg("case nothing after thinking")
    script(scripted, m, "<|channel>thought\nNothing to add.<channel|>" + TURN_END, kwargs=THINK)
    r = full(c, m, kwargs=THINK)
    assert r["content"] is None and r["reasoning"] == "Nothing to add."


def test_single_tool_call(scripted):
    c = scripted.client()
    m = msg("case single call")
    script(scripted, m, f"<|tool_call>call:get_weather{{city:{Q}Paris, France{Q},days:2}}<tool_call|>" + TOOL_RESPONSE,
           tools=TOOLS)
    r = both(c, m, tools=TOOLS)
    assert r["calls"] == [("get_weather", {"city": "Paris, France", "days": 2})]
    assert r["finish"] == "tool_calls"
    assert not r["content"]


def test_several_calls_with_text_before(scripted):
    c = scripted.client()
    m = msg("case several calls")
    script(scripted, m, "Let me check both."
           f"<|tool_call>call:get_weather{{city:{Q}Oslo{Q}}}<tool_call|>"
           f"<|tool_call>call:search.docs{{query:{Q}fjords{Q}}}<tool_call|>"
           "<|tool_call>call:ping{}<tool_call|>" + TOOL_RESPONSE, tools=TOOLS)
    r = both(c, m, tools=TOOLS)
    assert r["calls"] == [("get_weather", {"city": "Oslo"}), ("search.docs", {"query": "fjords"}), ("ping", {})]
    assert r["content"] == "Let me check both."
    assert r["finish"] == "tool_calls"


def test_nested_arguments_and_quote_strings(scripted):
    c = scripted.client()
    m = msg("case nested")
    script(scripted, m, f"<|tool_call>call:search.docs{{query:{Q}say \"hi\", {{not: json}} [x]\nline2{Q},"
           f"filters:{{lang:{Q}en{Q},max:3,exact:false,inner:{{deep:[1,2.5,null,true]}}}},"
           f"tags:[{Q}a{Q},{Q}b,c{Q}],score:0.75}}<tool_call|>" + TOOL_RESPONSE, tools=TOOLS)
    r = both(c, m, tools=TOOLS)
    assert r["calls"] == [("search.docs", {
        "query": 'say "hi", {not: json} [x]\nline2',
        "filters": {"lang": "en", "max": 3, "exact": False, "inner": {"deep": [1, 2.5, None, True]}},
        "tags": ["a", "b,c"], "score": 0.75})]


def test_parallel_tool_calls_false_keeps_the_first(scripted):
    c = scripted.client()
    m = msg("case parallel false")
    script(scripted, m, f"<|tool_call>call:get_weather{{city:{Q}A{Q}}}<tool_call|>"
           f"<|tool_call>call:get_weather{{city:{Q}B{Q}}}<tool_call|>" + TOOL_RESPONSE, tools=TOOLS)
    r = both(c, m, tools=TOOLS, parallel_tool_calls=False)
    assert r["calls"] == [("get_weather", {"city": "A"})]


def test_thinking_then_answer(scripted):
    c = scripted.client()
    m = msg("case think answer")
    script(scripted, m, "<|channel>thought\nThe user greets me.\nBe brief.<channel|>Hi!" + TURN_END, kwargs=THINK)
    r = both(c, m, kwargs=THINK)
    assert r == {"content": "Hi!", "reasoning": "The user greets me.\nBe brief.", "calls": [], "finish": "stop"}


def test_thinking_then_tool_call(scripted):
    c = scripted.client()
    m = msg("case think call")
    script(scripted, m, "<|channel>thought\nNeed the weather.<channel|>"
           f"<|tool_call>call:get_weather{{city:{Q}Rome{Q},days:1}}<tool_call|>" + TOOL_RESPONSE,
           tools=TOOLS, kwargs=THINK)
    r = both(c, m, tools=TOOLS, kwargs=THINK)
    assert r["reasoning"] == "Need the weather."
    assert r["calls"] == [("get_weather", {"city": "Rome", "days": 1})]
    assert r["finish"] == "tool_calls"
    assert not r["content"]


def test_include_reasoning_false(scripted):
    c = scripted.client()
    m = msg("case no reasoning")
    script(scripted, m, "<|channel>thought\nsecret<channel|>Visible." + TURN_END, kwargs=THINK)
    r = both(c, m, kwargs=THINK, extra_body={"include_reasoning": False})
    assert r["content"] == "Visible." and not r["reasoning"]


def test_truncated_thinking_stays_reasoning(scripted):
    c = scripted.client()
    m = msg("case truncated thinking")
    script(scripted, m, "<|channel>thought\nstill thinking about it", kwargs=THINK)
    r = both(c, m, kwargs=THINK, max_tokens=6)
    assert r["finish"] == "length"
    assert r["content"] is None and r["reasoning"] and "thinking" in r["reasoning"]


def test_tool_choice_none_returns_markup_as_content(scripted):
    c = scripted.client()
    m = msg("case choice none")
    script(scripted, m, f"<|tool_call>call:get_weather{{city:{Q}Nice{Q}}}<tool_call|>" + TURN_END, tools=TOOLS)
    r = both(c, m, tools=TOOLS, tool_choice="none")
    assert r["calls"] == [] and r["finish"] == "stop"
    assert "get_weather" in r["content"] and "Nice" in r["content"]


@pytest.mark.parametrize("name,text", [
    ("no call header", f"<|tool_call>get_weather city=Paris<tool_call|> done" + TURN_END),
    ("garbage after marker", "Sure <|tool_call>{{{ ::: <|\"|> oops" + TURN_END),
    ("stray quote markers", f"He said {Q}hi{Q} twice {Q}" + TURN_END),
    ("end marker only", "text <tool_call|> more <channel|> end" + TURN_END),
    ("channel inside text", "a <|channel>b" + TURN_END),
])
def test_malformed_output_is_content_without_markers(scripted, name, text):
    c = scripted.client()
    m = msg("case malformed " + name)
    script(scripted, m, text, tools=TOOLS)
    r = both(c, m, tools=TOOLS)  # no 500; no marker anywhere (checked inside)
    assert r["finish"] in ("stop", "tool_calls")
    visible = (r["content"] or "") + (r["reasoning"] or "")
    assert visible.strip(), r


def test_unterminated_call_is_not_a_500(scripted):
    """A call cut by the end of output: reported (complete or not), never a 500, never markers."""
    c = scripted.client()
    m = msg("case unterminated")
    script(scripted, m, f"<|tool_call>call:get_weather{{city:{Q}Par" + TURN_END, tools=TOOLS)
    a = full(c, m, tools=TOOLS)
    b = streamed(c, m, tools=TOOLS)
    assert a["calls"] == b["calls"] == [("get_weather", ("truncated", '{"city": "Par'))]


def test_structured_output_after_scripted_thinking(scripted):
    """Thinking on: the scripted reasoning is free, then the model (random weights) continues
    under the JSON-schema constraint, which starts once <channel|> has been generated."""
    c = scripted.client()
    m = msg("case think then json")
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}, "n": {"enum": [1, 2, 3]}},
              "required": ["ok", "n"], "additionalProperties": False}
    script(scripted, m, "<|channel>thought\nAnswer in JSON.<channel|>", kwargs=THINK)
    for stream in (False, True):
        r = (streamed if stream else full)(c, m, kwargs=THINK, temperature=1.0, seed=1, max_tokens=100,
                                           extra_body={"structured_outputs": {"json": schema,
                                                                              "disable_any_whitespace": True}})
        assert r["reasoning"] == "Answer in JSON."
        v = json.loads(r["content"])
        assert set(v) == {"ok", "n"} and isinstance(v["ok"], bool) and v["n"] in (1, 2, 3)
        assert r["finish"] == "stop"


def test_unscripted_requests_use_the_model(scripted):
    c = scripted.client()
    r = c.chat.completions.create(model=MODEL, messages=msg("not scripted"), max_tokens=5, temperature=0)
    assert r.usage.completion_tokens <= 5
