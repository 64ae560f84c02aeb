#!/usr/bin/env python3
"""Development check: renders examples/tool_chat_template_gemma4.jinja with Python jinja2 (the
environment of make_goldens.py) after a Python transcription of vLLM's request normalisation
(shared/data/templates/gemma4/README.md), and compares with the 150 prompts of renders.json.
The C++ engine is checked by tests/template (ctest label golden); this script isolates template
bugs from engine bugs.

Run: /work/venv-dev/bin/python scripts/golden/template/check_gemma4_renders.py [-v]
"""
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
from make_goldens import make_env  # noqa: E402

TEXT_TYPES = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal",
              "thinking": "thinking"}
MEDIA = {"image_url": "image", "input_image": "image", "image_pil": "image", "image_embeds": "image",
         "input_audio": "audio", "audio_url": "audio", "audio_embeds": "audio", "video_url": "video"}
KNOWN_PART_KEYS = {"type", "text", "refusal", "thinking", "closed", "image_url", "image_pil",
                   "image_embeds", "audio_embeds", "input_audio", "audio_url", "video_url", "uuid",
                   "detail"}


def normalize_parts(content):
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append({"type": "text", "text": part})
            continue
        t = part.get("type")
        if t in TEXT_TYPES:
            text = part.get(TEXT_TYPES[t])
            if text is None and t in ("text", "refusal"):
                continue
            new = {"type": "text", "text": text}
        elif t in MEDIA:
            new = {"type": MEDIA[t]}
        else:
            raise ValueError(f"unsupported part type {t}")
        for k, v in part.items():
            if k not in KNOWN_PART_KEYS:
                new[k] = v
        parts.append(new)
    return parts


def normalize(messages):
    out = []
    for m in messages:
        role = m["role"]
        n = {"role": role, "content": normalize_parts(m.get("content"))}
        if role == "assistant":
            if m.get("tool_calls") is not None:
                n["tool_calls"] = copy.deepcopy(list(m["tool_calls"]))
            if m.get("reasoning") is not None:
                n["reasoning"] = m["reasoning"]
                n["reasoning_content"] = m["reasoning"]
        elif role == "tool":
            if "tool_call_id" in m:
                n["tool_call_id"] = m["tool_call_id"]
            if all(p.get("type") == "text" for p in n["content"]):
                n["content"] = "\n".join(p.get("text", "") for p in n["content"])
        if isinstance(m.get("name"), str):
            n["name"] = m["name"]
        if role == "developer":
            n["tools"] = m.get("tools")
        out.append(n)
    for n in out:
        if n["role"] == "assistant" and "tool_calls" in n:
            if not n["tool_calls"]:
                del n["tool_calls"]
                continue
            for call in n["tool_calls"]:
                args = call["function"].get("arguments")
                if isinstance(args, str):
                    try:
                        args = json.loads(args)
                    except json.JSONDecodeError:
                        args = {}
                if not isinstance(args, dict):
                    args = {}
                call["function"]["arguments"] = args
    return out


def normalize_tools(tools):
    if not tools:
        return None
    out = []
    for t in tools:
        fn = dict(t["function"])
        dumped = {"name": fn.pop("name"), "description": fn.pop("description", None),
                  "parameters": fn.pop("parameters", None)}
        dumped.update(fn)
        out.append({"type": "function", "function": dumped})
    return out


def render_request(env, template, req):
    messages = normalize(req["messages"])
    kwargs = {k: v for k, v in req["chat_template_kwargs"].items() if k == "enable_thinking"}
    cont = req["continue_final_message"]
    tag = "CONTINUE_FINAL_MESSAGE_TAG "
    final = None
    if cont:
        last = messages[-1]["content"]
        for part in reversed(last):
            if "text" in part:
                final = part["text"]
                part["text"] = part["text"] + tag
                break
    out = template.render(messages=messages, tools=normalize_tools(req["tools"]), documents=None,
                          add_generation_prompt=req["add_generation_prompt"] and not cont,
                          bos_token="<bos>", eos_token="<eos>", **kwargs)
    if cont:
        if final.strip() not in out or tag.strip() not in out:
            raise ValueError("final message not found in render")
        loc = out.rindex(tag.strip())
        out = out[:loc] if out[loc:loc + len(tag)] == tag else out[:loc].rstrip()
    return out


def main():
    verbose = "-v" in sys.argv
    env = make_env()
    with open(os.path.join(ROOT, "examples", "tool_chat_template_gemma4.jinja"), encoding="utf-8") as f:
        template = env.from_string(f.read())
    with open(os.path.join(ROOT, "..", "shared", "data", "templates", "gemma4", "renders.json"), encoding="utf-8") as f:
        rows = json.load(f)
    bad = 0
    for i, row in enumerate(rows):
        try:
            got = render_request(env, template, row["request"])
        except Exception as e:  # noqa: BLE001
            got = f"<error {type(e).__name__}: {e}>"
        if got != row["prompt"]:
            bad += 1
            if verbose or bad <= 3:
                k = next((j for j in range(min(len(got), len(row["prompt"]))) if got[j] != row["prompt"][j]), min(len(got), len(row["prompt"])))
                print(f"row {i}: first difference at {k}\n got: {got[max(0, k - 80):k + 120]!r}\nwant: {row['prompt'][max(0, k - 80):k + 120]!r}\n")
    print(f"{len(rows) - bad}/{len(rows)} rows match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
