"""Images and videos through the OpenAI API (issue 20): the request forms vLLM accepts for
Gemma 4 (image_url with data:, file:// and http(s) URLs, several images per message and request,
video_url with a video file or a list of JPEG frames), the Gemma 4 placeholder expansion at every
budget (per request and per server), the encoder's output reaching the model (and the prefix
cache keyed by image content), and the limits: --limit-mm-per-prompt with vLLM's text,
--language-model-only, --allowed-local-media-path, --allowed-media-domains, private addresses,
size and time bounds, and undecodable media — each a 400 naming the part, never a crash.

Media are generated here (Pillow, the ffmpeg CLI) and served by a local HTTP server."""
import json
import os
import subprocess

import openai
import pytest

import gemmad_e2e as e2e
import media_util as mu

MODEL = e2e.DEFAULT_REPO
MAX_LEN = 8192
MEDIA_DIR = os.path.join(e2e.WORK, "media_allowed")


def _write(name, data):
    os.makedirs(MEDIA_DIR, exist_ok=True)
    path = os.path.join(MEDIA_DIR, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


PNG_480x640 = mu.encode(mu.picture(640, 480, seed=1), "PNG")
JPEG_A = mu.encode(mu.picture(224, 160, seed=2), "JPEG", quality=90)
JPEG_B = mu.encode(mu.picture(224, 160, seed=3), "JPEG", quality=90)


@pytest.fixture(scope="module")
def media():
    with mu.MediaServer({"/a.png": (PNG_480x640, "image/png"), "/b.jpg": (JPEG_B, "image/jpeg"),
                         "/bad.png": (PNG_480x640[:200], "image/png")}) as m:
        yield m


@pytest.fixture(scope="module")
def server():
    args = [MODEL] + e2e.TOOL_FLAGS + ["--max-model-len", str(MAX_LEN), "--allowed-local-media-path", MEDIA_DIR,
                                       "--allow-private-media-addresses", "--max-media-bytes", "4000000",
                                       "--limit-mm-per-prompt", '{"image": 3, "video": 1}']
    os.makedirs(MEDIA_DIR, exist_ok=True)
    yield from e2e.module_server(args, "images", env={"VLLM_IMAGE_FETCH_TIMEOUT": "2"})


@pytest.fixture(scope="module")
def client(server):
    return server.client(max_retries=0)


def user(*parts):
    return [{"role": "user", "content": list(parts)}]


def image(url):
    return {"type": "image_url", "image_url": {"url": url}}


def text(t):
    return {"type": "text", "text": t}


def tokenize(server, messages, **extra):
    status, _, raw = e2e.http("POST", server.base_url + "/tokenize", dict({"model": MODEL, "messages": messages}, **extra))
    assert status == 200, raw
    return json.loads(raw)["tokens"]


def bad_request(client, messages, **extra):
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model=MODEL, messages=messages, max_tokens=2, extra_body=extra or None)
    return e.value.body


def test_data_url_image_expands_to_its_soft_tokens_and_answers(server, client):
    msgs = user(image(mu.data_url(PNG_480x640, "image/png")), text("What is shown?"))
    ids = tokenize(server, msgs)
    assert mu.runs(ids, mu.IMAGE_TOKEN) == [mu.soft_tokens(480, 640)] == [266]
    k = ids.index(mu.IMAGE_TOKEN)
    assert ids[k - 1] == mu.BOI and ids[k + 266] == mu.EOI
    text_only = tokenize(server, user(text("What is shown?")))
    assert len(ids) == len(text_only) + 266 + 2
    r = client.chat.completions.create(model=MODEL, messages=msgs, max_tokens=4)
    assert r.usage.prompt_tokens == len(ids)
    assert r.choices[0].finish_reason in ("stop", "length")


