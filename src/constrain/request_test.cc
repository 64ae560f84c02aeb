// Request-surface parsing and compile errors: precise messages for bad input.
#include "constrain/request.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "constrain/compiled_grammar.h"
#include "constrain/matcher.h"
#include "constrain/testing/small_vocab.h"

namespace gemmad::constrain {
namespace {

using Json = nlohmann::ordered_json;

Result<std::optional<ConstraintSpec>> Parse(const char* body) {
  return ParseRequestConstraint(Json::parse(body), StructuredOutputsConfig{});
}

TEST(Request, ResponseFormatAndStructuredOutputs) {
  auto a = Parse(R"({"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object","properties":{"b":{},"a":{}}},"strict":true}}})");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((*a)->kind, ConstraintKind::kJsonSchema);
  EXPECT_EQ((*a)->json_schema, R"({"type":"object","properties":{"b":{},"a":{}}})");  // order kept
  auto b = Parse(R"({"structured_outputs":{"choice":["x","y"],"disable_any_whitespace":true}})");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->kind, ConstraintKind::kChoice);
  EXPECT_TRUE((*b)->disable_any_whitespace);
  auto c = Parse(R"({"guided_regex":"a+"})");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->regex, "a+");
  auto d = Parse(R"({"response_format":{"type":"text"}})");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->has_value());
  auto e = Parse(R"({"structured_outputs":{"json":"{\"type\":\"integer\"}"}})");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->json_schema, R"({"type":"integer"})");
}

TEST(Request, Errors) {
  EXPECT_EQ(Parse(R"({"response_format":{"type":"json_schema"}})").status().message(),
            "response_format: type json_schema requires the field json_schema");
  EXPECT_EQ(Parse(R"({"structured_outputs":{"json":{},"regex":"a"}})").status().message(),
            "structured_outputs: only one of json, regex, choice, grammar, json_object may be set "
            "(got structured_outputs.json, structured_outputs.regex)");
  EXPECT_EQ(Parse(R"({"structured_outputs":{"choice":[]}})").status().message(),
            "structured_outputs.choice: must be a non-empty array of strings");
  EXPECT_EQ(Parse(R"({"structured_outputs":{"structural_tag":{}}})").status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(Parse(R"({"response_format":{"type":"yaml"}})").status().message(),
            "response_format.type: must be one of text, json_object, json_schema, got \"yaml\"");
  EXPECT_FALSE(ParseStructuredOutputsConfig(R"({"backend":"magic"})").ok());
  // vLLM's validator: each option only where its backend has it.
  EXPECT_EQ(ParseStructuredOutputsConfig(R"({"disable_additional_properties":true})").status().message(),
            "--structured-outputs-config: disable_additional_properties is only supported for the guidance backend.");
  EXPECT_TRUE(ParseStructuredOutputsConfig(R"({"backend":"guidance","disable_additional_properties":true})").ok());
  EXPECT_EQ(ParseStructuredOutputsConfig(R"({"disable_any_whitespace":true})").status().message(),
            "--structured-outputs-config: disable_any_whitespace is only supported for xgrammar and guidance "
            "backends.");
  EXPECT_TRUE(ParseStructuredOutputsConfig(R"({"backend":"xgrammar","disable_any_whitespace":true})").ok());
  auto cfg = ParseStructuredOutputsConfig(R"({"backend":"xgrammar","enable_in_reasoning":true})");
  ASSERT_TRUE(cfg.ok());
  EXPECT_TRUE(cfg->enable_in_reasoning);
}

TEST(Request, ToolChoice) {
  Json tools = Json::parse(R"([{"type":"function","function":{"name":"f","parameters":{"type":"object"}}},
                               {"type":"function","function":{"name":"g"}}])");
  auto r = ToolCallConstraint(tools, Json("required"), true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->tools.size(), 2u);
  EXPECT_EQ((*r)->max_tool_calls, 0);
  auto n = ToolCallConstraint(tools, Json::parse(R"({"type":"function","function":{"name":"g"}})"), true);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ((*n)->tools[0].name, "g");
  EXPECT_EQ((*n)->max_tool_calls, 1);
  EXPECT_FALSE(ToolCallConstraint(tools, Json("auto"), true)->has_value());
  EXPECT_EQ(ToolCallConstraint(tools, Json::parse(R"({"function":{"name":"h"}})"), true).status().message(),
            "tool_choice: function \"h\" is not among the tools");
}

