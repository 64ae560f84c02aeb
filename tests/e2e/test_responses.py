"""/v1/responses through the official openai client (shared/spec/api.md §7): create with text and
item input, instructions, function tools -> function_call items, the thinking channel ->
reasoning items, text.format json_schema, the typed event stream (responses.stream and
create(stream=True)), background streams and their replay (retrieve(stream=True, starting_after=N)),
retrieve / cancel with the store on (VLLM_ENABLE_RESPONSES_API_STORE=1) and
off, previous_response_id, and vLLM's errors.

Exact item conversion uses the TEST-ONLY scripted-output seam (gemmad-testing with
GEMMAD_TEST_SCRIPTED_OUTPUT): the chat request a Responses request converts to is tokenized by
the server, and its prompt ids are scripted to generate a chosen text (thinking channel, calls).
"""
import json
import time

import openai
import pytest

import gemmad_e2e as e2e
import structured_util as su

MODEL = e2e.DEFAULT_REPO
Q = '<|"|>'
WEATHER_TOOL = {"type": "function", "name": "get_weather", "description": "Weather of a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
CHAT_TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather of a city.",
                                              "parameters": WEATHER_TOOL["parameters"]}}
THINK_AND_CALL = ("<|channel>thought\nNeed the weather.<channel|>"
                  f"<|tool_call>call:get_weather{{city:{Q}Paris{Q}}}<tool_call|><|tool_response>")


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("script") / "script.jsonl")
    open(path, "w").close()
    s = e2e.Server([MODEL] + e2e.TOOL_FLAGS, name="responses_scripted", bin=e2e.TESTING_BIN,
                   env={"GEMMAD_TEST_SCRIPTED_OUTPUT": path, "VLLM_ENABLE_RESPONSES_API_STORE": "1"})
    s.start()
    s.script_path = path
    yield s
    rc = s.stop()
    assert rc == 0, s.log()


@pytest.fixture(scope="module")
def sclient(scripted):
    return scripted.client()


def script(server, messages, text, tools=None):
    body = {"model": MODEL, "messages": messages}
    if tools:
        body["tools"] = tools
    return e2e.script_output(server, body, text)


def test_text_input_with_store_off(server, client):
    r = client.responses.create(model=MODEL, input="Hello", instructions="Be brief.", max_output_tokens=4,
                                temperature=0)
    assert r.id.startswith("resp_") and len(r.id) == 37
    assert r.object == "response" and r.model == MODEL
    assert r.status == "incomplete" and r.incomplete_details.reason == "max_output_tokens"
    assert r.instructions == "Be brief." and r.max_output_tokens == 4 and r.temperature == 0
    # The random model's 4 tokens may parse to nothing (vLLM then has no items): only shapes here.
    for o in r.output:
        assert o.type in ("reasoning", "message"), o
        assert o.id.startswith("rs_" if o.type == "reasoning" else "msg_")
    assert r.output_text == "".join(c.text for o in r.output if o.type == "message" for c in o.content)
    u = r.usage
    assert u.output_tokens == 4 and u.total_tokens == u.input_tokens + 4
    assert u.input_tokens_details.cached_tokens >= 0 and u.output_tokens_details.reasoning_tokens == 0
    # Storage is off by default (vLLM): nothing to retrieve, cancel or continue from.
    for call in (lambda: client.responses.retrieve(r.id), lambda: client.responses.cancel(r.id),
                 lambda: client.responses.create(model=MODEL, input="x", previous_response_id=r.id)):
        with pytest.raises(openai.NotFoundError) as e:
            call()
        assert e.value.body["message"] == f"Response with id '{r.id}' not found."
        assert e.value.body["type"] == "invalid_request_error" and e.value.body["param"] == "response_id"
    with pytest.raises(openai.BadRequestError) as e:
        client.responses.create(model=MODEL, input="x", background=True)
    assert "VLLM_ENABLE_RESPONSES_API_STORE=1" in e.value.body["message"]


