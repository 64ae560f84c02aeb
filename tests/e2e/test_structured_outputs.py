"""Structured outputs through the HTTP API (api.md §10) with the official openai client, on the
random-weight e2e model: the grammar mask alone must make every output valid.

Covers response_format json_object / json_schema (strict), structured_outputs json / regex /
choice / grammar / disable_any_whitespace, the legacy guided_* aliases, completions, streaming,
400s with precise messages, the thinking-channel interplay (--reasoning-parser gemma4) and
--structured-outputs-config enable_in_reasoning, and the whole 320-schema corpus.
"""
import json
import re

import openai
import pytest

import gemmad_e2e as e2e
import structured_util as su

MODEL = e2e.DEFAULT_REPO
MSG = [{"role": "user", "content": "Give me data."}]
PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 12},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
        "email": {"type": "string", "format": "email", "maxLength": 30},
        "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 1, "maxItems": 3},
    },
    "required": ["name", "age", "tags"],
    "additionalProperties": False,
}
CHANNEL_START, CHANNEL_END = 100, 101  # <|channel>, <channel|>


@pytest.fixture(scope="module")
def bias(server):
    return su.termination_bias(server)


def chat(client, bias, max_tokens=300, **kw):
    kw.setdefault("seed", 7)
    return client.chat.completions.create(model=MODEL, messages=kw.pop("messages", MSG), max_tokens=max_tokens,
                                          logit_bias=bias, **kw)


def stream_text(client, bias, **kw):
    """(content, reasoning, finish_reason) of a streamed chat request."""
    content, reasoning, finish = "", "", None
    for chunk in chat(client, bias, stream=True, **kw):
        for c in chunk.choices:
            d = c.delta
            content += d.content or ""
            reasoning += (d.model_extra or {}).get("reasoning") or ""
            if c.finish_reason:
                finish = c.finish_reason
    return content, reasoning, finish


def check_json(text, schema):
    value = json.loads(text)
    su.validate(value, schema)
    return value


def test_response_format_json_object(client, bias):
    for seed in range(3):
        r = chat(client, bias, seed=seed, response_format={"type": "json_object"})
        assert r.choices[0].finish_reason == "stop", r
        assert isinstance(json.loads(r.choices[0].message.content), dict)


@pytest.mark.parametrize("strict", [True, False])
def test_response_format_json_schema(client, bias, strict):
    rf = {"type": "json_schema", "json_schema": {"name": "person", "schema": PERSON, "strict": strict}}
    for seed in range(3):
        r = chat(client, bias, seed=seed, response_format=rf)
        assert r.choices[0].finish_reason == "stop"
        v = check_json(r.choices[0].message.content, PERSON)
        assert 1 <= len(v["name"]) <= 12 and 0 <= v["age"] <= 120
    content, _, finish = stream_text(client, bias, seed=11, response_format=rf)
    assert finish == "stop"
    check_json(content, PERSON)


def test_streaming_equals_non_streaming(client, bias):
    """Same seed, same constrained tokens: the streamed deltas concatenate to the full content."""
    so = {"structured_outputs": {"json": PERSON}}
    full = chat(client, bias, seed=5, temperature=1.0, extra_body=so).choices[0].message.content
    streamed, _, finish = stream_text(client, bias, seed=5, temperature=1.0, extra_body=so)
    assert finish == "stop"
    assert streamed == full
    check_json(full, PERSON)


def test_structured_outputs_json_compact(client, bias):
    for seed in range(3):
        r = chat(client, bias, seed=seed,
                 extra_body={"structured_outputs": {"json": PERSON, "disable_any_whitespace": True}})
        text = r.choices[0].message.content
        assert r.choices[0].finish_reason == "stop"
        check_json(text, PERSON)
        assert su.compact_spacing_ok(text), text
        assert text == json.dumps(json.loads(text), ensure_ascii=False), text


