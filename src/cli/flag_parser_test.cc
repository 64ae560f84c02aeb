// Tests of the vLLM-compatible flag syntax over the real `gemmad serve` table.
#include "cli/flag_parser.h"

#include <gtest/gtest.h>

#include "cli/flag_help.h"
#include "cli/flag_values.h"
#include "cli/serve_flags.h"

namespace gemmad::cli {
namespace {

Result<ParsedFlags> Parse(std::vector<std::string> args) { return ParseFlags(args, ServeFlagTable(), 1); }

TEST(FlagParserTest, PositionalModelAndSpaceAndEqualsValues) {
  auto f = Parse({"google/gemma-4-E2B-it", "--port", "9000", "--max-model-len=16384", "--host", "0.0.0.0"});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->positional, std::vector<std::string>{"google/gemma-4-E2B-it"});
  EXPECT_EQ(f->GetInt("port"), 9000);
  EXPECT_EQ(f->GetInt("max-model-len"), 16384);
  EXPECT_EQ(f->GetString("host"), "0.0.0.0");
  EXPECT_TRUE(f->IsSet("port"));
  EXPECT_FALSE(f->IsSet("seed"));
  EXPECT_EQ(f->GetInt("seed"), 0);  // default from the table
}

TEST(FlagParserTest, UnderscoresEqualDashes) {
  auto f = Parse({"m", "--max_model_len", "4096", "--disable_chunked_mm_input", "--enable_prefix_caching=false"});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->GetInt("max-model-len"), 4096);
  EXPECT_TRUE(f->GetBool("disable-chunked-mm-input"));
  EXPECT_FALSE(f->GetBool("enable-prefix-caching"));
}

TEST(FlagParserTest, BooleanNegation) {
  auto f = Parse({"m"});
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->GetBool("enable-prefix-caching"));
  f = Parse({"m", "--no-enable-prefix-caching"});
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->GetBool("enable-prefix-caching"));
  EXPECT_TRUE(f->IsSet("enable-prefix-caching"));
  f = Parse({"m", "--no-enable-prefix-caching=1"});
  EXPECT_FALSE(f.ok());
  EXPECT_FALSE(Parse({"m", "--no-port"}).ok());  // negation only for booleans
}

TEST(FlagParserTest, ListFlagsTakeSeveralValues) {
  auto f = Parse({"--api-key", "k1", "k2", "--served-model-name", "a", "b", "--port", "1"});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->GetStringList("api-key"), (std::vector<std::string>{"k1", "k2"}));
  EXPECT_EQ(f->GetStringList("served-model-name"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(f->positional.empty());
  EXPECT_FALSE(Parse({"m", "--api-key"}).ok());
}

TEST(FlagParserTest, JsonValuesAndDottedKeys) {
  auto f = Parse({"m", "--default-chat-template-kwargs", R"({"enable_thinking": true})",
                  "--speculative-config", R"({"model":"x","num_speculative_tokens":4})",
                  "--mm-processor-kwargs.max_soft_tokens", "560"});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->GetJson("default-chat-template-kwargs")["enable_thinking"], true);
  EXPECT_EQ(f->GetJson("speculative-config")["num_speculative_tokens"], 4);
  EXPECT_EQ(f->GetJson("mm-processor-kwargs")["max_soft_tokens"], 560);
  EXPECT_FALSE(Parse({"m", "--default-chat-template-kwargs", "{bad"}).ok());
  EXPECT_FALSE(Parse({"m", "--port.x", "1"}).ok());  // not a JSON flag
}

TEST(FlagParserTest, AllThreeMmLimitForms) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"m", "--limit-mm-per-prompt", R"({"image": 4, "audio": 1})"},
           {"m", "--limit-mm-per-prompt", "image=4,audio=1"},
           {"m", "--limit-mm-per-prompt.image", "4", "--limit-mm-per-prompt.audio", "1"},
           {"m", "--limit-mm-per-prompt.image=4", "--limit_mm_per_prompt.audio=1"}}) {
    auto f = Parse(args);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_EQ(f->GetJson("limit-mm-per-prompt"), (nlohmann::json{{"image", 4}, {"audio", 1}})) << args[2];
  }
  EXPECT_FALSE(Parse({"m", "--limit-mm-per-prompt", "image"}).ok());
  EXPECT_FALSE(Parse({"m", "--limit-mm-per-prompt", "image=-1"}).ok());
}

