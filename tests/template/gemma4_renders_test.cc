// The 150 prompts vLLM builds with its Gemma 4 template (shared/data/templates/gemma4/
// renders.json) must come out of RenderChat byte for byte, with our own template file and with
// the copy embedded in the binary.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "template/chat_template.h"

namespace gemmad::tmpl {
namespace {

Json LoadRows() {
  std::ifstream in(std::string(GEMMAD_SHARED_DIR) + "/data/templates/gemma4/renders.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}

size_t FirstDifference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

void CheckAllRows(const ChatTemplate& chat_template) {
  Json rows = LoadRows();
  ASSERT_EQ(rows.size(), 150u);
  int mismatches = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Json& req = rows[i]["request"];
    RenderOptions options;
    options.add_generation_prompt = req["add_generation_prompt"].get<bool>() &&
                                    !req["continue_final_message"].get<bool>();
    options.continue_final_message = req["continue_final_message"].get<bool>();
    auto prompt = RenderChat(chat_template, req["messages"], req["tools"],
                             req["chat_template_kwargs"], options);
    const std::string want = rows[i]["prompt"].get<std::string>();
    if (!prompt.ok()) {
      ++mismatches;
      ADD_FAILURE() << "row " << i << ": " << prompt.status().ToString();
      continue;
    }
    if (*prompt != want) {
      ++mismatches;
      size_t k = FirstDifference(*prompt, want);
      size_t from = k > 60 ? k - 60 : 0;
      ADD_FAILURE() << "row " << i << " differs at byte " << k << "\n got: ["
                    << prompt->substr(from, 160) << "]\nwant: [" << want.substr(from, 160) << "]";
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Gemma4Renders, ExampleFileReproducesAllVllmPrompts) {
  auto ct = LoadChatTemplate(std::string(GEMMAD_SOURCE_DIR) + "/examples/tool_chat_template_gemma4.jinja");
  ASSERT_TRUE(ct.ok()) << ct.status().ToString();
  EXPECT_EQ(ct->detected_format, ContentFormat::kOpenAI);
  CheckAllRows(*ct);
}

TEST(Gemma4Renders, EmbeddedCopyReproducesAllVllmPrompts) {
  auto ct = LoadChatTemplate("examples/does-not-exist/tool_chat_template_gemma4.jinja");
  ASSERT_TRUE(ct.ok()) << ct.status().ToString();
  EXPECT_EQ(ct->origin, "embedded:tool_chat_template_gemma4.jinja");
  CheckAllRows(*ct);
}

}  // namespace
}  // namespace gemmad::tmpl
