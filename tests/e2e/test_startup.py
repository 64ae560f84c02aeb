"""Startup validation of `gemmad serve`, as vLLM: one clear error line, exit code 2, no server."""
import json
import subprocess

import gemmad_e2e as e2e


def run_serve(args, env=None, timeout=120):
    s = e2e.Server(args, env=env, name="startup")
    p = subprocess.run([e2e.BIN, "serve"] + s.args, cwd=s.cwd, env=s.env, capture_output=True, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout + p.stderr


def test_max_model_len_above_max_position_embeddings():
    rc, out = run_serve([e2e.DEFAULT_REPO, "--max-model-len", "200000"])
    assert rc == 2, out
    assert "User-specified max_model_len (200000) is greater than the derived max_model_len" in out
    assert "max_position_embeddings=131072" in out
    assert "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1" in out


def test_allow_long_max_model_len_env():
    with e2e.Server([e2e.DEFAULT_REPO, "--max-model-len", "140000"],
                    env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}, name="startup") as s:
        status, _, body = e2e.http("GET", s.base_url + "/v1/models")
        assert status == 200
        assert b'"max_model_len":140000' in body
    assert "greater than the model's max_position_embeddings" in s.log()


def test_max_model_len_beyond_kv_budget_names_largest_fit():
    # 1 MiB of KV cannot hold 131072 tokens of the full-attention layer (256 bytes/token).
    rc, out = run_serve([e2e.DEFAULT_REPO, "--max-model-len", "131072"],
                        env={"VLLM_CPU_KVCACHE_SPACE": "0.001"})
    assert rc == 2, out
    assert "max_model_len" in out and "VLLM_CPU_KVCACHE_SPACE" in out, out


def served_max_model_len(s):
    status, _, body = e2e.http("GET", s.base_url + "/v1/models")
    assert status == 200
    return json.loads(body)["data"][0]["max_model_len"]


def test_max_model_len_auto_is_the_largest_the_kv_budget_holds():
    # vLLM: -1/auto = the derived length (max_position_embeddings) when it fits, else the
    # largest length the KV cache holds.
    with e2e.Server([e2e.DEFAULT_REPO, "--max-model-len", "-1"], name="startup") as s:
        assert served_max_model_len(s) == 131072
    tiny = {"VLLM_CPU_KVCACHE_SPACE": "0.001"}
    with e2e.Server([e2e.DEFAULT_REPO, "--max-model-len", "auto"], env=tiny, name="startup") as s:
        fit = served_max_model_len(s)
        assert f"Auto-fit max_model_len: reduced from 131072 to {fit}" in s.log()
    assert 0 < fit < 131072
    with e2e.Server([e2e.DEFAULT_REPO, "--max-model-len", str(fit)], env=tiny, name="startup") as s:
        assert served_max_model_len(s) == fit
    rc, out = run_serve([e2e.DEFAULT_REPO, "--max-model-len", str(fit + 1)], env=tiny)
    assert rc == 2 and f"max_model_len ({fit + 1})" in out, out


def test_unknown_flag_suggests():
    rc, out = run_serve([e2e.DEFAULT_REPO, "--max-model-length", "4096"])
    assert rc == 2, out
    assert "--max-model-len" in out


def test_offline_model_not_cached():
    rc, out = run_serve(["google/gemma-4-not-a-model"])
    assert rc == 2, out
    assert "HF_HUB_OFFLINE" in out, out
    assert len([l for l in out.strip().splitlines() if "error" in l.lower()]) >= 1


def test_loading_progress_reaches_a_service_log():
    """Issue 28: where stderr is no terminal (a service log), loading reports in log lines."""
    with e2e.Server([e2e.DEFAULT_REPO], name="progress") as s:
        log = s.log()
    assert "Loading safetensors checkpoint shards: 0% (0 of 1)" in log, log
    assert "Loading safetensors checkpoint shards: done, 100% (1 of 1) in " in log, log
    assert "\r" not in log