def test_structured_outputs_json_as_string(client, bias):
    """`json` may be the schema as a JSON string."""
    r = chat(client, bias, extra_body={"structured_outputs": {"json": json.dumps(PERSON)}})
    check_json(r.choices[0].message.content, PERSON)


def test_structured_outputs_regex(client, bias):
    pattern = r"(ab|cd){1,3}-[0-9]{2}[A-Z]?"
    for seed in range(4):
        r = chat(client, bias, seed=seed, max_tokens=40, extra_body={"structured_outputs": {"regex": pattern}})
        text = r.choices[0].message.content
        assert r.choices[0].finish_reason == "stop"
        assert re.fullmatch(pattern, text), text


def test_structured_outputs_choice(client, bias):
    choices = ["Positive", "Negative", "Neutral ☺", "a\"b"]
    seen = set()
    for seed in range(12):  # flat sampling: the random model strongly prefers one first token
        r = chat(client, {}, seed=seed, max_tokens=20, temperature=2.0, top_p=1.0,
                 extra_body={"structured_outputs": {"choice": choices}, "top_k": -1})
        assert r.choices[0].finish_reason == "stop"
        assert r.choices[0].message.content in choices
        seen.add(r.choices[0].message.content)
    assert len(seen) >= 2  # really sampled, not one fixed answer


GRAMMAR = r'''
root ::= greeting " " name ("!" | ".")
greeting ::= "hello" | "hi" | "hey"
name ::= [A-Z] [a-z]{1,6}
'''


def test_structured_outputs_grammar(client, bias):
    for seed in range(4):
        r = chat(client, bias, seed=seed, max_tokens=30, extra_body={"structured_outputs": {"grammar": GRAMMAR}})
        assert r.choices[0].finish_reason == "stop"
        assert re.fullmatch(r"(hello|hi|hey) [A-Z][a-z]{1,6}[!.]", r.choices[0].message.content)


def test_legacy_guided_aliases(client, bias):
    r = chat(client, bias, extra_body={"guided_json": PERSON})
    check_json(r.choices[0].message.content, PERSON)
    r = chat(client, bias, max_tokens=20, extra_body={"guided_regex": r"[0-9]{3}"})
    assert re.fullmatch(r"[0-9]{3}", r.choices[0].message.content)
    r = chat(client, bias, max_tokens=20, extra_body={"guided_choice": ["yes", "no"]})
    assert r.choices[0].message.content in ("yes", "no")
    r = chat(client, bias, max_tokens=30, extra_body={"guided_grammar": GRAMMAR})
    assert re.fullmatch(r"(hello|hi|hey) [A-Z][a-z]{1,6}[!.]", r.choices[0].message.content)


def test_completions_structured(client, bias):
    c = client.completions.create(model=MODEL, prompt="The answer:", max_tokens=200, seed=3, logit_bias=bias,
                                  extra_body={"structured_outputs": {"json": PERSON}})
    assert c.choices[0].finish_reason == "stop"
    check_json(c.choices[0].text, PERSON)
    c = client.completions.create(model=MODEL, prompt="Pick:", max_tokens=10, extra_body={"guided_choice": ["x", "y"]})
    assert c.choices[0].text in ("x", "y")


def test_n_choices_each_constrained(client, bias):
    r = chat(client, bias, n=3, extra_body={"structured_outputs": {"json": PERSON}})
    assert len(r.choices) == 3
    for c in r.choices:
        assert c.finish_reason == "stop"
        check_json(c.message.content, PERSON)


