"""Audio through the OpenAI chat API (issue 21): the request forms vLLM accepts for Gemma 4
E2B/E4B (audio_url with data:, file:// and http(s) URLs, input_audio with base64 data and a
format), decoding of WAV, FLAC, OGG/Vorbis, Opus and MP3 with mono downmix and resampling to
16 kHz, the placeholder expansion <|audio> + M x <|audio|> + <audio|> with M as vLLM counts it,
clips over 30 s (vLLM's warning, 750 tokens), the audio tower's output reaching the model (and the
prefix cache keyed by the clip), audio with an image, and the limits: --limit-mm-per-prompt,
--language-model-only, a checkpoint without an audio tower (vLLM's error), and bad, empty,
truncated, too short or oversized audio — each a 400 naming the part, never a crash.

Clips are generated here (numpy sines, stdlib WAV, the ffmpeg CLI) and served locally."""
import base64
import json
import os
import shutil

import openai
import pytest

import gemmad_e2e as e2e
import media_util as mu

MODEL = e2e.DEFAULT_REPO
MAX_LEN = 4096
MEDIA_DIR = os.path.join(e2e.WORK, "audio_allowed")

CLIP_2S = mu.tone(2.0, seed=1)                              # 16 kHz mono: 32000 samples, 50 tokens
CLIP_B = mu.tone(2.0, seed=2)
STEREO_44K = mu.tone(1.5, rate=44100, channels=2, seed=3)   # resampled: ceil(66150 * 16000 / 44100) samples
WAV_2S = mu.wav(CLIP_2S)
PNG = mu.encode(mu.picture(96, 64, seed=4), "PNG")


def audio_url(url):
    return {"type": "audio_url", "audio_url": {"url": url}}


def input_audio(data, fmt):
    return {"type": "input_audio", "input_audio": {"data": base64.b64encode(data).decode(), "format": fmt}}


def text(t):
    return {"type": "text", "text": t}


def user(*parts):
    return [{"role": "user", "content": list(parts)}]


@pytest.fixture(scope="module")
def media():
    with mu.MediaServer({"/a.wav": (WAV_2S, "audio/wav"), "/cut.wav": (WAV_2S[:30], "audio/wav")}) as m:
        yield m


@pytest.fixture(scope="module")
def server():
    os.makedirs(MEDIA_DIR, exist_ok=True)
    args = [MODEL] + e2e.TOOL_FLAGS + ["--max-model-len", str(MAX_LEN), "--allowed-local-media-path", MEDIA_DIR,
                                       "--allow-private-media-addresses", "--max-media-bytes", "3000000",
                                       "--limit-mm-per-prompt", '{"image": 2, "audio": 2}']
    yield from e2e.module_server(args, "audio")


@pytest.fixture(scope="module")
def client(server):
    return server.client(max_retries=0)


def tokenize(server, messages):
    status, _, raw = e2e.http("POST", server.base_url + "/tokenize", {"model": MODEL, "messages": messages})
    assert status == 200, raw
    return json.loads(raw)["tokens"]


def bad_request(client, messages):
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model=MODEL, messages=messages, max_tokens=2)
    return e.value.body


def test_wav_data_url_expands_to_vllms_token_count_and_answers(server, client):
    msgs = user(audio_url(mu.data_url(WAV_2S, "audio/wav")), text("Transcribe this audio."))
    ids = tokenize(server, msgs)
    m = mu.audio_soft_tokens(32000)
    assert m == 50 and mu.runs(ids, mu.AUDIO_TOKEN) == [m]
    k = ids.index(mu.AUDIO_TOKEN)
    assert ids[k - 1] == mu.BOA and ids[k + m] == mu.EOA
    assert len(ids) == len(tokenize(server, user(text("Transcribe this audio.")))) + m + 2
    r = client.chat.completions.create(model=MODEL, messages=msgs, max_tokens=4)
    assert r.usage.prompt_tokens == len(ids)
    assert r.choices[0].finish_reason in ("stop", "length")


@pytest.mark.parametrize("fmt", ["wav", "flac", "ogg", "opus", "mp3"])
def test_every_format_as_input_audio(server, fmt):
    data = WAV_2S if fmt == "wav" else mu.encode_audio(CLIP_2S, 16000, fmt)
    ids = tokenize(server, user(input_audio(data, fmt), text("What is it?")))
    (m,) = mu.runs(ids, mu.AUDIO_TOKEN)
    # Lossy codecs may keep some encoder padding (libsndfile, like soundfile in vLLM, decodes MP3
    # without gapless trimming: up to ~100 ms more here).
    assert 50 <= m <= 53 if fmt in ("mp3", "ogg", "opus") else m == 50, (fmt, m)


def test_stereo_44k_is_downmixed_and_resampled(server):
    ids = tokenize(server, user(audio_url(mu.data_url(mu.wav(STEREO_44K, 44100), "audio/wav"))))
    n16 = mu.resampled_length(STEREO_44K.shape[0], 44100)
    assert mu.runs(ids, mu.AUDIO_TOKEN) == [mu.audio_soft_tokens(n16)] == [38]


