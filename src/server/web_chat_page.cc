// WebChatPage: the HTML, CSS and JavaScript of the page, kept in one raw string.
#include "server/web_chat_page.h"

namespace gemmad::server {

std::string_view WebChatPage() {
  static constexpr std::string_view kPage = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gemmad chat</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; display: flex; flex-direction: column; height: 100vh; }
  header { display: flex; flex-wrap: wrap; gap: .5em 1em; align-items: center; padding: .5em 1em;
           background: #f3f3f3; border-bottom: 1px solid #ddd; font-size: .9em; }
  header label { display: flex; gap: .3em; align-items: center; }
  header input[type=number] { width: 5em; }
  #messages { flex: 1; overflow-y: auto; padding: 1em; }
  .thumb { display: block; max-height: 8em; max-width: 100%; margin-bottom: 0.3em; }
  .msg { margin: .5em 0; padding: .6em .8em; border-radius: 8px; white-space: pre-wrap; max-width: 52em; }
  .msg.user { background: #dceeff; margin-left: auto; }
  .msg.assistant { background: #f6f6f6; }
  details.thinking { color: #555; font-size: .9em; margin-bottom: .4em; }
  details.thinking summary { cursor: pointer; }
  .tool-call { font-family: monospace; background: #fff6d8; padding: .3em; margin-top: .4em; }
  .error { background: #ffe0e0; color: #900; }
  form { display: flex; gap: .5em; padding: .8em 1em; border-top: 1px solid #ddd; }
  textarea { flex: 1; font: inherit; min-height: 3em; }
</style>
</head>
<body>
<header>
  <strong>gemmad</strong>
  <label>Model <select id="model"></select></label>
  <label>API key <input id="api-key" type="password" autocomplete="off" placeholder="none"></label>
  <label>Temperature <input id="temperature" type="number" step="0.1" min="0" max="2" placeholder="default"></label>
  <label>Max tokens <input id="max-tokens" type="number" min="1" placeholder="default"></label>
  <label><input id="thinking" type="checkbox"> Thinking</label>
  <label>System <input id="system" placeholder="optional system prompt"></label>
  <label>Tools <input id="tools" placeholder='optional JSON list of OpenAI tools'></label>
  <button id="clear" type="button">New chat</button>
</header>
<div id="messages"></div>
<form id="form">
  <textarea id="message" placeholder="Message (Enter sends, Shift+Enter: new line)"></textarea>
  <label title="Images sent with the next message">Images <input id="images" type="file" accept="image/*" multiple></label>
  <label title="Audio clips sent with the next message (E2B/E4B)">Audio <input id="audios" type="file" accept="audio/*" multiple></label>
  <button id="send" type="submit">Send</button>
  <button id="stop" type="button" disabled>Stop</button>
</form>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const conversation = [];
let controller = null;

$("api-key").value = localStorage.getItem("gemmad-api-key") || "";
$("api-key").addEventListener("change", () => { localStorage.setItem("gemmad-api-key", $("api-key").value); loadModels(); });

function headers() {
  const h = { "Content-Type": "application/json" };
  if ($("api-key").value) h["Authorization"] = "Bearer " + $("api-key").value;
  return h;
}

function bubble(role) {
  const div = document.createElement("div");
  div.className = "msg " + role;
  $("messages").appendChild(div);
  return div;
}

function showError(text) {
  const div = bubble("assistant error");
  div.textContent = text;
  $("messages").scrollTop = $("messages").scrollHeight;
}

async function errorText(response) {
  let text = "HTTP " + response.status;
  try {
    const body = await response.json();
    const e = body.error || body;
    if (e && e.message) text += ": " + e.message;
  } catch (_) { /* not JSON */ }
  return text;
}

async function loadModels() {
  try {
    const r = await fetch("v1/models", { headers: headers() });
    if (!r.ok) { showError(await errorText(r)); return; }
    const body = await r.json();
    $("model").innerHTML = "";
    for (const m of body.data) {
      const o = document.createElement("option");
      o.textContent = m.id;
      $("model").appendChild(o);
    }
  } catch (e) { showError(String(e)); }
}

// One assistant turn: the reasoning in a <details> block (open while it streams, collapsed once
// the answer starts or the turn ends), the answer text, then the tool calls.
function assistantView() {
  const div = bubble("assistant");
  const view = { div, thinking: null, answer: document.createElement("div"), calls: {}, content: "" };
  view.answer.className = "answer";
  div.appendChild(view.answer);
  view.reason = (text) => {
    if (!view.thinking) {
      view.thinking = document.createElement("details");
      view.thinking.className = "thinking";
      view.thinking.open = true;
      view.thinking.innerHTML = "<summary>Thinking</summary><div class=\"reasoning\"></div>";
      div.insertBefore(view.thinking, view.answer);
    }
    view.thinking.querySelector(".reasoning").textContent += text;
  };
  view.say = (text) => {
    if (view.thinking) view.thinking.open = false;
    view.content += text;
    view.answer.textContent = view.content;
  };
  view.call = (tc) => {
    const i = tc.index || 0;
    if (!view.calls[i]) {
      view.calls[i] = { name: "", args: "", el: document.createElement("div") };
      view.calls[i].el.className = "tool-call";
      div.appendChild(view.calls[i].el);
    }
    const c = view.calls[i];
    if (tc.function) { c.name += tc.function.name || ""; c.args += tc.function.arguments || ""; }
    c.el.textContent = "Tool call: " + c.name + " " + c.args;
  };
  view.end = () => { if (view.thinking) view.thinking.open = false; };
  return view;
}

function onEvent(data, view) {
  if (data === "[DONE]") return;
  const chunk = JSON.parse(data);
  if (chunk.error) throw new Error(chunk.error.message || JSON.stringify(chunk.error));
  const choice = (chunk.choices || [])[0];
  if (!choice || !choice.delta) return;
  const d = choice.delta;
  const reasoning = d.reasoning || d.reasoning_content;
  if (reasoning) view.reason(reasoning);
  if (d.content) view.say(d.content);
  for (const tc of d.tool_calls || []) view.call(tc);
  $("messages").scrollTop = $("messages").scrollHeight;
}

// The files chosen in a file input as data: URLs (FileReader) with their names, then the input is emptied.
async function takeFiles(id) {
  const files = [...$(id).files];
  $(id).value = "";
  return Promise.all(files.map((f) => new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve({ url: reader.result, name: f.name });
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(f);
  })));
}

// An audio file as an input_audio part: its base64 data and its extension as the format hint.
function audioPart(file) {
  const dot = file.name.lastIndexOf(".");
  const format = dot >= 0 ? file.name.slice(dot + 1).toLowerCase() : "";
  return { type: "input_audio", input_audio: { data: file.url.slice(file.url.indexOf(",") + 1), format } };
}

async function send(text) {
  const images = await takeFiles("images");
  const audios = await takeFiles("audios");
  const parts = [...images.map((f) => ({ type: "image_url", image_url: { url: f.url } })), ...audios.map(audioPart)];
  const content = parts.length ? [...parts, { type: "text", text }] : text;
  conversation.push({ role: "user", content });
  const shown = bubble("user");
  for (const f of images) {
    const img = document.createElement("img");
    img.src = f.url;
    img.className = "thumb";
    shown.appendChild(img);
  }
  for (const f of audios) {
    const clip = document.createElement("audio");
    clip.src = f.url;
    clip.controls = true;
    clip.className = "clip";
    shown.appendChild(clip);
  }
  shown.appendChild(document.createTextNode(text));
  const messages = $("system").value ? [{ role: "system", content: $("system").value }, ...conversation] : [...conversation];
  const body = { model: $("model").value, messages, stream: true };
  if ($("temperature").value !== "") body.temperature = Number($("temperature").value);
  if ($("max-tokens").value !== "") body.max_tokens = Number($("max-tokens").value);
  if ($("thinking").checked) body.chat_template_kwargs = { enable_thinking: true };
  if ($("tools").value.trim()) {
    try { body.tools = JSON.parse($("tools").value); } catch (e) { conversation.pop(); showError("Tools: " + e.message); return; }
  }
  controller = new AbortController();
  $("send").disabled = true;
  $("stop").disabled = false;
  let view = null;
  try {
    const r = await fetch("v1/chat/completions", { method: "POST", headers: headers(), body: JSON.stringify(body),
                                                     signal: controller.signal });
    if (!r.ok) { conversation.pop(); showError(await errorText(r)); return; }
    view = assistantView();
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = event.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
        if (data) onEvent(data, view);
      }
    }
    conversation.push({ role: "assistant", content: view.content });
  } catch (e) {
    if (e.name !== "AbortError") showError(String(e.message || e));
    if (view) conversation.push({ role: "assistant", content: view.content });
    else conversation.pop();
  } finally {
    if (view) view.end();
    controller = null;
    $("send").disabled = false;
    $("stop").disabled = true;
  }
}

$("form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("message").value;
  if (!text.trim() || controller) return;
  $("message").value = "";
  send(text);
});
$("message").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("form").requestSubmit(); }
});
$("stop").addEventListener("click", () => { if (controller) controller.abort(); });
$("clear").addEventListener("click", () => { conversation.length = 0; $("messages").innerHTML = ""; });
loadModels();
</script>
</body>
</html>
)html";
  return kPage;
}

}  // namespace gemmad::server