@pytest.mark.parametrize("extra,message", [
    ({"response_format": {"type": "json_schema"}},
     "When response_format type is 'json_schema', 'json_schema' must be provided."),
    ({"response_format": {"type": "yaml"}},
     'response_format.type: must be one of text, json_object, json_schema, got "yaml"'),
    ({"structured_outputs": {"json": {"type": "object"}, "regex": "a"}},
     "You can only use one kind of constraints for structured outputs ('json', 'regex' or 'choice')."),
    ({"structured_outputs": {"choice": []}}, "structured_outputs.choice: must be a non-empty array of strings"),
    ({"structured_outputs": {"json": {"type": "integer", "minimum": "3"}}},
     'json_schema: at /minimum: must be a number, got "3"'),
    ({"structured_outputs": {"json": {"properties": {"a": {"not": {}}}}}},
     "json_schema: at /properties/a: keyword 'not' is not supported"),
    ({"structured_outputs": {"json": {"$ref": "#/$defs/missing"}}},
     'json_schema: at /: $ref "#/$defs/missing" does not resolve'),
    ({"structured_outputs": {"json": "{"}}, "the string is not valid JSON"),
    ({"structured_outputs": {"regex": "ab)"}}, "regex: at offset 2: unbalanced ')'"),
    ({"structured_outputs": {"regex": "(a)\\1"}}, "regex: at offset 3: a backreference is not supported"),
    ({"structured_outputs": {"grammar": "root ::= valu\nvalue ::= \"x\""}},
     "grammar: line 1 col 10: undefined rule 'valu'"),
    ({"structured_outputs": {"grammar": "foo ::= \"x\""}}, "grammar: line 1 col 12: no rule named 'root'"),
    ({"guided_regex": "(x"}, "regex:"),
    ({"structured_outputs": {"structural_tag": {}}}, "structural_tag"),
])
def test_invalid_constraints_are_400(client, extra, message):
    for create in (lambda: client.chat.completions.create(model=MODEL, messages=MSG, max_tokens=5, extra_body=extra),
                   lambda: client.completions.create(model=MODEL, prompt="x", max_tokens=5, extra_body=extra)):
        with pytest.raises(openai.BadRequestError) as e:
            create()
        assert e.value.status_code == 400
        assert message in e.value.message, e.value.message


def test_server_still_healthy_after_errors(client, bias):
    r = chat(client, bias, max_tokens=20, extra_body={"structured_outputs": {"regex": "[a-c]{4}"}})
    assert re.fullmatch("[a-c]{4}", r.choices[0].message.content)


# Thinking: the bias makes <channel|> the model's first choice wherever the mask allows it.
THINK_BIAS_ID = str(CHANNEL_END)


def test_thinking_on_constraint_starts_after_the_channel(client, bias):
    """enable_thinking: the prompt ends `<|turn>model\\n` (reasoning not ended), so the first token
    is free: the biased <channel|> is sampled, ends the reasoning, and the JSON follows."""
    b = dict(bias, **{THINK_BIAS_ID: 100})
    for stream in (False, True):
        kw = dict(max_tokens=300, seed=1, extra_body={"structured_outputs": {"json": PERSON},
                                                      "chat_template_kwargs": {"enable_thinking": True},
                                                      "return_token_ids": True})
        if not stream:
            r = chat(client, b, **kw)
            ids = r.choices[0].model_extra["token_ids"]
            assert ids[0] == CHANNEL_END, ids[:5]
            assert CHANNEL_END not in ids[1:]
            assert r.choices[0].finish_reason == "stop"
            check_json(r.choices[0].message.content, PERSON)
        else:
            content, _, finish = stream_text(client, b, **kw)
            assert finish == "stop"
            check_json(content, PERSON)


def test_thinking_off_constraint_from_the_first_token(client, bias):
    """Thinking off: the prompt already closed the channel; <channel|> is masked from token 0."""
    b = dict(bias, **{THINK_BIAS_ID: 100, str(CHANNEL_START): 100})
    r = chat(client, b, max_tokens=300, seed=1, extra_body={"structured_outputs": {"json": PERSON},
                                                            "return_token_ids": True})
    ids = r.choices[0].model_extra["token_ids"]
    assert CHANNEL_END not in ids and CHANNEL_START not in ids
    assert r.choices[0].finish_reason == "stop"
    check_json(r.choices[0].message.content, PERSON)