def test_http_and_file_urls(server, client, media):
    assert mu.runs(tokenize(server, user(audio_url(media.url("/a.wav")))), mu.AUDIO_TOKEN) == [50]
    inside = os.path.join(MEDIA_DIR, "a.wav")
    with open(inside, "wb") as f:
        f.write(WAV_2S)
    assert mu.runs(tokenize(server, user(audio_url("file://" + inside))), mu.AUDIO_TOKEN) == [50]
    outside = os.path.join(e2e.WORK, "outside.wav")
    with open(outside, "wb") as f:
        f.write(WAV_2S)
    body = bad_request(client, user(text("x"), audio_url("file://" + outside)))
    assert body["message"].startswith("messages[0].content[1]: cannot load the audio"), body
    assert e2e.WORK not in body["message"]


def test_audio_content_reaches_the_model_and_keys_the_prefix_cache(client):
    def top(clip):
        r = client.chat.completions.create(model=MODEL, messages=user(input_audio(mu.wav(clip), "wav"), text("Hi")),
                                           max_tokens=1, temperature=0, logprobs=True, top_logprobs=5)
        return [(t.token, round(t.logprob, 4)) for t in r.choices[0].logprobs.content[0].top_logprobs]
    a1, b, a2 = top(CLIP_2S), top(CLIP_B), top(CLIP_2S)
    assert a1 == a2  # the second one is served from the prefix cache, and equals the first
    assert a1 != b   # a different clip with the same text is a different prompt


def test_audio_with_an_image_and_two_clips(server, client):
    picture = {"type": "image_url", "image_url": {"url": mu.data_url(PNG, "image/png")}}
    msgs = user(picture, input_audio(WAV_2S, "wav"), text("and"), audio_url(mu.data_url(mu.wav(CLIP_B), "audio/wav")))
    ids = tokenize(server, msgs)
    assert mu.runs(ids, mu.AUDIO_TOKEN) == [50, 50]
    assert mu.runs(ids, mu.IMAGE_TOKEN) == [mu.soft_tokens(64, 96)]
    assert ids.index(mu.IMAGE_TOKEN) < ids.index(mu.AUDIO_TOKEN)
    r = client.chat.completions.create(model=MODEL, messages=msgs, max_tokens=3)
    assert r.usage.prompt_tokens == len(ids)


def test_long_clip_is_truncated_to_30_s_with_vllms_warning(server):
    long = mu.tone(31.0, seed=6)
    ids = tokenize(server, user(input_audio(mu.wav(long), "wav")))
    assert mu.runs(ids, mu.AUDIO_TOKEN) == [750]
    assert "Audio duration exceeds max: 31.000000 > 30.000000 seconds" in server.log()


def test_per_prompt_limit_is_vllms_400(client):
    clip = input_audio(WAV_2S, "wav")
    body = bad_request(client, user(clip, clip, clip))
    assert body["message"] == "At most 2 audio(s) may be provided in one prompt.", body


@pytest.mark.parametrize("case,needle", [
    ("garbage", "cannot load the audio"),
    ("empty", "cannot load the audio"),
    ("short", "no complete 20 ms frame"),
    ("truncated_http", "cannot load the audio"),
    ("not_base64", "not valid base64"),
    ("big", "3000000"),
])
def test_bad_audio_is_a_400_naming_the_part(server, client, media, case, needle):
    part = {"garbage": input_audio(b"this is not audio at all, not even close" * 4, "wav"),
            "empty": input_audio(b"", "wav"),
            "short": input_audio(mu.wav(mu.tone(0.005, seed=1)), "wav"),
            "truncated_http": audio_url(media.url("/cut.wav")),
            "not_base64": {"type": "input_audio", "input_audio": {"data": "%%%not base64%%%", "format": "wav"}},
            "big": input_audio(b"\0" * 3100000, "wav")}[case]
    body = bad_request(client, user(part))
    assert needle in body["message"], body
    assert body["message"].startswith("messages[0].content[0]"), body
    e2e.assert_still_serving(server)


def test_language_model_only_refuses_audio_with_vllms_text():
    with e2e.Server([MODEL, "--max-model-len", "2048", "--language-model-only"], name="audio-lmo") as s:
        body = bad_request(s.client(max_retries=0), user(input_audio(WAV_2S, "wav")))
        assert body["message"] == "At most 0 audio(s) may be provided in one prompt.", body


def test_checkpoint_without_an_audio_tower_is_vllms_400(tmp_path):
    src = e2e.model_dir()
    dst = tmp_path / "no_audio"
    dst.mkdir()
    for name in os.listdir(src):
        if name == "config.json":
            continue
        path = os.path.join(src, name)
        if os.path.isfile(path):
            os.link(path, dst / name)
    with open(os.path.join(src, "config.json")) as f:
        cfg = json.load(f)
    assert cfg.get("audio_config"), "the e2e test model has an audio tower"
    cfg["audio_config"] = None
    (dst / "config.json").write_text(json.dumps(cfg))
    with e2e.Server([str(dst), "--served-model-name", "my-31b", "--max-model-len", "2048"], name="audio-none") as s:
        c = s.client(max_retries=0)
        with pytest.raises(openai.BadRequestError) as e:
            c.chat.completions.create(model="my-31b", messages=user(input_audio(WAV_2S, "wav")), max_tokens=2)
        assert e.value.body["message"] == (
            "Audio input was provided but the model 'my-31b' does not have an audio tower. Audio inference is only "
            "supported for Gemma4 models that include an audio_config (i.e., models that include an audio_config).")
        # Images still work on it.
        r = c.chat.completions.create(model="my-31b", max_tokens=2, messages=user(
            {"type": "image_url", "image_url": {"url": mu.data_url(PNG, "image/png")}}))
        assert r.choices[0].finish_reason in ("stop", "length")
    shutil.rmtree(dst, ignore_errors=True)
