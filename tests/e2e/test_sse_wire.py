"""Raw SSE bytes as curl sees them (`curl -sN`), compared structurally with vLLM's framing
(shared/spec/api.md §4.4, §4.6, §5): `data: <compact json>\\n\\n` events only, a final
`data: [DONE]\\n\\n`, content type text/event-stream, the chunk fields and key order vLLM
serialises (role chunk first, explicitly-set fields only, usage chunk with `choices: []`)."""
import json
import subprocess

import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO


def curl_stream(server, path, body):
    """(status, headers {lower: value}, raw body bytes) of one streamed request."""
    out = subprocess.run(["curl", "-sN", "-i", "-X", "POST", server.base_url + path,
                          "-H", "Content-Type: application/json", "--data-binary", json.dumps(body)],
                         check=True, capture_output=True, timeout=60).stdout
    head, sep, raw = out.partition(b"\r\n\r\n")
    assert sep, out[:200]
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, raw


def events(raw):
    """The JSON payloads of every event; checks the framing byte by byte."""
    assert raw.endswith(b"data: [DONE]\n\n"), raw[-80:]
    parts = raw.split(b"\n\n")
    assert parts[-1] == b""  # nothing after the last blank line
    parts = parts[:-1]
    assert parts[-1] == b"data: [DONE]"
    out = []
    for p in parts[:-1]:
        assert p.startswith(b"data: "), p[:80]  # no event:, id:, retry: or comment lines
        assert b"\n" not in p, p[:80]  # one line per event
        text = p[len(b"data: "):].decode()
        doc = json.loads(text)
        # Compact JSON, as pydantic's model_dump_json writes it.
        assert text == json.dumps(doc, separators=(",", ":"), ensure_ascii=False), text
        out.append(doc)
    return out


def chat_body(**kw):
    body = {"model": MODEL, "messages": [{"role": "user", "content": "Hello"},
                                         {"role": "assistant", "content": "Sure, here it is"}],
            "add_generation_prompt": False, "continue_final_message": True,
            "max_tokens": 5, "temperature": 0, "stream": True}
    body.update(kw)
    return body


def test_chat_stream_framing(server):
    status, headers, raw = curl_stream(server, "/v1/chat/completions",
                                       chat_body(stream_options={"include_usage": True}))
    assert status == 200
    assert headers["content-type"].split(";")[0] == "text/event-stream"
    evs = events(raw)
    first, *middle, last_choice, usage = evs
    for ev in evs:
        assert ev["object"] == "chat.completion.chunk"
        assert ev["id"] == first["id"] and ev["id"].startswith("chatcmpl-")
        assert ev["created"] == first["created"] and ev["model"] == MODEL
    # Role chunk: id, object, created, model, choices, prompt_token_ids; choice without token_ids.
    assert list(first) == ["id", "object", "created", "model", "choices", "prompt_token_ids"]
    assert first["prompt_token_ids"] is None
    assert first["choices"] == [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                 "logprobs": None, "finish_reason": None}]
    assert list(first["choices"][0]) == ["index", "delta", "logprobs", "finish_reason"]
    # Content chunks: exactly the explicitly set fields.
    text = ""
    for ev in middle:
        assert list(ev) == ["id", "object", "created", "model", "choices"]
        (ch,) = ev["choices"]
        assert list(ch) == ["index", "delta", "logprobs", "finish_reason", "token_ids"]
        assert ch["finish_reason"] is None and ch["logprobs"] is None and ch["token_ids"] is None
        assert list(ch["delta"]) == ["content"]
        text += ch["delta"]["content"]
    # (A slow reader may get several steps' deltas coalesced into one chunk, as vLLM's output
    # collector merges them too: under load all of them can arrive with the final chunk.)
    # Final chunk of the choice: finish_reason, then stop_reason.
    (ch,) = last_choice["choices"]
    assert list(ch) == ["index", "delta", "logprobs", "finish_reason", "stop_reason", "token_ids"]
    assert ch["finish_reason"] == "length" and ch["stop_reason"] is None
    text += ch["delta"].get("content", "")
    assert text, "no content in any chunk"
    assert "tool_calls" not in ch["delta"]
    # Usage chunk: choices [], nulls omitted, vLLM's key order.
    assert list(usage) == ["id", "object", "created", "model", "choices", "usage"]
    assert usage["choices"] == []
    assert list(usage["usage"]) == ["prompt_tokens", "total_tokens", "completion_tokens"]
    assert usage["usage"]["completion_tokens"] == 5
    assert usage["usage"]["total_tokens"] == usage["usage"]["prompt_tokens"] + 5
    # The same request without streaming gives the same text (greedy).
    body = chat_body(stream=False)
    status, _, raw = e2e.http("POST", server.base_url + "/v1/chat/completions", body)
    assert status == 200
    assert json.loads(raw)["choices"][0]["message"]["content"] == text


