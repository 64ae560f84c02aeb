"""The server starts from the fake HF cache and answers one chat and one completion request."""


def test_chat_and_completion(client):
    r = client.chat.completions.create(model="google/gemma-4-E2B-it",
                                       messages=[{"role": "user", "content": "Hello"}], max_tokens=4)
    assert r.choices[0].finish_reason in ("length", "stop")
    assert r.usage.completion_tokens <= 4
    c = client.completions.create(model="google/gemma-4-E2B-it", prompt="Hello", max_tokens=4, temperature=0)
    assert c.usage.completion_tokens == 4
    assert c.choices[0].finish_reason == "length"
