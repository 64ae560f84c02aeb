"""The non-generation routes (shared/spec/api.md §3, §6, §8, §9): /v1/models, /health, /ping,
/version, /metrics (vLLM `vllm:*` names; counters move with traffic by exactly the served
amounts), /tokenize and /detokenize in prompt and chat form, the chat form checked against the
prompt a chat request really used."""
import json
import re

import pytest

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO


def post(server, path, body):
    status, _, raw = e2e.http("POST", server.base_url + path, body)
    assert status == 200, (path, raw)
    return json.loads(raw)


def test_models(server):
    status, hdrs, raw = e2e.http("GET", server.base_url + "/v1/models")
    assert status == 200
    doc = json.loads(raw)
    assert doc["object"] == "list" and len(doc["data"]) == 1
    m = doc["data"][0]
    assert list(m) == ["id", "object", "created", "owned_by", "root", "parent", "max_model_len", "permission"]
    assert m["id"] == MODEL and m["root"] == MODEL and m["object"] == "model" and m["owned_by"] == "vllm"
    assert m["parent"] is None and isinstance(m["created"], int)
    tok = post(server, "/tokenize", {"prompt": "x"})
    assert m["max_model_len"] == tok["max_model_len"] > 0
    perm = m["permission"][0]
    assert re.fullmatch(r"modelperm-[0-9a-f]{32}", perm["id"])
    assert perm["object"] == "model_permission" and perm["allow_sampling"] is True and perm["organization"] == "*"
    # The openai client parses it.
    assert [x.id for x in server.client().models.list().data] == [MODEL]


def test_served_model_names():
    with e2e.Server([MODEL, "--served-model-name", "gemma-a", "gemma-b", "--max-model-len", "256"],
                    name="names") as s:
        doc = json.loads(e2e.http("GET", s.base_url + "/v1/models")[2])
        assert [(m["id"], m["root"]) for m in doc["data"]] == [("gemma-a", MODEL), ("gemma-b", MODEL)]
        client = s.client()
        # Either name is accepted; responses report the first one.
        r = client.completions.create(model="gemma-b", prompt="Hi", max_tokens=2, temperature=0)
        assert r.model == "gemma-a"
        status, _, _ = e2e.http("POST", s.base_url + "/v1/completions", {"model": MODEL, "prompt": "x"})
        assert status == 404
        # /metrics labels use the first served name.
        assert any('model_name="gemma-a"' in k for k in s.metrics())


def test_health_ping_version(server):
    for method, path in [("GET", "/health"), ("GET", "/ping"), ("POST", "/ping")]:
        status, _, body = e2e.http(method, server.base_url + path)
        assert (status, body) == (200, b""), path
    status, _, raw = e2e.http("GET", server.base_url + "/version")
    assert status == 200
    doc = json.loads(raw)
    assert list(doc) == ["version"] and re.fullmatch(r"\d+\.\d+\.\d+.*", doc["version"])


REQUIRED_METRICS = [
    "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
    "vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:request_success_total",
    "vllm:num_preemptions_total", "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total",
    "vllm:time_to_first_token_seconds_bucket", "vllm:inter_token_latency_seconds_bucket",
    "vllm:request_time_per_output_token_seconds_bucket", "vllm:e2e_request_latency_seconds_bucket",
    "vllm:request_queue_time_seconds_bucket", "vllm:request_prompt_tokens_bucket",
    "vllm:request_generation_tokens_bucket", "vllm:request_params_n_bucket", "vllm:cache_config_info",
]