def test_errors(server, client):
    with pytest.raises(openai.BadRequestError) as e:
        client.responses.create(model=MODEL, input=[{"type": "function_call_output", "output": "x"}])
    assert "call_id" in e.value.body["message"]
    with pytest.raises(openai.BadRequestError):
        client.responses.create(model=MODEL, input=[{"type": "web_search_call", "id": "ws_1", "status": "completed"}])
    with pytest.raises(openai.NotFoundError):
        client.responses.create(model="nope", input="x")
    with pytest.raises(openai.BadRequestError) as e:
        client.responses.create(model=MODEL, input="x", temperature=-1)
    assert e.value.body["param"] == "temperature"
    # FastAPI's answers for the other methods and shapes of the three routes.
    base = server.base_url + "/v1/responses"
    for method, url, status, detail in (("GET", base, 405, "Method Not Allowed"),
                                        ("POST", base + "/resp_x", 405, "Method Not Allowed"),
                                        ("GET", base + "/resp_x/cancel", 405, "Method Not Allowed"),
                                        ("GET", base + "/resp_x/other", 404, "Not Found")):
        got, _, raw = e2e.http(method, url, {} if method == "POST" else None)
        assert (got, json.loads(raw)) == (status, {"detail": detail}), (method, url)
    got, _, raw = e2e.http("POST", base, b"input=x", headers={"Content-Type": "text/plain"})
    assert got == 400 and "Only 'application/json' is allowed" in json.loads(raw)["error"]["message"]


def test_text_format_json_schema(server, client):
    schema = {"type": "object", "properties": {"c": {"enum": ["x", "y"]}, "n": {"type": "integer", "maximum": 9,
                                                                                 "minimum": 0}},
              "required": ["c", "n"], "additionalProperties": False}
    bias = su.termination_bias(server)
    r = client.responses.create(model=MODEL, input="Give me data.", max_output_tokens=200, temperature=0,
                                text={"format": {"type": "json_schema", "name": "d", "schema": schema, "strict": True}},
                                extra_body={"logit_bias": bias})
    assert r.status == "completed", r
    v = json.loads(r.output_text)
    assert v["c"] in ("x", "y") and 0 <= v["n"] <= 9
    assert r.text.format.type == "json_schema"


def test_reasoning_and_function_call_items(scripted, sclient):
    user = [{"role": "user", "content": "Weather in Paris?"}]
    script(scripted, user, THINK_AND_CALL, tools=[CHAT_TOOL])
    r = sclient.responses.create(model=MODEL, input="Weather in Paris?", tools=[WEATHER_TOOL])
    assert [o.type for o in r.output] == ["reasoning", "function_call"], r.output
    rs, fc = r.output
    assert rs.id.startswith("rs_") and rs.content[0].type == "reasoning_text"
    assert rs.content[0].text == "Need the weather."
    assert fc.id.startswith("fc_") and fc.name == "get_weather" and fc.status == "completed"
    assert json.loads(fc.arguments) == {"city": "Paris"} and fc.call_id
    assert r.usage.output_tokens_details.reasoning_tokens > 0
    assert r.status == "completed"

    # The call's output goes back as items; the model's answer is a message.
    history = user + [{"role": "assistant", "reasoning": "Need the weather.", "tool_calls": [
        {"id": fc.call_id, "type": "function", "function": {"name": "get_weather", "arguments": fc.arguments}}]},
        {"role": "tool", "content": "sunny", "tool_call_id": fc.call_id}]
    script(scripted, history, "It is sunny in Paris.<turn|>", tools=[CHAT_TOOL])
    items = [{"role": "user", "content": "Weather in Paris?"},
             rs.model_dump(exclude_none=True), fc.model_dump(exclude_none=True),
             {"type": "function_call_output", "call_id": fc.call_id, "output": "sunny"}]
    r2 = sclient.responses.create(model=MODEL, input=items, tools=[WEATHER_TOOL])
    assert [o.type for o in r2.output] == ["message"], r2.output
    assert r2.output_text == "It is sunny in Paris."