TEST(FlagParserTest, ShortAliases) {
  auto f = Parse({"m", "-tp", "1", "-q", "int4"});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->GetInt("tensor-parallel-size"), 1);
  EXPECT_EQ(f->GetString("quantization"), "int4");
  EXPECT_FALSE(Parse({"m", "-q", "fp8"}).ok());  // not a method gemmad implements
}

TEST(FlagParserTest, UnknownFlagSuggestsTheClosest) {
  auto f = Parse({"m", "--max-modl-len", "5"});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "unrecognized arguments: --max-modl-len (did you mean --max-model-len?)");
  f = Parse({"m", "--totally-unrelated-thing"});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "unrecognized arguments: --totally-unrelated-thing");
  f = Parse({"m", "extra"});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "unrecognized arguments: extra");
}

TEST(FlagParserTest, BadValuesNameTheFlag) {
  auto f = Parse({"m", "--port", "http"});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "argument --port: invalid int value: 'http'");
  f = Parse({"m", "--dtype", "int3"});
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("invalid choice: 'int3'"), std::string::npos);
  f = Parse({"m", "--port"});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "argument --port: expected one argument");
}

TEST(FlagParserTest, NegativeNumbersAreValues) {
  auto f = Parse({"m", "--max-model-len", "-1", "--max-logprobs", "-1"});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->GetInt("max-model-len"), -1);
  EXPECT_EQ(f->GetInt("max-logprobs"), -1);
}

TEST(FlagParserTest, HelpRequests) {
  auto f = Parse({"--help"});
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->help_requested);
  f = Parse({"--help=markdown"});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->help_topic, "markdown");
}

TEST(FlagValuesTest, TokenCountsFollowVllm) {
  EXPECT_EQ(*ParseTokenCountText("32k"), 32000);
  EXPECT_EQ(*ParseTokenCountText("32K"), 32768);
  EXPECT_EQ(*ParseTokenCountText("25.6k"), 25600);
  EXPECT_EQ(*ParseTokenCountText("1M"), 1048576);
  EXPECT_EQ(*ParseTokenCountText("8G"), int64_t{8} << 30);
  EXPECT_EQ(*ParseTokenCountText("16384"), 16384);
  EXPECT_EQ(*ParseTokenCountText("auto"), -1);
  EXPECT_EQ(*ParseTokenCountText("-1"), -1);
  EXPECT_FALSE(ParseTokenCountText("2.5K").ok());
  EXPECT_FALSE(ParseTokenCountText("k").ok());
  EXPECT_FALSE(ParseTokenCountText("12x").ok());
}

TEST(FlagHelpTest, HelpAndMarkdownListEveryFlag) {
  std::string help = FormatHelp("gemmad serve", "desc", ServeFlagGroups());
  std::string md = FormatMarkdownTable(ServeFlagGroups());
  for (const FlagSpec& spec : ServeFlagTable()) {
    std::string flag = "--" + std::string(spec.name);
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
    EXPECT_NE(md.find("`" + flag), std::string::npos) << flag;
  }
  EXPECT_NE(md.find("--no-enable-prefix-caching"), std::string::npos);
}

TEST(FlagTableTest, NamesAreCanonicalAndUnique) {
  std::set<std::string> seen;
  for (const FlagSpec& spec : ServeFlagTable()) {
    EXPECT_EQ(CanonicalFlagName(spec.name), spec.name);
    EXPECT_TRUE(seen.insert(std::string(spec.name)).second) << spec.name;
    EXPECT_FALSE(spec.help.empty()) << spec.name;
  }
}

}  // namespace
}  // namespace gemmad::cli
