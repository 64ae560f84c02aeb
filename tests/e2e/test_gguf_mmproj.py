"""A GGUF model with its mmproj companion (issue 22, item 6), through the official openai client.
The files are llama.cpp's own conversion (`convert_hf_to_gguf.py` and `--mmproj`) of the
multimodal reference checkpoint gemma4_mm/causal (tests/golden/gguf_mmproj,
scripts/golden/make_gguf_mmproj_goldens.py); the reference is that checkpoint served from its
safetensors with the GGUF's tokenizer (`--tokenizer FILE.gguf`, as vLLM accepts one: on this
512-id cut of the Gemma 4 vocabulary llama.cpp's tokenizer and Hugging Face's split some words
differently, which the full vocabulary never does).
- Found beside the text GGUF as vLLM finds it, the companion's vision encoder serves an image chat
  with the checkpoint's prompt tokens, greedy tokens and top-5 logprobs.
- Named with --mmproj it is the same server (with -tp 2 too); its audio encoder takes a clip (the prompt length is
  the checkpoint's: the soft-token count depends on the clip alone; the values are not compared,
  since this tiny checkpoint's audio chunking is not the released one an mmproj implies).
- --no-mmproj serves the text alone and refuses the image with the 400 of a model without a vision
  encoder; an mmproj given as the model fails at startup with one line naming --mmproj.
"""
import base64
import os
import subprocess

import openai
import pytest

import gemmad_e2e as e2e
import media_util as mu

DIR = os.path.join(e2e.SOURCE_DIR, "tests", "golden", "gguf_mmproj")
TEXT = os.path.join(DIR, "gemma4_mm_f32.gguf")
MMPROJ = os.path.join(DIR, "mmproj-gemma4_mm-f32.gguf")
CHECKPOINT = os.path.join(e2e.SOURCE_DIR, "tests", "golden", "gemma4_mm", "causal")
ARGS = ["--served-model-name", "mm", "--max-model-len", "256", "--mm-processor-kwargs", '{"max_soft_tokens": 70}']

PNG = mu.encode(mu.picture(64, 48, seed=5), "PNG")
WAV = mu.wav(mu.tone(1.0, seed=6))


def user(*parts):
    return [{"role": "user", "content": list(parts)}]


def image_part():
    return {"type": "image_url", "image_url": {"url": mu.data_url(PNG, "image/png")}}


def audio_part():
    return {"type": "input_audio", "input_audio": {"data": base64.b64encode(WAV).decode(), "format": "wav"}}


def text_part(t):
    return {"type": "text", "text": t}


def greedy(client, messages, n=8):
    r = client.chat.completions.create(model="mm", messages=messages, max_tokens=n, temperature=0, logprobs=True,
                                       top_logprobs=5, extra_body={"ignore_eos": True})
    steps = [[(t.token, t.logprob) for t in c.top_logprobs] for c in r.choices[0].logprobs.content]
    return r.usage.prompt_tokens, [c.token for c in r.choices[0].logprobs.content], steps


@pytest.fixture(scope="module")
def gguf():
    yield from e2e.module_server([TEXT] + ARGS, "gguf-mmproj")


def test_image_chat_equals_the_checkpoint(gguf):
    msgs = user(image_part(), text_part("What is shown?"))
    got = greedy(gguf.client(), msgs)
    with e2e.Server([CHECKPOINT, "--tokenizer", TEXT] + ARGS, name="gguf-mmproj-ref") as ref:
        want = greedy(ref.client(), msgs)
        text_only = ref.client().chat.completions.create(model="mm", messages=user(text_part("What is shown?")),
                                                         max_tokens=1)
    assert got[0] == want[0] and got[0] > text_only.usage.prompt_tokens + 60  # the image's soft tokens
    assert got[1] == want[1]
    assert len(set(got[1])) > 2  # a run that varies
    for g, w in zip(got[2], want[2]):
        assert [t for t, _ in g] == [t for t, _ in w]
        assert max(abs(a - b) for (_, a), (_, b) in zip(g, w)) < 1e-4


def test_named_mmproj_serves_images_and_audio(gguf):
    with e2e.Server([TEXT, "--mmproj", MMPROJ] + ARGS, name="gguf-mmproj-named") as s:
        msgs = user(image_part(), text_part("What is shown?"))
        assert greedy(s.client(), msgs)[:2] == greedy(gguf.client(), msgs)[:2]
        r = s.client().chat.completions.create(model="mm", messages=user(audio_part(), text_part("Transcribe.")),
                                               max_tokens=4, temperature=0)
        assert r.choices[0].finish_reason in ("stop", "length")
        text_only = s.client().chat.completions.create(model="mm", messages=user(text_part("Transcribe.")),
                                                       max_tokens=1)
        # A 1.0 s clip is 25 soft tokens between <|audio> and <audio|>.
        assert r.usage.prompt_tokens == text_only.usage.prompt_tokens + 25 + 2


def test_tensor_parallel_ranks_make_rank_zeros_mmproj_choice(gguf):
    # A directory where the default search would pick a file that is no mmproj (a copy of the text
    # GGUF named like one): with --mmproj or --no-mmproj every rank of -tp 2 follows the flag, so
    # the group starts; the named companion gives the single process's tokens.
    d = os.path.join(e2e.WORK, "gguf_mmproj_tp")
    os.makedirs(d, exist_ok=True)
    for name in ("gemma4_mm_f32.gguf", "mmproj-not-really.gguf"):
        if not os.path.exists(os.path.join(d, name)):
            os.symlink(TEXT, os.path.join(d, name))
    text = os.path.join(d, "gemma4_mm_f32.gguf")
    msgs = user(image_part(), text_part("What is shown?"))
    with e2e.Server([text, "--mmproj", MMPROJ, "-tp", "2"] + ARGS, name="gguf-mmproj-tp") as s:
        assert greedy(s.client(), msgs)[:2] == greedy(gguf.client(), msgs)[:2]
    with e2e.Server([text, "--no-mmproj", "-tp", "2"] + ARGS, name="gguf-no-mmproj-tp") as s:
        r = s.client().chat.completions.create(model="mm", messages=user(text_part("Hi")), max_tokens=2)
        assert r.choices[0].finish_reason in ("stop", "length")


def test_no_mmproj_serves_text_only():
    with e2e.Server([TEXT, "--no-mmproj"] + ARGS, name="gguf-no-mmproj") as s:
        client = s.client(max_retries=0)
        r = client.chat.completions.create(model="mm", messages=user(text_part("Hi")), max_tokens=3)
        assert r.choices[0].finish_reason in ("stop", "length")
        with pytest.raises(openai.BadRequestError) as e:
            client.chat.completions.create(model="mm", messages=user(image_part(), text_part("x")), max_tokens=2)
        assert "vision" in e.value.body["message"], e.value.body


def test_mmproj_as_the_model_is_one_line_at_startup():
    s = e2e.Server([MMPROJ], name="gguf-mmproj-as-model")
    p = subprocess.run([e2e.BIN, "serve"] + s.args, cwd=s.cwd, env=s.env, capture_output=True, text=True,
                       timeout=120, stdin=subprocess.DEVNULL)
    out = p.stdout + p.stderr
    assert p.returncode != 0, out
    assert MMPROJ in out and "--mmproj" in out, out
    assert "Traceback" not in out and "Aborted" not in out