@pytest.mark.parametrize("budget", [70, 140, 280, 560, 1120])
def test_every_budget_per_request(server, client, budget):
    msgs = user(text("Read it."), image(mu.data_url(PNG_480x640, "image/png")))
    kw = {"mm_processor_kwargs": {"max_soft_tokens": budget}}
    ids = tokenize(server, msgs, **kw)
    assert mu.runs(ids, mu.IMAGE_TOKEN) == [mu.soft_tokens(480, 640, budget)]
    nested = tokenize(server, msgs, mm_processor_kwargs={"images_kwargs": {"max_soft_tokens": budget}})
    assert nested == ids
    r = client.chat.completions.create(model=MODEL, messages=msgs, max_tokens=2, extra_body=kw)
    assert r.usage.prompt_tokens == len(ids)


def test_invalid_budget_is_vllms_400(client):
    body = bad_request(client, user(image(mu.data_url(JPEG_A, "image/jpeg"))), mm_processor_kwargs={"max_soft_tokens": 100})
    assert body["message"] == "Unsupported max_soft_tokens value: 100. Valid values are (70, 140, 280, 560, 1120)."


def test_several_images_per_message_and_request_in_order(server, media):
    msgs = user(image(mu.data_url(JPEG_A, "image/jpeg")), text("and"), image(media.url("/a.png")))
    msgs += [{"role": "assistant", "content": "Two."}, {"role": "user", "content": [image(media.url("/b.jpg"))]}]
    ids = tokenize(server, msgs)
    assert mu.runs(ids, mu.IMAGE_TOKEN) == [mu.soft_tokens(160, 224), 266, mu.soft_tokens(160, 224)]


def test_file_urls_only_under_the_allowed_path(server, client):
    inside = _write("cat.png", PNG_480x640)
    ids = tokenize(server, user(image("file://" + inside)))
    assert mu.runs(ids, mu.IMAGE_TOKEN) == [266]
    outside = os.path.join(e2e.WORK, "outside.png")
    with open(outside, "wb") as f:
        f.write(PNG_480x640)
    body = bad_request(client, user(text("x"), image("file://" + outside)))
    assert body["message"].startswith("messages[0].content[1]: cannot load the image")
    assert "allowed-local-media-path" in body["message"] and e2e.WORK not in body["message"]


def test_image_content_reaches_the_model_and_keys_the_prefix_cache(client):
    def top(img):
        r = client.chat.completions.create(model=MODEL, messages=user(image(mu.data_url(img, "image/jpeg")), text("Hi")),
                                           max_tokens=1, temperature=0, logprobs=True, top_logprobs=5)
        return [(t.token, round(t.logprob, 4)) for t in r.choices[0].logprobs.content[0].top_logprobs]
    a1, b, a2 = top(JPEG_A), top(JPEG_B), top(JPEG_A)
    assert a1 == a2  # the second one is served from the prefix cache, and equals the first
    assert a1 != b   # a different picture with the same text is a different prompt


def test_video_file_and_frame_list(server, media):
    mp4 = mu.make_video(os.path.join(e2e.WORK, "clip.mp4"), w=64, h=48, frames=40, fps=10)
    ids = tokenize(server, user({"type": "video_url", "video_url": {"url": mu.data_url(mp4, "video/mp4")}}, text("?")))
    n = mu.soft_tokens(48, 64, 70)
    assert mu.runs(ids, mu.VIDEO_TOKEN) == [n] * 32
    video = user({"type": "video_url", "video_url": {"url": mu.data_url(mp4, "video/mp4")}})
    assert mu.runs(tokenize(server, video, media_io_kwargs={"video": {"num_frames": 8}}), mu.VIDEO_TOKEN) == [n] * 8
    status, _, raw = e2e.http("POST", server.base_url + "/tokenize",
                              {"model": MODEL, "messages": video, "media_io_kwargs": {"video": {"num_frames": 0}}})
    assert status == 400 and b"num_frames must be an integer from 1 to 128" in raw, raw
    status, _, raw = e2e.http("POST", server.base_url + "/detokenize", {"model": MODEL, "tokens": ids})
    prompt = json.loads(raw)["prompt"]
    assert "00:00 <|image>" in prompt and "<image|> 00:03 <|image>" in prompt
    frames = ",".join(mu.data_url(mu.encode(mu.picture(64, 48, seed=s), "JPEG"), "x").split(",")[1] for s in range(3))
    ids = tokenize(server, user({"type": "video_url", "video_url": {"url": "data:video/jpeg;base64," + frames}}))
    assert mu.runs(ids, mu.VIDEO_TOKEN) == [n] * 3