def test_stream_event_sequence(scripted, sclient):
    user = [{"role": "user", "content": "Stream the weather."}]
    script(scripted, user, THINK_AND_CALL, tools=[CHAT_TOOL])
    with sclient.responses.stream(model=MODEL, input="Stream the weather.", tools=[WEATHER_TOOL]) as stream:
        events = list(stream)
        final = stream.get_final_response()
    types = [e.type for e in events]
    assert types[:4] == ["response.created", "response.in_progress", "response.output_item.added",
                         "response.reasoning_part.added"], types
    assert types[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    for t in ("response.reasoning_text.delta", "response.reasoning_text.done", "response.reasoning_part.done",
              "response.function_call_arguments.delta", "response.function_call_arguments.done",
              "response.output_item.done"):
        assert t in types, types
    reasoning = "".join(e.delta for e in events if e.type == "response.reasoning_text.delta")
    args = "".join(e.delta for e in events if e.type == "response.function_call_arguments.delta")
    assert reasoning == "Need the weather." and json.loads(args) == {"city": "Paris"}
    assert [o.type for o in final.output] == ["reasoning", "function_call"]
    added = [e.item.id for e in events if e.type == "response.output_item.added"]
    assert [o.id for o in final.output] == added
    assert final.status == "completed"
    stored = sclient.responses.retrieve(final.id)  # streamed responses are stored too
    assert [(o.id, o.type) for o in stored.output] == [(o.id, o.type) for o in final.output]
    assert stored.output[1].arguments == final.output[1].arguments and stored.usage == final.usage


def test_stream_text_and_wire_format(scripted, sclient):
    user = [{"role": "user", "content": "Say hi."}]
    script(scripted, user, "Hi there!<turn|>")
    events = list(sclient.responses.create(model=MODEL, input="Say hi.", stream=True))
    types = [e.type for e in events]
    assert types[:4] == ["response.created", "response.in_progress", "response.output_item.added",
                         "response.content_part.added"]
    assert types[-4:] == ["response.output_text.done", "response.content_part.done", "response.output_item.done",
                          "response.completed"]
    assert set(types[4:-4]) == {"response.output_text.delta"}
    assert "".join(e.delta for e in events[4:-4]) == "Hi there!"
    assert events[-1].response.output_text == "Hi there!"
    # The wire: `event: <type>` before each data line, and no [DONE].
    script(scripted, [{"role": "user", "content": "Wire."}], "Ok.<turn|>")
    status, headers, raw = e2e.http("POST", scripted.base_url + "/v1/responses",
                                    {"model": MODEL, "input": "Wire.", "stream": True})
    content_type = {k.lower(): v for k, v in headers.items()}["content-type"]
    assert status == 200 and content_type.startswith("text/event-stream")
    blocks = [b for b in raw.decode().split("\n\n") if b]
    assert "[DONE]" not in raw.decode()
    for b in blocks:
        event, data = b.split("\n")
        assert event.startswith("event: ") and data.startswith("data: ")
        assert json.loads(data[len("data: "):])["type"] == event[len("event: "):]


def test_store_retrieve_cancel_and_previous_response(scripted, sclient):
    first = [{"role": "system", "content": "Old rules."}, {"role": "user", "content": "My name is Ada."}]
    script(scripted, first, "Hello Ada.<turn|>")
    r = sclient.responses.create(model=MODEL, input="My name is Ada.", instructions="Old rules.")
    assert r.output_text == "Hello Ada."
    got = sclient.responses.retrieve(r.id)
    assert got.model_dump() == r.model_dump()
    with pytest.raises(openai.BadRequestError) as e:
        sclient.responses.cancel(r.id)
    assert e.value.body["message"] == "Cannot cancel a synchronous response."
    with pytest.raises(openai.NotFoundError):
        sclient.responses.retrieve("resp_" + "0" * 32)
    # The next turn sees the earlier messages and the earlier answer, not the old instructions.
    second = [{"role": "user", "content": "My name is Ada."}, {"role": "assistant", "content": "Hello Ada."},
              {"role": "user", "content": "What is my name?"}]
    script(scripted, second, "Ada.<turn|>")
    r2 = sclient.responses.create(model=MODEL, input="What is my name?", previous_response_id=r.id)
    assert r2.previous_response_id == r.id and r2.output_text == "Ada."
    with pytest.raises(openai.NotFoundError) as e:
        sclient.responses.create(model=MODEL, input="x", previous_response_id="resp_missing")
    assert e.value.body["message"] == "Response with id 'resp_missing' not found."
    unstored = sclient.responses.create(model=MODEL, input="My name is Ada.", instructions="Old rules.", store=False)
    with pytest.raises(openai.NotFoundError):
        sclient.responses.retrieve(unstored.id)


def test_background_run_and_cancel(scripted, sclient):
    # A short background run: answered queued, then stored with its result.
    b = sclient.responses.create(model=MODEL, input="Background hello", background=True, max_output_tokens=3)
    assert b.status == "queued" and b.background and b.output == []
    deadline = time.time() + 60
    while (got := sclient.responses.retrieve(b.id)).status == "queued" and time.time() < deadline:
        time.sleep(0.1)
    assert got.status == "incomplete" and got.usage.output_tokens == 3
    with pytest.raises(openai.BadRequestError) as e:
        sclient.responses.cancel(b.id)
    assert e.value.body["message"] == "Cannot cancel a synchronous response."
    # A long one (EOS ignored, the whole context) is cancelled while it runs, and stays cancelled.
    max_len = sclient.models.list().data[0].model_extra["max_model_len"]
    r = sclient.responses.create(model=MODEL, input="Count forever.", background=True,
                                 max_output_tokens=max_len - 64, extra_body={"ignore_eos": True})
    assert r.status == "queued"
    c = sclient.responses.cancel(r.id)
    assert c.id == r.id and c.status == "cancelled"
    time.sleep(1)
    assert sclient.responses.retrieve(r.id).status == "cancelled"
    # Only background streams record events (vLLM's "Unknown response_id").
    with pytest.raises(openai.BadRequestError) as e:
        sclient.responses.retrieve(b.id, stream=True)
    assert e.value.body["message"] == f"Unknown response_id: {b.id}"


def test_background_stream_and_replay(scripted, sclient):
    user = [{"role": "user", "content": "Stream in the background."}]
    script(scripted, user, "Hi from the background.<turn|>")
    events = list(sclient.responses.create(model=MODEL, input="Stream in the background.", background=True,
                                           stream=True))
    types = [e.type for e in events]
    assert types[:2] == ["response.created", "response.in_progress"] and types[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert events[0].response.background and events[-1].response.output_text == "Hi from the background."
    rid = events[0].response.id
    stored = sclient.responses.retrieve(rid)
    assert stored.status == "completed" and stored.output_text == "Hi from the background."
    # The recorded events replay as they were streamed, all of them or those after starting_after.
    replay = list(sclient.responses.retrieve(rid, stream=True))
    assert [e.model_dump() for e in replay] == [e.model_dump() for e in events]
    tail = list(sclient.responses.retrieve(rid, stream=True, starting_after=2))
    assert [e.sequence_number for e in tail] == list(range(3, len(events)))
    assert tail[-1].model_dump() == events[-1].model_dump()
    # The wire: typed SSE, no [DONE].
    status, _, raw = e2e.http("GET", scripted.base_url + f"/v1/responses/{rid}?stream=true&starting_after=0")
    assert status == 200 and "[DONE]" not in raw.decode()
    blocks = [b for b in raw.decode().split("\n\n") if b]
    assert len(blocks) == len(events) - 1
    for b, want in zip(blocks, events[1:]):
        event, data = b.split("\n")
        assert event == f"event: {want.type}" and json.loads(data[len("data: "):])["sequence_number"] == \
            want.sequence_number
    status, _, raw = e2e.http("GET", scripted.base_url + f"/v1/responses/{rid}?stream=true&starting_after=x")
    assert status == 400 and json.loads(raw)["error"]["param"] == "starting_after"


def test_background_stream_survives_its_client_and_is_followed_live(scripted, sclient):
    max_len = sclient.models.list().data[0].model_extra["max_model_len"]
    client = sclient.with_options(timeout=120)
    stream = client.responses.create(model=MODEL, input="Count forever, in the background.", background=True,
                                     stream=True, max_output_tokens=max_len - 64, extra_body={"ignore_eos": True})
    it = iter(stream)
    first = [next(it) for _ in range(3)]
    stream.close()  # the POST's client leaves; the run goes on
    rid = first[0].response.id
    assert [e.sequence_number for e in first] == [0, 1, 2]
    time.sleep(0.5)
    assert sclient.responses.retrieve(rid).status == "queued", "still running"
    follow = client.responses.retrieve(rid, stream=True, starting_after=1)
    seen = []
    for e in follow:
        seen.append(e)
        if len(seen) == 8:
            sclient.responses.cancel(rid)  # the run is aborted: the followed stream ends
    assert len(seen) >= 8 and seen[0].sequence_number == 2
    assert [e.sequence_number for e in seen] == list(range(2, 2 + len(seen)))
    assert "response.completed" not in [e.type for e in seen]
    assert sclient.responses.retrieve(rid).status == "cancelled"