def test_metrics_format(server):
    status, hdrs, raw = e2e.http("GET", server.base_url + "/metrics")
    assert status == 200
    ctype = {k.lower(): v for k, v in hdrs.items()}["content-type"]
    assert ctype.startswith("text/plain") and "version=0.0.4" in ctype
    text = raw.decode()
    names = {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}
    for name in REQUIRED_METRICS:
        assert name in names, name
    # Every vllm: sample carries model_name and engine labels.
    for line in text.splitlines():
        if line.startswith("vllm:"):
            assert f'model_name="{MODEL}"' in line and 'engine="0"' in line, line
    assert "# TYPE vllm:prompt_tokens counter" in text or "# TYPE vllm:prompt_tokens_total counter" in text
    assert "# TYPE vllm:num_requests_running gauge" in text
    assert "# TYPE vllm:time_to_first_token_seconds histogram" in text
    ttft = [l for l in text.splitlines() if l.startswith("vllm:time_to_first_token_seconds_bucket")]
    les = [re.search(r'le="([^"]+)"', l).group(1) for l in ttft]
    assert les[:4] == ["0.001", "0.005", "0.01", "0.02"] and les[-1] == "+Inf"


def _success(m, reason):
    return sum(v for k, v in m.items()
               if k.startswith("vllm:request_success_total{") and f'finished_reason="{reason}"' in k)


def test_metrics_counters_move(server):
    client = server.client()
    before = server.metrics()
    r1 = client.completions.create(model=MODEL, prompt="The metrics test", max_tokens=5, temperature=0)
    r2 = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "Count me"}],
                                        max_tokens=3, temperature=0)
    # A stop-token finish: the model repeats the last prompt token, here <turn|> (106).
    r3 = client.completions.create(model=MODEL, prompt=[2, 10979, 106], max_tokens=5, temperature=0)
    assert r3.choices[0].finish_reason == "stop"
    prompt = r1.usage.prompt_tokens + r2.usage.prompt_tokens + r3.usage.prompt_tokens
    gen = r1.usage.completion_tokens + r2.usage.completion_tokens + r3.usage.completion_tokens
    # Read at once: the engine publishes a request's counters before its response goes out.
    after = server.metrics()

    def delta(name):
        return sum(v for k, v in after.items() if k.split("{")[0] == name) - \
            sum(v for k, v in before.items() if k.split("{")[0] == name)

    assert delta("vllm:prompt_tokens_total") == prompt
    assert delta("vllm:generation_tokens_total") == gen
    assert _success(after, "length") - _success(before, "length") == 2
    assert _success(after, "stop") - _success(before, "stop") == 1
    assert delta("vllm:request_prompt_tokens_count") == 3
    assert delta("vllm:request_prompt_tokens_sum") == prompt
    assert delta("vllm:e2e_request_latency_seconds_count") == 3
    assert delta("vllm:time_to_first_token_seconds_count") == 3
    assert delta("vllm:request_params_n_count") == 3
    assert after[f'vllm:num_requests_running{{model_name="{MODEL}",engine="0"}}'] == 0
    # A rejected request is not counted as served.
    e2e.http("POST", server.base_url + "/v1/completions", {"prompt": "x", "temperature": -1})
    again = server.metrics()
    assert sum(v for k, v in again.items() if k.startswith("vllm:prompt_tokens_total")) == \
        sum(v for k, v in after.items() if k.startswith("vllm:prompt_tokens_total"))


def test_tokenize_prompt(server):
    t = post(server, "/tokenize", {"prompt": "Hello world", "return_token_strs": True})
    assert list(t) == ["count", "max_model_len", "tokens", "token_strs"]
    assert t["count"] == len(t["tokens"]) == len(t["token_strs"])
    assert t["tokens"][0] == 2 and t["token_strs"][0] == "<bos>"  # add_special_tokens defaults to true
    assert t["token_strs"][1:] == ["Hello", "▁world"]
    plain = post(server, "/tokenize", {"prompt": "Hello world", "add_special_tokens": False})
    assert plain["tokens"] == t["tokens"][1:] and plain["token_strs"] is None
    # A completion request's prompt_tokens is the same count.
    r = server.client().completions.create(model=MODEL, prompt="Hello world", max_tokens=1, temperature=0)
    assert r.usage.prompt_tokens == t["count"]


