"""Decode streaming parameters (kernels/stream_params.h, issue 25): the prefetch distance and level
are chosen per CPU family, overridable with GEMMAD_STREAM, and logged at start. They change only
speed: `gemmad generate` reproduces the T1 transformers greedy golden under every setting, and an
invalid GEMMAD_STREAM is a one-line error before anything runs."""
import json
import os
import subprocess

import gemmad_e2e as e2e

T1 = os.path.join(e2e.SOURCE_DIR, "tests", "golden", "gemma4", "t1")


def _generate(stream, prompt, n):
    env = {k: v for k, v in os.environ.items() if k != "GEMMAD_STREAM"}
    if stream is not None:
        env["GEMMAD_STREAM"] = stream
    return subprocess.run([e2e.BIN, "generate", T1, "--prompt-ids", ",".join(map(str, prompt)),
                           "--max-tokens", str(n), "--ignore-eos", "--threads", "2"],
                          env=env, capture_output=True, text=True, timeout=300)


def test_every_setting_gives_the_golden_greedy_ids():
    with open(os.path.join(T1, "golden_f32.json")) as f:
        golden = json.load(f)
    for stream in (None, "level=off", "level=l1,ahead_short=64,ahead_long=64", "level=l2,ahead_short=1024k"):
        for p in golden["prompts"]:
            r = _generate(stream, p["token_ids"], len(p["greedy_ids"]))
            assert r.returncode == 0, r.stderr
            assert [json.loads(line)["id"] for line in r.stdout.splitlines()] == p["greedy_ids"], (stream, p["name"])


def test_an_invalid_setting_is_a_one_line_error():
    for bad in ("level=l3", "ahead_short=-5", "prefetch=1"):
        r = _generate(bad, [2, 3], 1)
        assert r.returncode == 2, (bad, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "GEMMAD_STREAM" in r.stderr, r.stderr
        assert r.stdout == ""


def test_serve_logs_the_choice_and_refuses_an_invalid_one():
    with e2e.Server([e2e.DEFAULT_REPO], env={"GEMMAD_STREAM": "level=l2,ahead_short=8k"}, name="stream_env") as s:
        log = s.log()
    assert "decode streaming ahead_short=8192,ahead_short_int8=" in log, log
    assert "level=l2,level_bf16=l2,level_int8=l2,level_ct=l2,level_q4x16=l2,q4x16_groups=" in log, log
    assert "(GEMMAD_STREAM)" in log, log
    with e2e.Server([e2e.DEFAULT_REPO], name="stream_table") as s:
        log = s.log()
    assert "decode streaming ahead_short=" in log and "table row '" in log, log
    try:
        with e2e.Server([e2e.DEFAULT_REPO], env={"GEMMAD_STREAM": "level=nowhere"}, name="stream_bad"):
            started = True
    except RuntimeError as e:
        started = False
        assert "GEMMAD_STREAM: level must be off, l1 or l2, got 'nowhere'" in str(e), str(e)
    assert not started