def test_chat_stream_without_usage(server):
    _, _, raw = curl_stream(server, "/v1/chat/completions", chat_body())
    evs = events(raw)
    assert all("usage" not in ev for ev in evs)
    assert evs[-1]["choices"][0]["finish_reason"] == "length"


def test_chat_stream_n2_and_ids(server):
    _, _, raw = curl_stream(server, "/v1/chat/completions",
                            chat_body(n=2, temperature=1.0, seed=7, return_token_ids=True,
                                      stream_options={"include_usage": True}))
    evs = events(raw)
    roles = [ev for ev in evs if ev["choices"] and "role" in ev["choices"][0]["delta"]]
    assert sorted(ev["choices"][0]["index"] for ev in roles) == [0, 1]
    for ev in roles:
        assert isinstance(ev["prompt_token_ids"], list) and ev["prompt_token_ids"][0] == 2
    finals = {}
    ids = {0: [], 1: []}
    for ev in evs:
        for ch in ev["choices"]:
            if "role" in ch["delta"]:
                continue
            ids[ch["index"]] += ch["token_ids"] or []
            if ch["finish_reason"]:
                finals[ch["index"]] = ch
    assert set(finals) == {0, 1}
    assert all(len(ids[i]) == 5 for i in (0, 1))
    assert evs[-1]["usage"]["completion_tokens"] == 10  # summed over choices


def test_chat_stream_logprobs(server):
    _, _, raw = curl_stream(server, "/v1/chat/completions", chat_body(logprobs=True, top_logprobs=2))
    evs = events(raw)
    n = 0
    for ev in evs[1:]:
        ch = ev["choices"][0]
        if ch["logprobs"] is not None:
            for entry in ch["logprobs"]["content"]:
                assert list(entry) == ["token", "logprob", "bytes", "top_logprobs"]
                assert len(entry["top_logprobs"]) == 2
                n += 1
    assert n == 5


def test_completion_stream_framing(server):
    body = {"model": MODEL, "prompt": "Stream this please", "max_tokens": 4, "temperature": 0, "stream": True,
            "stream_options": {"include_usage": True}}
    status, headers, raw = curl_stream(server, "/v1/completions", body)
    assert status == 200 and headers["content-type"].split(";")[0] == "text/event-stream"
    evs = events(raw)
    *chunks, usage = evs
    text = ""
    for i, ev in enumerate(chunks):
        assert list(ev) == ["id", "object", "created", "model", "choices"]
        assert ev["object"] == "text_completion" and ev["id"].startswith("cmpl-") and ev["id"] == evs[0]["id"]
        (ch,) = ev["choices"]
        assert list(ch) == ["index", "text", "logprobs", "finish_reason", "stop_reason", "prompt_token_ids",
                            "token_ids"]
        assert (ch["finish_reason"] is not None) == (i == len(chunks) - 1)  # no role chunk; last has finish
        text += ch["text"]
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"
    assert usage["choices"] == [] and list(usage["usage"]) == ["prompt_tokens", "total_tokens", "completion_tokens"]
    status, _, raw = e2e.http("POST", server.base_url + "/v1/completions", dict(body, stream=False,
                                                                                 stream_options=None))
    assert json.loads(raw)["choices"][0]["text"] == text


def test_stream_error_before_start_is_plain_json(server):
    status, headers, raw = curl_stream(server, "/v1/chat/completions", chat_body(temperature=-1))
    assert status == 400
    assert headers["content-type"].startswith("application/json")
    assert json.loads(raw)["error"]["param"] == "temperature"


def test_non_stream_is_one_json(server):
    out = subprocess.run(["curl", "-s", "-X", "POST", server.base_url + "/v1/chat/completions",
                          "-H", "Content-Type: application/json", "--data-binary",
                          json.dumps(chat_body(stream=False))], check=True, capture_output=True).stdout
    doc = json.loads(out)
    assert not out.startswith(b"data:")
    assert list(doc) == ["id", "object", "created", "model", "choices", "service_tier", "system_fingerprint",
                         "usage", "prompt_logprobs", "prompt_token_ids", "kv_transfer_params"]
    assert list(doc["choices"][0]["message"]) == ["role", "content", "refusal", "annotations", "audio",
                                                  "function_call", "tool_calls", "reasoning"]
    assert list(doc["usage"]) == ["prompt_tokens", "total_tokens", "completion_tokens", "prompt_tokens_details"]
