// Runs every fixture (fixtures.h) with its own split: expected message, valid delta stream,
// vLLM's streaming assertions (name first, arguments concatenate to the JSON); and checks that
// docs/tool-calling.md lists every fixture with its vLLM test and verdict.
#include "fixtures.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace gemmad::parse::testing {
namespace {

class FixtureTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(FixtureTest, GivesTheExpectedMessage) {
  const Fixture& f = GetParam();
  const RunResult r = RunChunks(f.setup, f.chunks);
  EXPECT_EQ(r.message, Expected(f)) << DebugString(r.deltas);
  EXPECT_EQ(CheckStream(r.deltas), "") << DebugString(r.deltas);
  EXPECT_EQ(AssembleMessage(r.deltas).content, r.message.content);
  for (size_t i = 0; i < f.calls.size(); ++i) {
    const int index = static_cast<int>(i);
    EXPECT_EQ(ArgumentsOf(r.deltas, index), f.calls[i].arguments);
    if (f.calls[i].complete) {
      EXPECT_TRUE(nlohmann::json::accept(f.calls[i].arguments)) << f.calls[i].arguments;
    }
  }
}

std::string FixtureName(const ::testing::TestParamInfo<Fixture>& info) { return info.param.id; }

INSTANTIATE_TEST_SUITE_P(VllmToolParser, FixtureTest,
                         ::testing::ValuesIn(VllmToolParserFixtures()), FixtureName);
INSTANTIATE_TEST_SUITE_P(VllmToolStreaming, FixtureTest,
                         ::testing::ValuesIn(VllmToolStreamingFixtures()), FixtureName);
INSTANTIATE_TEST_SUITE_P(VllmReasoning, FixtureTest,
                         ::testing::ValuesIn(VllmReasoningFixtures()), FixtureName);
INSTANTIATE_TEST_SUITE_P(Defects, FixtureTest, ::testing::ValuesIn(DefectFixtures()),
                         FixtureName);

TEST(Fixtures, IdsAreUniqueAndVerdictsKnown) {
  std::set<std::string> ids;
  for (const auto& f : AllFixtures()) {
    EXPECT_TRUE(ids.insert(f.id).second) << f.id;
    const std::string v = f.verdict.substr(0, f.verdict.find_first_of(" :"));
    EXPECT_TRUE(v == "same" || v == "fixed" || v == "kept" || v == "differs" || v == "n/a")
        << f.id << ": " << f.verdict;
  }
}

TEST(Fixtures, DocumentedInToolCallingMd) {
  std::ifstream in(std::string(GEMMAD_SOURCE_DIR) + "/docs/tool-calling.md");
  ASSERT_TRUE(in) << "docs/tool-calling.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (const auto& f : AllFixtures()) {
    // Each fixture has a table row: | vLLM test | `id` | verdict word ...
    const std::string cell = "`" + f.id + "`";
    const size_t at = doc.find(cell);
    ASSERT_NE(at, std::string::npos) << f.id << " is not in docs/tool-calling.md";
    const size_t line_start = doc.rfind('\n', at) + 1;
    const std::string line = doc.substr(line_start, doc.find('\n', at) - line_start);
    const std::string word = f.verdict.substr(0, f.verdict.find_first_of(" :"));
    EXPECT_NE(line.find("| " + word), std::string::npos)
        << f.id << ": the doc row must carry the verdict \"" << word << "\": " << line;
  }
}

}  // namespace
}  // namespace gemmad::parse::testing

namespace gemmad::parse::testing {
namespace {

// Prints the docs/tool-calling.md table rows (run with --gtest_also_run_disabled_tests).
TEST(Fixtures, DISABLED_PrintDocTable) {
  auto escape = [](std::string s) {
    for (size_t p = 0; (p = s.find('|', p)) != std::string::npos; p += 2) s.replace(p, 1, "\\|");
    return s;
  };
  for (const auto& f : AllFixtures()) {
    std::printf("| %s | `%s` | %s |\n", escape(f.vllm).c_str(), f.id.c_str(),
                escape(f.verdict).c_str());
  }
}

}  // namespace
}  // namespace gemmad::parse::testing

namespace gemmad::parse::testing {
namespace {

// Writes every fixture text, behind one split-seed byte, as a fuzz corpus file into the
// directory named by GEMMAD_WRITE_CORPUS (manual: --gtest_also_run_disabled_tests).
TEST(Fixtures, DISABLED_WriteFuzzCorpus) {
  const char* dir = std::getenv("GEMMAD_WRITE_CORPUS");
  ASSERT_NE(dir, nullptr);
  unsigned char seed = 0;
  for (const auto& f : AllFixtures()) {
    std::string text(1, static_cast<char>(seed++ * 37));
    for (const auto& c : f.chunks) text += c;
    std::ofstream(std::string(dir) + "/" + f.id, std::ios::binary) << text;
  }
}

}  // namespace
}  // namespace gemmad::parse::testing
