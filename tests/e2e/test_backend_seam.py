"""The kernels-backend test seam (issue 19): `gemmad-testing` runs the model on the backend that
GEMMAD_TEST_BACKEND names (kernels/backend.h); the release binary has no such seam. Through the
scalar reference backend, `generate` reproduces the T1 transformers greedy golden and `serve`
answers as the CPU backend does."""
import json
import os
import subprocess

import gemmad_e2e as e2e

T1 = os.path.join(e2e.SOURCE_DIR, "tests", "golden", "gemma4", "t1")


def _generate(backend, prompt, n):
    env = {k: v for k, v in os.environ.items() if k != "GEMMAD_TEST_BACKEND"}
    env["GEMMAD_TEST_BACKEND"] = backend
    return subprocess.run([e2e.TESTING_BIN, "generate", T1, "--prompt-ids", ",".join(map(str, prompt)),
                           "--max-tokens", str(n), "--ignore-eos", "--threads", "2"],
                          env=env, capture_output=True, text=True, timeout=300)


def test_generate_on_the_reference_backend_matches_the_t1_golden():
    with open(os.path.join(T1, "golden_f32.json")) as f:
        golden = json.load(f)
    for p in golden["prompts"]:
        r = _generate("reference", p["token_ids"], len(p["greedy_ids"]))
        assert r.returncode == 0, r.stderr
        assert [json.loads(line)["id"] for line in r.stdout.splitlines()] == p["greedy_ids"], p["name"]


def test_an_unknown_backend_is_a_one_line_usage_error():
    r = _generate("nonsense", [2, 3], 1)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "GEMMAD_TEST_BACKEND=nonsense" in r.stderr, r.stderr


def test_serve_on_the_reference_backend_answers_as_the_cpu_backend():
    body = {"model": e2e.DEFAULT_REPO, "prompt": [2, 818, 5279, 529, 7001, 563], "max_tokens": 6,
            "temperature": 0, "return_token_ids": True, "ignore_eos": True}
    answers = []
    for backend in ("reference", "cpu"):
        with e2e.Server([e2e.DEFAULT_REPO], env={"GEMMAD_TEST_BACKEND": backend}, name="backend_" + backend,
                        bin=e2e.TESTING_BIN) as s:
            status, _, data = e2e.http("POST", s.base_url + "/v1/completions", body, timeout=600)
            assert status == 200, data
            answers.append(json.loads(data)["choices"][0]["token_ids"])
    assert answers[0] == answers[1]


def test_the_release_binary_does_not_contain_the_backend_seam():
    with open(e2e.BIN, "rb") as f:
        assert b"GEMMAD_TEST_BACKEND" not in f.read()
    with open(e2e.TESTING_BIN, "rb") as f:
        assert b"GEMMAD_TEST_BACKEND" in f.read()
