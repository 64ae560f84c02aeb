// ScriptedRunner::FindScript: the script file format (TEST ONLY seam, see scripted_runner.h).
#include "runner/scripted_runner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace gemmad::runner {
namespace {

std::string WriteFile(const std::string& text) {
  std::string path = ::testing::TempDir() + "/scripted_runner_test.jsonl";
  std::ofstream(path) << text;
  return path;
}

TEST(ScriptedRunnerTest, LastMatchingLineWins) {
  std::string path = WriteFile(R"({"prompt_ids": [1, 2], "token_ids": [5]}

{"prompt_ids": [1, 2, 3], "token_ids": [6, 7]}
{"prompt_ids": [1, 2], "token_ids": [8, 106]}
)");
  bool found = false;
  auto s = ScriptedRunner::FindScript(path, {1, 2}, &found);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(*s, (std::vector<int32_t>{8, 106}));
  s = ScriptedRunner::FindScript(path, {1, 2, 3}, &found);
  EXPECT_TRUE(found);
  EXPECT_EQ(*s, (std::vector<int32_t>{6, 7}));
  s = ScriptedRunner::FindScript(path, {1}, &found);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(found);
}

TEST(ScriptedRunnerTest, MissingFileAndBadLines) {
  bool found = true;
  auto s = ScriptedRunner::FindScript(::testing::TempDir() + "/no_such_script.jsonl", {1}, &found);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(found);
  std::string path = WriteFile("{\"prompt_ids\": [1]}\n");
  s = ScriptedRunner::FindScript(path, {1}, &found);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(":1: expected"), std::string::npos) << s.status().message();
}

}  // namespace
}  // namespace gemmad::runner
