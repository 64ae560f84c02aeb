// Chat-template rendering cost: µs per conversation for the Gemma 4 tool template on a typical
// tool-calling conversation (system prompt, 2 tools, user, tool call + result, answer, user),
// through RenderChat (normalisation + render) and Template::Render alone. Baseline in the same
// run: serialising the same request JSON once (nlohmann dump), the cheapest thing a server does
// with every request; report ratios against it.
// gemmad-bench-libs: gemmad_template
#include <benchmark/benchmark.h>

#include <string>

#include "template/chat_template.h"

namespace {

using gemmad::tmpl::Json;

Json Tools() {
  return Json::parse(R"([
    {"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.",
      "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer", "description": "Forecast days"}}, "required": ["city"]}}},
    {"type": "function", "function": {"name": "search_docs", "description": "Search the knowledge base.",
      "parameters": {"type": "object", "properties": {
        "query": {"type": "string"}, "limit": {"type": "integer"},
        "filters": {"type": "object", "properties": {"lang": {"type": "string"}, "since": {"type": "string"}}}},
        "required": ["query"]}}}])");
}

Json Messages() {
  return Json::parse(R"([
    {"role": "system", "content": "You are a helpful assistant. Answer briefly and use tools when needed."},
    {"role": "user", "content": "What's the weather in Paris for the next two days, and is there anything in the docs about heat waves?"},
    {"role": "assistant", "content": null, "reasoning": "Two tools are needed: weather and docs search.",
     "tool_calls": [
      {"id": "chatcmpl-tool-1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\", \"unit\": \"celsius\", \"days\": 2}"}},
      {"id": "chatcmpl-tool-2", "type": "function", "function": {"name": "search_docs", "arguments": "{\"query\": \"heat wave\", \"limit\": 3}"}}]},
    {"role": "tool", "tool_call_id": "chatcmpl-tool-1", "content": "{\"today\": {\"temp\": 31.5, \"sky\": \"sunny\"}, \"tomorrow\": {\"temp\": 33.0, \"sky\": \"hazy\"}}"},
    {"role": "tool", "tool_call_id": "chatcmpl-tool-2", "content": "1. Heat wave safety guide\n2. Cooling centres in Paris\n3. Hydration tips"},
    {"role": "assistant", "content": "It will be 31.5 °C and sunny today, 33 °C and hazy tomorrow. The docs have a heat wave safety guide, a list of cooling centres and hydration tips."},
    {"role": "user", "content": "Thanks! Can you summarise the safety guide?"}])");
}

void BM_JsonDumpBaseline(benchmark::State& state) {
  Json request = {{"messages", Messages()}, {"tools", Tools()}};
  for (auto _ : state) {
    std::string s = request.dump();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_JsonDumpBaseline)->Unit(benchmark::kMicrosecond);

void BM_Gemma4RenderChat(benchmark::State& state) {
  auto ct = gemmad::tmpl::MakeChatTemplate(gemmad::tmpl::EmbeddedGemma4ToolTemplate(), "gemma4");
  Json messages = Messages(), tools = Tools(), kwargs = {{"enable_thinking", true}};
  gemmad::tmpl::RenderOptions options;
  size_t bytes = 0;
  for (auto _ : state) {
    auto prompt = gemmad::tmpl::RenderChat(*ct, messages, tools, kwargs, options);
    if (!prompt.ok()) state.SkipWithError(prompt.status().ToString().c_str());
    bytes = prompt->size();
    benchmark::DoNotOptimize(prompt);
  }
  state.counters["prompt_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Gemma4RenderChat)->Unit(benchmark::kMicrosecond);

void BM_Gemma4TemplateRenderOnly(benchmark::State& state) {
  auto ct = gemmad::tmpl::MakeChatTemplate(gemmad::tmpl::EmbeddedGemma4ToolTemplate(), "gemma4");
  Json context = {{"messages", *gemmad::tmpl::NormalizeMessages(Messages(), gemmad::tmpl::ContentFormat::kOpenAI)},
                  {"tools", *gemmad::tmpl::NormalizeTools(Tools())},
                  {"bos_token", "<bos>"},
                  {"add_generation_prompt", true},
                  {"enable_thinking", true}};
  for (auto _ : state) {
    auto prompt = ct->tmpl.Render(context);
    benchmark::DoNotOptimize(prompt);
  }
}
BENCHMARK(BM_Gemma4TemplateRenderOnly)->Unit(benchmark::kMicrosecond);

void BM_Gemma4Compile(benchmark::State& state) {
  for (auto _ : state) {
    auto t = gemmad::tmpl::Template::Compile(gemmad::tmpl::EmbeddedGemma4ToolTemplate());
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_Gemma4Compile)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
