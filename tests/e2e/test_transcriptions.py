"""POST /v1/audio/transcriptions and /v1/audio/translations (issue 21): OpenAI's multipart form
through the official `openai` client (json, text, verbose_json, srt, vtt), vLLM's SSE stream,
Gemma 4's own transcription prompt (the greedy answer equals the chat route's for the same audio
and instruction), and the errors: no file, undecodable audio (a 400 naming the file), an unknown
language, a model that is not served, a malformed form. The e2e model is random: the tests
check shapes and consistency, never words.

WAV clips are made here with the standard library."""
import io
import json
import math
import os
import struct
import wave

import openai
import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
MAX_TOKENS = 8

RULES = ("\n\nFollow these specific instructions for formatting the answer:\n"
         "* Only output the transcription, with no newlines.\n"
         "* When transcribing numbers, write the digits, i.e. write 1.7 and not one point seven, and write 3 "
         "instead of three.")


def wav_bytes(seconds=1.0, rate=16000, hz=440.0):
    """A mono 16-bit PCM WAV of a sine tone."""
    n = int(round(seconds * rate))
    frames = b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * hz * i / rate))) for i in range(n))
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)
    return out.getvalue()


CLIP = wav_bytes(1.0)


@pytest.fixture(scope="module")
def server():
    # No tool-call or reasoning parser: the chat route's content is then the raw text, which the
    # audio routes return too.
    yield from e2e.module_server([MODEL, "--max-model-len", "4096"], "transcriptions")


@pytest.fixture(scope="module")
def client(server):
    return server.client(max_retries=0)


def transcribe(client, **kw):
    kw.setdefault("model", MODEL)
    kw.setdefault("file", ("clip.wav", CLIP, "audio/wav"))
    kw.setdefault("extra_body", {"max_completion_tokens": MAX_TOKENS})
    return client.audio.transcriptions.create(**kw)


def chat_text(client, instruction, clip=CLIP):
    import base64
    r = client.chat.completions.create(
        model=MODEL, max_tokens=MAX_TOKENS, temperature=0,
        messages=[{"role": "user", "content": [
            {"type": "input_audio", "input_audio": {"data": base64.b64encode(clip).decode(), "format": "wav"}},
            {"type": "text", "text": instruction}]}],
        extra_body={"chat_template_kwargs": {"enable_thinking": False}})
    return r.choices[0].message.content or ""


class FormResponse:
    """What the tests read of a response: status_code, text, json(), lower-cased headers."""

    def __init__(self, status, headers, body):
        self.status_code = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.text = body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.text)


def post_form(server, path, fields, files=None, timeout=120):
    """A multipart/form-data POST (standard library): `fields` {name: str}, `files` {name: (filename,
    bytes, content type)}."""
    boundary = "gemmad-e2e-" + os.urandom(8).hex()
    out = bytearray()
    for name, value in fields.items():
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
    for name, (filename, data, ctype) in (files or {}).items():
        out += (f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                f"Content-Type: {ctype}\r\n\r\n").encode() + data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    status, headers, body = e2e.http("POST", server.base_url + path, bytes(out),
                                     {"Content-Type": f"multipart/form-data; boundary={boundary}"}, timeout=timeout)
    return FormResponse(status, headers, body)


def test_json_is_vllms_shape_and_equals_the_chat_answer(server, client):
    r = post_form(server, "/v1/audio/transcriptions", {"model": MODEL, "max_completion_tokens": str(MAX_TOKENS)},
                  {"file": ("clip.wav", CLIP, "audio/wav")})
    assert r.status_code == 200, r.text
    body = r.json()
    assert list(body) == ["text", "usage"]
    assert body["usage"] == {"type": "duration", "seconds": 1}
    instruction = "Transcribe the following speech segment into text." + RULES
    assert body["text"] == chat_text(client, instruction)
    # The official client reads the same answer.
    assert transcribe(client).text == body["text"]


def test_language_and_prompt_shape_the_instruction(client):
    got = transcribe(client, language="fr", prompt="Names: Ada.").text
    instruction = "Transcribe the following speech segment in French into French text." + RULES + "\n\nContext: Names: Ada."
    assert got == chat_text(client, instruction)


def test_text_srt_vtt_carry_the_json_text(client):
    text = transcribe(client).text
    assert transcribe(client, response_format="text") == text
    srt = transcribe(client, response_format="srt")
    assert srt.startswith("1\n00:00:00,000 --> 00:00:01,000\n")
    assert text in srt
    vtt = transcribe(client, response_format="vtt")
    assert vtt.startswith("WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n")
    assert text in vtt


def test_verbose_json_as_openai_documents_it(server, client):
    text = transcribe(client, language="en").text
    r = post_form(server, "/v1/audio/transcriptions",
                  {"model": MODEL, "language": "en", "response_format": "verbose_json",
                   "max_completion_tokens": str(MAX_TOKENS), "timestamp_granularities[]": "segment"},
                  {"file": ("clip.wav", CLIP, "audio/wav")})
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["task"] == "transcribe" and v["language"] == "english" and v["text"] == text
    assert v["duration"] == pytest.approx(1.0)
    (seg,) = v["segments"]
    assert seg["start"] == 0 and seg["end"] == pytest.approx(1.0) and seg["text"] == text
    assert 0 < len(seg["tokens"]) <= MAX_TOKENS and seg["avg_logprob"] <= 0
    verbose = transcribe(client, language="en", response_format="verbose_json")
    assert verbose.text == text