def test_per_prompt_limit_is_vllms_400(client):
    url = mu.data_url(JPEG_A, "image/jpeg")
    body = bad_request(client, user(*[image(url)] * 4))
    assert body["message"] == "At most 3 image(s) may be provided in one prompt."


@pytest.mark.parametrize("case,needle", [
    ("garbage", "unsupported format"),
    ("truncated", "messages[0].content[0]: cannot load the image"),
    ("slow", "timed out"),
    ("big", "larger than 4000000 bytes"),
    ("redirect_bad_scheme", "messages[0].content[0]: cannot load the image"),
    ("ftp", "The URL must be either a HTTP, data or file URL."),
])
def test_bad_media_is_a_400_naming_the_part(server, client, media, case, needle):
    url = {"garbage": mu.data_url(b"not an image at all", "image/png"),
           "truncated": media.url("/bad.png"),
           "slow": media.url("/slow/5"),
           "big": media.url("/big/5000000"),
           "redirect_bad_scheme": media.url("/redirect?to=file:///etc/passwd"),
           "ftp": "ftp://example.org/x.png"}[case]
    body = bad_request(client, user(image(url)))
    assert needle in body["message"], body
    assert body["message"].startswith("messages[0].content[0]")
    e2e.assert_still_serving(server)


def test_private_addresses_and_domains(media):
    url = media.url("/a.png")
    with e2e.Server([MODEL, "--max-model-len", "2048"], name="images-private") as s:
        body = bad_request(s.client(max_retries=0), user(image(url)))
        assert "not allowed" in body["message"], body
    with e2e.Server([MODEL, "--max-model-len", "2048", "--allow-private-media-addresses", "--allowed-media-domains",
                     "example.org"], name="images-domains") as s:
        body = bad_request(s.client(max_retries=0), user(image(url)))
        assert "allowed domains" in body["message"] and "127.0.0.1" in body["message"], body


def test_language_model_only_and_server_budget():
    url = mu.data_url(PNG_480x640, "image/png")
    with e2e.Server([MODEL, "--max-model-len", "2048", "--language-model-only"], name="images-lmo") as s:
        body = bad_request(s.client(max_retries=0), user(image(url)))
        assert body["message"] == "At most 0 image(s) may be provided in one prompt.", body
    with e2e.Server([MODEL, "--max-model-len", "4096", "--mm-processor-kwargs", '{"max_soft_tokens": 560}'],
                    name="images-560") as s:
        assert mu.runs(tokenize(s, user(image(url))), mu.IMAGE_TOKEN) == [mu.soft_tokens(480, 640, 560)]
        assert mu.runs(tokenize(s, user(image(url)), mm_processor_kwargs={"max_soft_tokens": 70}),
                       mu.IMAGE_TOKEN) == [mu.soft_tokens(480, 640, 70)]
        # Media beyond the context stop early: four images at budget 1120 (1064 + 2 tokens each) pass
        # max_model_len 4096 at the fourth, which is refused before the rest of the request is built.
        body = bad_request(s.client(max_retries=0), user(*[image(url)] * 4), mm_processor_kwargs={"max_soft_tokens": 1120})
        assert body["message"].startswith("messages[0].content[3]: the media up to this part take at least 4264 "
                                          "tokens, more than the maximum context length of 4096 tokens"), body


def test_invalid_server_budget_is_a_startup_error():
    r = subprocess.run([e2e.BIN, "serve", e2e.model_dir(), "--mm-processor-kwargs", '{"max_soft_tokens": 100}'],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.strip().splitlines()[-1] == ("gemmad serve: error: --mm-processor-kwargs: Unsupported max_soft_tokens "
                                                 "value: 100. Valid values are (70, 140, 280, 560, 1120).")