def test_detokenize_round_trip(server):
    text = "Round trip: ünïcödé, emoji 🎉 and spaces  !"
    t = post(server, "/tokenize", {"prompt": text, "add_special_tokens": False})
    assert post(server, "/detokenize", {"tokens": t["tokens"]}) == {"prompt": text}
    with_bos = post(server, "/tokenize", {"prompt": text})
    assert post(server, "/detokenize", {"tokens": with_bos["tokens"]})["prompt"] == "<bos>" + text
    status, _, raw = e2e.http("POST", server.base_url + "/detokenize", {"tokens": [10 ** 9]})
    assert status in (400, 500), raw
    assert "error" in json.loads(raw)


MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 2+2?"}]


def test_tokenize_messages_equals_chat_prompt(server):
    t = post(server, "/tokenize", {"messages": MESSAGES})
    chat = post(server, "/v1/chat/completions", {"messages": MESSAGES, "max_tokens": 1, "temperature": 0,
                                                 "return_token_ids": True})
    assert chat["prompt_token_ids"] == t["tokens"]
    assert chat["usage"]["prompt_tokens"] == t["count"] == len(t["tokens"])
    rendered = post(server, "/detokenize", {"tokens": t["tokens"]})["prompt"]
    assert rendered.startswith("<bos><|turn>system\nBe brief.")
    assert "<turn|>\n<|turn>user\nWhat is 2+2?<turn|>\n<|turn>model\n" in rendered
    # Thinking off: the generation prompt opens the model turn with an empty thought channel.
    assert rendered.endswith("<|turn>model\n<|channel>thought\n<channel|>")
    # Re-tokenizing the rendered text (its <bos> included) gives the same ids.
    again = post(server, "/tokenize", {"prompt": rendered, "add_special_tokens": False})
    assert again["tokens"] == t["tokens"]


def test_tokenize_messages_add_generation_prompt(server):
    on = post(server, "/tokenize", {"messages": MESSAGES})
    off = post(server, "/tokenize", {"messages": MESSAGES, "add_generation_prompt": False})
    assert off["count"] < on["count"] and on["tokens"][:off["count"]] == off["tokens"]
    text_off = post(server, "/detokenize", {"tokens": off["tokens"]})["prompt"]
    assert text_off.endswith("What is 2+2?<turn|>\n") and "<|turn>model" not in text_off
    chat = post(server, "/v1/chat/completions", {"messages": MESSAGES, "max_tokens": 1, "temperature": 0,
                                                 "add_generation_prompt": False, "return_token_ids": True})
    assert chat["prompt_token_ids"] == off["tokens"]
    # continue_final_message: the last assistant message stays open (no end-of-turn).
    cont = MESSAGES + [{"role": "assistant", "content": "The answer is"}]
    c = post(server, "/tokenize", {"messages": cont, "add_generation_prompt": False,
                                   "continue_final_message": True})
    assert post(server, "/detokenize", {"tokens": c["tokens"]})["prompt"].endswith("<|turn>model\nThe answer is")


def test_tokenize_messages_chat_template_kwargs(server):
    off = post(server, "/tokenize", {"messages": MESSAGES})
    on = post(server, "/tokenize", {"messages": MESSAGES, "chat_template_kwargs": {"enable_thinking": True}})
    assert on["tokens"] != off["tokens"]
    assert "<|think|>" in post(server, "/detokenize", {"tokens": on["tokens"]})["prompt"]
    chat = post(server, "/v1/chat/completions", {"messages": MESSAGES, "max_tokens": 1, "temperature": 0,
                                                 "chat_template_kwargs": {"enable_thinking": True},
                                                 "return_token_ids": True})
    assert chat["prompt_token_ids"] == on["tokens"]


def test_tokenize_errors(server):
    status, _, raw = e2e.http("POST", server.base_url + "/tokenize", {"model": "nope", "prompt": "x"})
    assert status == 404 and json.loads(raw)["error"]["param"] == "model"
    status, _, raw = e2e.http("POST", server.base_url + "/tokenize", {"tokens": [1]})
    assert status == 400, raw
