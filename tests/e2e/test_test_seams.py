"""Test seams never reach the release binary (issue 29): `gemmad` ignores GEMMAD_TEST_SCRIPTED_OUTPUT
and does not even contain the scripted runner, while `gemmad-testing` (the test binary, same
program plus cli/test_seams.h) follows the script: the same request, the same script file, two
different answers, so the check below cannot pass by accident."""
import json

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
PROMPT = [2, 818, 5279, 529, 7001, 563]
SCRIPT = [1000, 1001, 1002, 1003, 1004, 1005]


def _complete(server):
    body = {"model": MODEL, "prompt": PROMPT, "max_tokens": len(SCRIPT), "temperature": 0,
            "return_token_ids": True, "ignore_eos": True}
    status, _, data = e2e.http("POST", server.base_url + "/v1/completions", body)
    assert status == 200, data
    return json.loads(data)["choices"][0]["token_ids"]


def _run(binary, script_path):
    s = e2e.Server([MODEL], env={"GEMMAD_TEST_SCRIPTED_OUTPUT": script_path}, name="seams", bin=binary)
    with s:
        ids = _complete(s)
    return ids, s.log()


def test_release_binary_ignores_the_scripted_output_seam(tmp_path):
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"prompt_ids": PROMPT, "token_ids": SCRIPT}) + "\n")

    testing_ids, testing_log = _run(e2e.TESTING_BIN, str(script))
    assert testing_ids == SCRIPT, testing_ids
    assert "TEST ONLY" in testing_log

    release_ids, release_log = _run(e2e.BIN, str(script))
    assert release_ids != SCRIPT, release_ids
    assert "TEST ONLY" not in release_log and "GEMMAD_TEST_SCRIPTED_OUTPUT" not in release_log


def test_release_binary_does_not_contain_the_seam():
    with open(e2e.BIN, "rb") as f:
        release = f.read()
    with open(e2e.TESTING_BIN, "rb") as f:
        testing = f.read()
    assert b"GEMMAD_TEST_SCRIPTED_OUTPUT" in testing
    assert b"GEMMAD_TEST_SCRIPTED_OUTPUT" not in release