def test_enable_in_reasoning_constrains_thinking_too():
    """--structured-outputs-config enable_in_reasoning: even with thinking on, token 0 is JSON."""
    with e2e.Server([MODEL] + e2e.TOOL_FLAGS + ["--structured-outputs-config", '{"backend": "xgrammar", '
                                                '"enable_in_reasoning": true}'], name="so-in-reasoning") as s:
        client = s.client()
        b = dict(su.termination_bias(s), **{THINK_BIAS_ID: 100, str(CHANNEL_START): 100})
        r = chat(client, b, max_tokens=300, seed=1,
                 extra_body={"structured_outputs": {"json": PERSON}, "return_token_ids": True,
                             "chat_template_kwargs": {"enable_thinking": True}})
        ids = r.choices[0].model_extra["token_ids"]
        assert CHANNEL_END not in ids and CHANNEL_START not in ids
        check_json(r.choices[0].message.content, PERSON)


def test_schema_without_additional_properties_is_closed(tmp_path):
    """vLLM's default backend (auto -> xgrammar) compiles schemas strictly: an object that does not
    say `additionalProperties` takes no other keys, so a Pydantic model's schema never gets extra
    keys. The model is scripted (gemmad-testing) to add one; the guidance backend, which follows
    JSON Schema, lets it through, which shows the script would have added it."""
    import pydantic

    class Pet(pydantic.BaseModel):
        name: str
        age: int

    schema = Pet.model_json_schema()
    assert "additionalProperties" not in schema
    got = {}
    for backend in ("auto", "guidance"):
        path = tmp_path / f"script-{backend}.jsonl"
        path.write_text("")
        with e2e.Server([MODEL, "--structured-outputs-config", json.dumps({"backend": backend})],
                        env={"GEMMAD_TEST_SCRIPTED_OUTPUT": str(path)}, bin=e2e.TESTING_BIN,
                        name="so-closed") as s:
            s.script_path = str(path)
            e2e.script_output(s, {"model": MODEL, "messages": MSG}, '{"name": "Rex", "age": 3, "owner": "Ann"}<turn|>')
            r = chat(s.client(), su.termination_bias(s), max_tokens=60, temperature=0,
                     response_format={"type": "json_schema", "json_schema": {"name": "Pet", "schema": schema}})
            got[backend] = json.loads(r.choices[0].message.content)
    assert got["auto"] == {"name": "Rex", "age": 3}
    assert Pet.model_validate(got["auto"])
    assert got["guidance"] == {"name": "Rex", "age": 3, "owner": "Ann"}


def test_bad_structured_outputs_config_fails_startup():
    s = e2e.Server([MODEL, "--structured-outputs-config", '{"backend": "magic"}'], name="so-bad-config")
    with pytest.raises(RuntimeError) as e:
        s.start()
    assert "exited with 2" in str(e.value)
    assert "backend" in str(e.value)
    # vLLM's validator: disable_additional_properties only with the guidance backend.
    s = e2e.Server([MODEL, "--structured-outputs-config", '{"disable_additional_properties": true}'],
                   name="so-bad-config")
    with pytest.raises(RuntimeError) as e:
        s.start()
    assert "exited with 2" in str(e.value)
    assert "disable_additional_properties is only supported for the guidance backend." in str(e.value)


def test_generated_schemas(server, capsys):
    """All 320 schemas of the corpus (every keyword covered, printed as a table): finish_reason
    "stop" and a jsonschema-valid output each (about a minute on 2 cores, 8 requests at a time)."""
    entries = su.load_schemas()
    assert len(entries) >= 300
    failures = su.run_schemas(server, entries)
    with capsys.disabled():  # shown in the ctest log even when the test passes
        su.print_coverage(su.coverage(entries), len(entries))
        print(f"{len(entries) - len(failures)} of {len(entries)} schemas: stop + valid")
    assert not failures, f"{len(failures)} of {len(entries)} schemas failed:\n" + "\n".join(failures)
