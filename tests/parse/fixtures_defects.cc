// Fixtures for the defects and edge cases of chat-format.md §5.1, §6.1, §6.4, §7.2-§7.4 that
// are not already a vLLM-test fixture, each with our decision.
#include "fixtures.h"

namespace gemmad::parse::testing {

const std::vector<Fixture>& DefectFixtures() {
  const std::string S = "<|tool_call>", E = "<tool_call|>", O = "<|channel>", C = "<channel|>";
  static const std::vector<Fixture> kFixtures = {
      {"defect_ids_first_delta_only", "§6.4 #42696 (id/type/name on every delta)",
       "kept: OpenAI and vLLM send them on the first delta of a call only", ToolsOnly(),
       {S, "call:f{", "a:1,", "b:2}", E}, {}, {}, {{"f", R"({"a": 1, "b": 2})"}}},
      {"defect_name_always_sent", "§6.4 #45449 (missing function.name while streaming)",
       "fixed: every call's first delta carries its name, for every split (checked on all "
       "fixtures)", ToolsOnly(), {S + "call:", "get_", "time{", "}", E}, {}, {},
       {{"get_time", "{}"}}},
      {"defect_quote_marker_leak", "§6.4 #44522 (raw `<|\"|>` in content)",
       "fixed: no protocol marker reaches content, reasoning or arguments", Both(),
       {O + "thought\nsay <|\"|>hi<|\"|>" + C + "He said <|\"|>hi<|\"|>.<turn|>"},
       "say hi", "He said hi.", {}},
      {"defect_changed_structure", "§6.4 structure-changed rewind duplicates characters",
       "fixed: argument JSON is append-only, a value is sent once it cannot change", ToolsOnly(),
       {S, "call:f{n:1", ".", "5,s:<|\"|>a", "b<|\"|>,t:tr", "ue}", E}, {}, {},
       {{"f", R"({"n": 1.5, "s": "ab", "t": true})"}}},
      {"defect_tool_choice_none", "§6.4 tool_choice none parsed while streaming only",
       "fixed: for `none` the server builds no tool-call parser; the markup is plain content "
       "without markers in both modes", ReasoningOnly(),
       {R"(Sure.<|tool_call>call:f{a:<|"|>x<|"|>}<tool_call|>)"}, {}, "Sure.call:f{a:x}", {}},
      {"defect_text_after_calls", "§6.4 non-streaming drops text after the last call",
       "fixed: kept as content (streaming sends it)", ToolsOnly(),
       {"Before. " + S + "call:f{}" + E + " After."}, {}, "Before.  After.", {{"f", "{}"}}},
      {"defect_no_reasoning_parser", "§7.4 thinking on without --reasoning-parser",
       "kept: without a reasoning parser the thought text is content (markers removed)",
       ToolsOnly(), {O + "thought\nhmm" + C + "Answer"}, {}, "thought\nhmmAnswer", {}},
      {"defect_thinking_off_stray_channel", "§5.1 thinking off, model still emits a channel",
       "fixed: parsed as reasoning (vLLM streaming leaks `<|channel>thought\\n<channel|>` into "
       "content because the prompt says reasoning ended)", Both(), {O + "thought\n" + C + "Hi!"},
       "", "Hi!", {}},
      {"defect_call_inside_open_channel", "§7.1 `<|tool_call>` ends reasoning",
       "fixed: a call inside an unclosed channel ends the reasoning (vLLM's streaming reasoning "
       "parser keeps it as reasoning and the call is lost)", Both(),
       {O + "thought\nneed data" + S + "call:get{k:1}" + E}, "need data", {},
       {{"get", R"({"k": 1})"}}},
      {"defect_include_reasoning_false", "§7.3 include_reasoning:false still streams reasoning",
       "fixed: dropped in both modes", ParserSetup{.include_reasoning = false},
       {O + "thought\nsecret" + C + "public"}, {}, "public", {}},
      {"defect_infinity", "§6.1 float() overflow gives invalid JSON `Infinity`",
       "fixed: the text is kept as a string", ToolsOnly(), {S + "call:f{x:1.0e999}" + E}, {}, {},
       {{"f", R"({"x": "1.0e999"})"}}},
      {"defect_duplicate_keys", "§6.1.5 duplicate keys: last wins",
       "differs: both pairs are written (append-only streaming); JSON parsers keep the last, "
       "as vLLM", ToolsOnly(), {S + "call:f{a:1,a:2}" + E}, {}, {},
       {{"f", R"({"a": 1, "a": 2})"}}},
      {"defect_malformed_header", "§6.2 no regex match returns the raw text",
       "fixed: text after a marker that is not `call:NAME{` is content, the marker removed",
       ToolsOnly(), {"x " + S + "call:bad name{a:1}" + E + " y"}, {}, "x call:bad name{a:1} y",
       {}},
      {"defect_end_marker_inside_args", "§6.2 `<tool_call|>` before the arguments' `}`",
       "fixed: the end marker closes the call into valid JSON", ToolsOnly(),
       {S + R"(call:f{a:[1,{b:<|"|>x)" + E}, {}, {}, {{"f", R"({"a": [1, {"b": "x"}]})"}}},
      {"defect_parallel_calls_reasoning", "§6.3 observed sequence with thinking on", "same",
       Both(), {O, "thought", "\n", "Need", " weather", ".", C, S, "call", ":", "get", "_weather",
                "{", "city", ":", "<|\"|>", "Paris", ",", " France", "<|\"|>", ",", "days", ":",
                "2", "}", E},
       "Need weather.", {}, {{"get_weather", R"({"city": "Paris, France", "days": 2})"}}},
      {"defect_utf8_and_controls", "§6.1 ensure_ascii=False escaping", "same", ToolsOnly(),
       {S + "call:f{s:<|\"|>h\xC3\xA9llo\t\x1b\"\\<|\"|>}" + E}, {}, {},
       {{"f", "{\"s\": \"h\xC3\xA9llo\\t\\u001b\\\"\\\\\"}"}}},
  };
  return kFixtures;
}

std::vector<Fixture> AllFixtures() {
  std::vector<Fixture> all;
  for (const auto* table : {&VllmToolParserFixtures(), &VllmToolStreamingFixtures(),
                            &VllmReasoningFixtures(), &DefectFixtures()}) {
    all.insert(all.end(), table->begin(), table->end());
  }
  return all;
}

ParsedMessage Expected(const Fixture& f) {
  ParsedMessage m;
  m.reasoning = f.reasoning;
  m.content = f.content;
  for (size_t i = 0; i < f.calls.size(); ++i) {
    m.tool_calls.push_back(
        {"call_" + std::to_string(i), f.calls[i].name, f.calls[i].arguments, f.calls[i].complete});
  }
  return m;
}

}  // namespace gemmad::parse::testing