// Whether `text` is a complete match of the request's JSON schema constraint.
bool SchemaAccepts(const StructuredOutputsConfig& config, const std::string& schema, std::string_view text) {
  Json body = {{"structured_outputs", {{"json", Json::parse(schema)}}}};
  auto spec = ParseRequestConstraint(body, config);
  EXPECT_TRUE(spec.ok() && spec->has_value()) << spec.status().ToString();
  auto g = Compile(**spec, testing::SmallVocab());
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  Matcher m(*g);
  return m.AcceptBytes(text) && m.CanTerminate();
}

TEST(Request, ObjectsWithoutAdditionalPropertiesAreClosedAsXgrammarDoes) {
  // vLLM's default backend (auto -> xgrammar) is strict: no keys beyond `properties` unless the
  // schema says `additionalProperties`; guidance follows JSON Schema unless told otherwise.
  const std::string plain = R"({"type":"object","properties":{"a":{"type":"integer"}}})";
  const std::string open = R"({"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":true})";
  StructuredOutputsConfig config;
  for (const char* backend : {"auto", "xgrammar", "outlines"}) {
    config.backend = backend;
    EXPECT_TRUE(ClosesObjectsByDefault(config)) << backend;
    EXPECT_TRUE(SchemaAccepts(config, plain, R"({"a": 1})")) << backend;
    EXPECT_FALSE(SchemaAccepts(config, plain, R"({"a": 1, "b": 2})")) << backend;
    EXPECT_TRUE(SchemaAccepts(config, open, R"({"a": 1, "b": 2})")) << backend;
  }
  config.backend = "guidance";
  EXPECT_FALSE(ClosesObjectsByDefault(config));
  EXPECT_TRUE(SchemaAccepts(config, plain, R"({"a": 1, "b": 2})"));
  config.disable_additional_properties = true;
  EXPECT_FALSE(SchemaAccepts(config, plain, R"({"a": 1, "b": 2})"));
  EXPECT_TRUE(SchemaAccepts(config, open, R"({"a": 1, "b": 2})"));
}

std::string CompileError(ConstraintKind kind, const std::string& text) {
  ConstraintSpec s;
  s.kind = kind;
  s.json_schema = s.regex = s.grammar = text;
  auto g = Compile(s, testing::SmallVocab());
  return g.ok() ? "" : g.status().message();
}

TEST(Compile, PreciseErrors) {
  EXPECT_EQ(CompileError(ConstraintKind::kJsonSchema, R"({"type":"integer","minimum":"3"})"),
            "json_schema: at /minimum: must be a number, got \"3\"");
  EXPECT_EQ(CompileError(ConstraintKind::kJsonSchema, R"({"properties":{"a":{"not":{}}}})"),
            "json_schema: at /properties/a: keyword 'not' is not supported");
  EXPECT_EQ(CompileError(ConstraintKind::kJsonSchema, R"({"$ref":"#/$defs/missing"})"),
            "json_schema: at /: $ref \"#/$defs/missing\" does not resolve");
  EXPECT_EQ(CompileError(ConstraintKind::kJsonSchema, "{"), "json_schema: the schema is not valid JSON");
  EXPECT_EQ(CompileError(ConstraintKind::kRegex, "ab)"), "regex: at offset 2: unbalanced ')'");
  EXPECT_EQ(CompileError(ConstraintKind::kRegex, "(a)\\1"), "regex: at offset 3: a backreference is not supported");
  EXPECT_EQ(CompileError(ConstraintKind::kGrammar, "root ::= valu\nvalue ::= \"x\""),
            "grammar: line 1 col 10: undefined rule 'valu'");
  EXPECT_EQ(CompileError(ConstraintKind::kGrammar, "root ::= root \"a\" | \"b\""),
            "grammar: left recursion is not supported (root -> root); rewrite the rule with repetition");
  EXPECT_EQ(CompileError(ConstraintKind::kGrammar, "foo ::= \"x\""), "grammar: line 1 col 12: no rule named 'root'");
}

}  // namespace
}  // namespace gemmad::constrain