def test_translation_returns_the_translation(client):
    instruction = ("Transcribe the following speech segment in German, then translate it into English.\n"
                   "When formatting the answer, first output the transcription in German, then one newline, then "
                   "output the string 'English: ', then the translation in English.")
    raw = chat_text(client, instruction)
    lines = raw.split("\n")
    expected = raw.strip(" \t\r\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("English: "):
            expected = "\n".join([lines[i][len("English: "):]] + lines[i + 1:]).strip(" \t\r\n")
            break
    got = client.audio.translations.create(model=MODEL, file=("clip.wav", CLIP, "audio/wav"),
                                           extra_body={"language": "de", "max_completion_tokens": MAX_TOKENS})
    assert got.text == expected


def sse_events(r):
    events = [line[len("data: "):] for line in r.text.split("\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    return [json.loads(e) for e in events[:-1]]


def test_stream_as_vllm_streams_transcriptions(server, client):
    text = transcribe(client).text
    r = post_form(server, "/v1/audio/transcriptions",
                  {"model": MODEL, "stream": "true", "stream_include_usage": "true",
                   "stream_continuous_usage_stats": "true", "max_completion_tokens": str(MAX_TOKENS)},
                  {"file": ("clip.wav", CLIP, "audio/wav")})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/event-stream")
    events = sse_events(r)
    *deltas, final = events
    assert deltas and all(e["object"] == "transcription.chunk" and e["id"].startswith("transcribe-") for e in deltas)
    assert "".join(e["choices"][0]["delta"]["content"] for e in deltas) == text
    assert deltas[-1]["choices"][0]["finish_reason"] in ("stop", "length")
    assert all("usage" in e for e in deltas)
    assert final["choices"] == [] and final["usage"]["completion_tokens"] == len(
        transcribe(client, response_format="verbose_json").segments[0].tokens)
    assert final["usage"]["total_tokens"] == final["usage"]["prompt_tokens"] + final["usage"]["completion_tokens"]


def test_translation_stream_chunks(server):
    r = post_form(server, "/v1/audio/translations", {"model": MODEL, "stream": "true",
                                                      "max_completion_tokens": str(MAX_TOKENS)},
                  {"file": ("clip.wav", CLIP, "audio/wav")})
    assert r.status_code == 200, r.text
    events = sse_events(r)
    assert events and all(e["object"] == "translation.chunk" for e in events)
    assert all("usage" not in e for e in events)


def error_of(r, status=400):
    assert r.status_code == status, r.text
    return r.json()["error"]


def test_errors(server, client):
    e = error_of(post_form(server, "/v1/audio/transcriptions", {"model": MODEL}))
    assert "file" in e["message"] and e["param"] == "file"
    with pytest.raises(openai.BadRequestError) as bad:
        transcribe(client, file=("broken.wav", b"RIFF\x10\x00\x00\x00WAVEjunk", "audio/wav"))
    assert "broken.wav" in bad.value.body["message"]
    with pytest.raises(openai.BadRequestError) as lang:
        transcribe(client, language="xx")
    assert lang.value.body["message"].startswith("Unsupported language: 'xx'.")
    with pytest.raises(openai.NotFoundError) as model:
        transcribe(client, model="not-served")
    assert model.value.body["message"] == "The model `not-served` does not exist."
    e = error_of(post_form(server, "/v1/audio/transcriptions",
                           {"model": MODEL, "stream": "true", "response_format": "srt"},
                           {"file": ("clip.wav", CLIP, "audio/wav")}))
    assert "doesn't support streaming" in e["message"]
    e = error_of(post_form(server, "/v1/audio/transcriptions", {"model": MODEL, "stream_include_usage": "true"},
                           {"file": ("clip.wav", CLIP, "audio/wav")}))
    assert "Stream options can only be defined when `stream=True`." in e["message"]


def test_malformed_forms_are_400s(server):
    url = server.base_url + "/v1/audio/transcriptions"
    cases = [
        ({"Content-Type": "application/json"}, b'{"model": "x"}'),
        ({"Content-Type": "multipart/form-data"}, b"--b\r\n\r\n--b--"),
        ({"Content-Type": "multipart/form-data; boundary=b"}, b"--b\r\nContent-Disposition: form-data; name=x\r\n\r\nv"),
        ({"Content-Type": "multipart/form-data; boundary=b"}, b"--b\r\nno-colon\r\n\r\nv\r\n--b--"),
    ]
    for headers, body in cases:
        status, _, raw = e2e.http("POST", url, body, headers)
        assert status == 400, raw
        assert json.loads(raw)["error"]["code"] == 400
    e2e.assert_still_serving(server)
