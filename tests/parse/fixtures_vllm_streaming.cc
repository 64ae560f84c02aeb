// Fixtures for vLLM's TestStreamingExtraction (all versions read: the May 2026 main, the
// later main with whole-call emission, and a PR branch with string-repair heuristics) and the
// #39885 regression class. `chunks` mirrors the kind of split each vLLM test feeds.
#include "fixtures.h"

namespace gemmad::parse::testing {

const std::vector<Fixture>& VllmToolStreamingFixtures() {
  const std::string S = "<|tool_call>", E = "<tool_call|>";
  static const std::vector<Fixture> kFixtures = {
      {"stream_basic", "test_basic_streaming_single_tool", "same", ToolsOnly(),
       {S, "call:lookup{", R"(town:<|"|>Nice)", ", France", R"(<|"|>})", E}, {}, {},
       {{"lookup", R"({"town": "Nice, France"})"}}},
      {"stream_multi_arg", "test_streaming_multi_arg", "same", ToolsOnly(),
       {S, "call:lookup{", R"(town:<|"|>Kyoto<|"|>,)", R"(scale:<|"|>metric<|"|>})", E}, {}, {},
       {{"lookup", R"({"town": "Kyoto", "scale": "metric"})"}}},
      {"stream_no_extra_brace", "test_streaming_no_extra_brace, test_streaming_no_unquoted_keys, "
       "test_streaming_name_no_call_prefix", "same", ToolsOnly(),
       {S, "call:lookup{", R"(town:<|"|>Cork<|"|>})", E}, {}, {},
       {{"lookup", R"({"town": "Cork"})"}}},
      {"stream_text_before", "test_streaming_text_before_tool_call",
       "same (non-streaming content is strip()ped)", ToolsOnly(),
       {"Checking ", "now. ", S, "call:lookup{", R"(town:<|"|>Cork<|"|>})", E}, {},
       "Checking now.", {{"lookup", R"({"town": "Cork"})"}}},
      {"stream_numeric", "test_streaming_numeric_args", "same", ToolsOnly(),
       {S, "call:cfg{", "n:42,", "on:true}", E}, {}, {}, {{"cfg", R"({"n": 42, "on": true})"}}},
      {"stream_split_true", "test_streaming_boolean_split_across_chunks", "same", ToolsOnly(),
       {S, "call:q{in:{all:tr", "ue}}", E}, {}, {}, {{"q", R"({"in": {"all": true}})"}}},
      {"stream_split_false", "test_streaming_false_split_across_chunks", "same", ToolsOnly(),
       {S, "call:q{flag:fal", "se}", E}, {}, {}, {{"q", R"({"flag": false})"}}},
      {"stream_split_number", "test_streaming_number_split_across_chunks", "same", ToolsOnly(),
       {S, "call:q{n:4", "2}", E}, {}, {}, {{"q", R"({"n": 42})"}}},
      {"stream_empty_args", "test_streaming_empty_args", "same", ToolsOnly(),
       {S, "call:status{}", E}, {}, {}, {{"status", "{}"}}},
      {"stream_split_quote_marker", "test_streaming_split_delimiter_no_invalid_json", "same",
       ToolsOnly(), {S, "call:todo{", R"(item:<|"|>Buy eggs<|)", R"("|>})", E}, {}, {},
       {{"todo", R"({"item": "Buy eggs"})"}}},
      {"stream_text_after_call", "test_streaming_does_not_duplicate_plain_text_after_tool_call",
       "same", ToolsOnly(), {S, "call:lookup{", R"(town:<|"|>Oslo<|"|>})", E + "<", "p>"}, {},
       "<p>", {{"lookup", R"({"town": "Oslo"})"}}},
      {"stream_html_argument", "test_streaming_html_argument_does_not_duplicate_tag_prefixes",
       "same", ToolsOnly(),
       {S, "call:save{", R"(path:<|"|>a.html<|"|>,)", R"(body:<|"|><!DOCTYPE html>)" "\n<",
        "body class=\"x\">\n<", "p>\n  <", "br>\n", R"(<|"|>})", E},
       {}, {}, {{"save", R"({"path": "a.html", "body": "<!DOCTYPE html>\n<body class=\"x\">\n<p>\n  <br>\n"})"}}},
      {"stream_trailing_bool", "test_streaming_trailing_bare_bool_not_duplicated", "same",
       ToolsOnly(), {S, "call:Edit{", R"(p:<|"|>a.py<|"|>,)", "all:", "false}", E}, {}, {},
       {{"Edit", R"({"p": "a.py", "all": false})"}}},
      {"stream_string_then_key", "test_streaming_incomplete_string_then_next_key, "
       "test_streaming_multiple_incomplete_strings, test_streaming_complete_string_comma_in_next_chunk",
       "same", ToolsOnly(),
       {S, "call:Edit{", R"(old:<|"|>x with }] y)", R"(<|"|>,new:<|"|>z)", R"(<|"|>,path:<|"|>f.go<|"|>})", E},
       {}, {}, {{"Edit", R"({"old": "x with }] y", "new": "z", "path": "f.go"})"}}},
      {"stream_structural_string_ends", "test_streaming_string_ending_with_withholding_chars, "
       "test_streaming_string_value_ending_with_closing_brace, "
       "test_streaming_string_value_ending_with_closing_bracket, "
       "test_streaming_string_ending_with_multiple_structural_chars, "
       "test_streaming_realistic_code_with_multiple_keys, "
       "test_streaming_very_long_value_with_structural_chars", "same", ToolsOnly(),
       {S, "call:Edit{", R"(a:<|"|>f() { return [1]; })", R"(<|"|>,b:<|"|>v = []<|"|>)",
        R"(,c:<|"|>type T struct {}<|"|>,d:<|"|>g.js<|"|>})", E},
       {}, {}, {{"Edit", R"({"a": "f() { return [1]; }", "b": "v = []", "c": "type T struct {}", "d": "g.js"})"}}},
      {"stream_commas_in_strings", "test_streaming_value_with_comma_then_key_no_space, "
       "test_streaming_value_contains_key_like_pattern, "
       "test_streaming_string_value_ending_with_exact_bug_pattern, "
       "test_streaming_value_with_comma_no_colon, test_streaming_value_ending_with_comma_colon, "
       "test_streaming_search_replace_realistic", "same", ToolsOnly(),
       {S, "call:Edit{", R"(a:<|"|>p,q,r)", R"(<|"|>,b:<|"|>uses },key: here<|"|>)",
        R"(,c:<|"|>m,n:<|"|>,d:<|"|>{a: 1, b: 2}<|"|>})", E},
       {}, {}, {{"Edit", R"({"a": "p,q,r", "b": "uses },key: here", "c": "m,n:", "d": "{a: 1, b: 2}"})"}}},
      {"stream_key_split", "test_streaming_chunk_ends_mid_key_name", "same", ToolsOnly(),
       {S, "call:Edit{", R"(a:<|"|>c<|"|>,pa)", R"(th:<|"|>f<|"|>})", E}, {}, {},
       {{"Edit", R"({"a": "c", "path": "f"})"}}},
      {"stream_empty_string_number", "test_streaming_empty_string_then_next_key, "
       "test_streaming_number_value_then_string_key", "same", ToolsOnly(),
       {S, "call:Edit{", R"(a:<|"|><|"|>,)", R"(line:7,b:<|"|>c)", R"(<|"|>})", E}, {}, {},
       {{"Edit", R"({"a": "", "line": 7, "b": "c"})"}}},
      {"stream_brace_then_key", "test_streaming_withholding_with_identical_suffix_pattern",
       "same (a top-level `}` ends the arguments only right before the end marker)", ToolsOnly(),
       {S, "call:Edit{", R"(a:<|"|>x }])", R"(<|"|>,}],p:<|"|>f<|"|>})", E}, {}, {},
       {{"Edit", R"({"a": "x }]", "}],p": "f"})"}}},
      {"stream_json_chars_values", "test_streaming_json_chars_at_every_boundary", "same",
       ToolsOnly(),
       {S, "call:Edit{", R"(a:<|"|>})", R"(<|"|>,b:<|"|>])", R"(<|"|>,c:<|"|>",)", R"(<|"|>,d:<|"|>ok<|"|>})", E},
       {}, {}, {{"Edit", R"({"a": "}", "b": "]", "c": "\",", "d": "ok"})"}}},
      {"stream_missing_delimiter", "test_streaming_missing_string_delimiter_causes_overconsumption, "
       "test_streaming_partial_mode_string_never_closes",
       "differs from a PR-branch repair heuristic; same as vLLM main: a string runs to the next "
       "`<|\"|>`, the unkeyed rest is dropped", ToolsOnly(),
       {S, "call:Edit{", R"(a:<|"|>x }],p:<|"|>f<|"|>})", E}, {}, {},
       {{"Edit", R"({"a": "x }],p:"})"}}},
      {"stream_repair_heuristic", "test_streaming_malformed_with_comma_colon_pattern, "
       "test_streaming_extra_delimiter_in_value",
       "differs from a PR-branch repair heuristic (not in vLLM main); stray `<|\"|>` never reach "
       "keys", ToolsOnly(), {S, "call:R{", R"(old:<|"|>p,q:<|"|>new<|"|>})", E}, {}, {},
       {{"R", R"({"old": "p,q:"})"}}},
      {"stream_one_delta_call", "test_streaming_complete_tool_call_in_single_delta", "same",
       ToolsOnly(), {R"(<|tool_call>call:station{town:<|"|>Turin<|"|>}<tool_call|>)"}, {}, {},
       {{"station", R"({"town": "Turin"})"}}},
      {"stream_one_delta_two_calls", "test_streaming_multiple_complete_tool_calls_in_single_delta, "
       "test_streaming_multi_chunk_batched_tool_calls", "same", ToolsOnly(),
       {S + "call:a{x:1,y:2}" + E + S + "call:b{z:3}" + E}, {}, {},
       {{"a", R"({"x": 1, "y": 2})"}, {"b", R"({"z": 3})"}}},
      {"stream_parallel_false", "test_streaming_parallel_false_keeps_only_first_call_in_single_delta",
       "same", ParserSetup{.reasoning = false, .parallel_tool_calls = false},
       {S + "call:a{x:1}" + E + S + "call:b{z:3}" + E}, {}, {}, {{"a", R"({"x": 1})"}}},
      {"stream_close_then_open", "test_streaming_close_then_open_in_same_delta; defect #41967",
       "fixed (#41967: vLLM <= May 2026 lost the first call's tail)", ToolsOnly(),
       {S + "call:a{x:1,y:2}", E + S + "call:b{z:3}", E}, {}, {},
       {{"a", R"({"x": 1, "y": 2})"}, {"b", R"({"z": 3})"}}},
      {"stream_truncated_call", "test_streaming_incomplete_tool_call_emits_no_partial_args",
       "differs: we stream the name at `call:NAME{` and the arguments as they come (vLLM May "
       "2026 wire format, api.md §4.4); the later main withholds the whole call. A truncated "
       "call is reported with complete=false", ToolsOnly(), {S, "call:a{", "x:15,y:1"}, {}, {},
       {{"a", R"({"x": 15)", false}}},
      {"stream_no_end_marker", "test_streaming_repairs_final_end_marker_from_token_ids",
       "same outcome from text alone: `}` followed by the end of output completes the call",
       ToolsOnly(), {S, "call:a{x:15,y:1}"}, {}, {}, {{"a", R"({"x": 15, "y": 1})"}}},
      {"stream_split_float", "test_streaming_trailing_dot_float_split_across_chunks, "
       "TestParseGemma4Args.test_trailing_dot_float_partial_withheld (final value)", "same",
       ToolsOnly(), {S, "call:at{lat:108.", "2,lon:22.", "8}", E}, {}, {},
       {{"at", R"({"lat": 108.2, "lon": 22.8})"}}},
      {"stream_split_start_marker", "test_streaming_split_start_delimiter_after_completed_call",
       "same", ToolsOnly(),
       {S, "call:info{", R"(t:<|"|>Pisa<|"|>})" + E + "<", R"(|tool_call>call:info{t:<|"|>Siena<|"|>})", E},
       {}, {}, {{"info", R"({"t": "Pisa"})"}, {"info", R"({"t": "Siena"})"}}},
      {"stream_split_strings", "test_streaming_filename_suffix_preserved_across_chunks, "
       "test_streaming_string_prefix_preserved_across_chunks", "same", ToolsOnly(),
       {S, "call:open{", R"(p:<|"|>lib/util.)", R"(rs<|"|>,m:<|"|>r)", R"(ead<|"|>})", E}, {},
       {}, {{"open", R"({"p": "lib/util.rs", "m": "read"})"}}},
      {"multiturn_reasoning_then_call",
       "TestStreamingReasoningAutoToolIssue39885.test_reasoning_not_leaked_into_content_multiturn; "
       "defect #39885", "fixed (channels are parsed whatever the prompt was)", Both(),
       {"<|channel>", "thought\n", "Check the law db", "<channel|>", S,
        R"(call:search{q:<|"|>privacy rules<|"|>})", E},
       "Check the law db", {}, {{"search", R"({"q": "privacy rules"})"}}},
      {"no_reasoning_parser_call", "TestStreamingReasoningAutoToolIssue39885.test_no_reasoning_parser_still_works",
       "same", ToolsOnly(), {S, R"(call:Tool1{p:<|"|>hey<|"|>})", E}, {}, {},
       {{"Tool1", R"({"p": "hey"})"}}},
  };
  return kFixtures;
}

}  // namespace gemmad::parse::testing
