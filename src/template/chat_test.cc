// Unit tests of the chat layer: vLLM message/tool normalisation and its 400 errors, kwargs
// merging and filtering, continue_final_message, content formats, --chat-template loading
// (file, inline, embedded fallback, errors).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "base/files.h"
#include "template/chat_template.h"

namespace gemmad::tmpl {
namespace {

ChatTemplate Make(std::string_view src) {
  auto ct = MakeChatTemplate(src, "test");
  EXPECT_TRUE(ct.ok()) << ct.status().ToString();
  return *ct;
}

Result<std::string> Chat(const ChatTemplate& ct, const char* messages, const Json& kwargs = Json(),
                         RenderOptions options = {}, const char* tools = "null") {
  return RenderChat(ct, Json::parse(messages), Json::parse(tools), kwargs, options);
}

TEST(NormalizeMessages, OpenAIContentParts) {
  auto m = NormalizeMessages(Json::parse(R"([
    {"role": "user", "content": "hi", "name": "ann"},
    {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "x"}},
      {"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}, {"type": "video_url", "video_url": {"url": "v"}},
      {"type": "text", "text": null}, {"type": "input_text", "text": "b", "cache": 1}]},
    {"role": "assistant", "content": null, "reasoning": "r", "reasoning_content": "ignored",
     "tool_calls": [{"id": "1", "type": "function", "function": {"name": "f", "arguments": "{\"x\": [1]}"}},
                    {"id": "2", "type": "function", "function": {"name": "g", "arguments": "not json"}},
                    {"id": "3", "type": "function", "function": {"name": "h", "arguments": "[1]"}},
                    {"id": "4", "type": "function", "function": {"name": "i"}}]},
    {"role": "assistant", "content": "x", "tool_calls": []},
    {"role": "tool", "tool_call_id": "1", "content": [{"type": "text", "text": "l1"}, {"type": "text", "text": "l2"}]},
    {"role": "developer", "content": "d"}])"),
                             ContentFormat::kOpenAI);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Json& v = *m;
  EXPECT_EQ(v[0].dump(), R"({"role":"user","content":[{"type":"text","text":"hi"}],"name":"ann"})");
  EXPECT_EQ(v[1]["content"].dump(),
            R"([{"type":"text","text":"a"},{"type":"image"},{"type":"audio"},{"type":"video"},{"type":"text","text":"b","cache":1}])");
  EXPECT_EQ(v[2]["content"].dump(), "[]");
  EXPECT_EQ(v[2]["reasoning"], "r");
  EXPECT_EQ(v[2]["reasoning_content"], "r");
  EXPECT_EQ(v[2]["tool_calls"][0]["function"]["arguments"].dump(), R"({"x":[1]})");
  EXPECT_EQ(v[2]["tool_calls"][1]["function"]["arguments"].dump(), "{}");
  EXPECT_EQ(v[2]["tool_calls"][2]["function"]["arguments"].dump(), "{}");
  EXPECT_EQ(v[2]["tool_calls"][3]["function"]["arguments"].dump(), "{}");
  EXPECT_FALSE(v[3].contains("tool_calls"));
  EXPECT_EQ(v[4].dump(), R"({"role":"tool","content":"l1\nl2","tool_call_id":"1"})");
  EXPECT_TRUE(v[5]["tools"].is_null());
}

TEST(NormalizeMessages, StringFormatJoinsText) {
  auto m = NormalizeMessages(
      Json::parse(R"([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "x"}}, {"type": "text", "text": "b"}]}])"),
      ContentFormat::kString);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((*m)[0]["content"], "a\nb");
}

TEST(NormalizeMessages, BadRequestsNameTheField) {
  struct Case {
    const char* json;
    const char* message;
  } cases[] = {
      {R"({"role": "user"})", "messages: expected an array"},
      {R"([{"content": "x"}])", "messages[0].role: expected a string"},
      {R"([{"role": "user", "content": 5}])", "messages[0].content: expected a string, an array of content parts or null"},
      {R"([{"role": "user", "content": [{"type": "file"}]}])", "messages[0].content[0].type: unsupported chat content part type 'file'"},
      {R"([{"role": "user", "content": [{"text": "x"}]}])", "messages[0].content[0]: missing 'type' field in content part"},
      {R"([{"role": "user", "content": [{"type": "text", "text": 3}]}])", "messages[0].content[0].text: expected a string"},
      {R"([{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}])", "messages[0].tool_calls[0].function.name: expected a string"},
      {R"([{"role": "assistant", "tool_calls": {"x": 1}}])", "messages[0].tool_calls: expected an array"},
      {R"([{"role": "assistant", "reasoning": 7}])", "messages[0].reasoning: expected a string"},
  };
  for (const auto& c : cases) {
    auto m = NormalizeMessages(Json::parse(c.json), ContentFormat::kOpenAI);
    ASSERT_FALSE(m.ok()) << c.json;
    EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(m.status().message().rfind(c.message, 0), 0u) << m.status().message();
  }
}

TEST(NormalizeTools, DumpsLikeVllm) {
  auto t = NormalizeTools(Json::parse(R"([{"type": "function", "function": {"strict": true, "name": "f"}}])"));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->dump(), R"([{"type":"function","function":{"name":"f","description":null,"parameters":null,"strict":true}}])");
  EXPECT_TRUE(NormalizeTools(Json())->is_null());
  EXPECT_FALSE(NormalizeTools(Json::parse(R"([{"type": "function", "function": {}}])")).ok());
  EXPECT_FALSE(NormalizeTools(Json::parse(R"({"a": 1})")).ok());
  auto bad = NormalizeTools(Json::parse(R"([{"function": {"name": "f", "parameters": "x"}}])"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "tools[0].function.parameters: expected an object");
}

TEST(RenderChat, DeeplyNestedRequestsAreRejected) {
  ChatTemplate ct = Make(EmbeddedGemma4ToolTemplate());
  std::string deep = std::string(50000, '[') + std::string(50000, ']');
  Json tools = Json::parse(R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"default": 1}}}}}])");
  tools[0]["function"]["parameters"]["properties"]["a"]["default"] = Json::parse(deep);
  auto r = RenderChat(ct, Json::parse(R"([{"role": "user", "content": "x"}])"), tools, Json(), RenderOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tools: JSON nested deeper"), std::string::npos) << r.status().message();
  Json messages = Json::parse(R"([{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}])");
  messages[0]["tool_calls"][0]["function"]["arguments"]["x"] = Json::parse(deep);
  EXPECT_FALSE(RenderChat(ct, messages, Json(), Json(), RenderOptions{}).ok());
  EXPECT_FALSE(RenderChat(ct, Json::parse(R"([{"role": "user", "content": "x"}])"), Json(),
                          Json{{"k", Json::parse(deep)}}, RenderOptions{}).ok());
}

TEST(RenderChat, KwargsMergeAndFilter) {
  ChatTemplate ct = Make("{{ enable_thinking }}|{{ other }}|{{ bos_token }}|{{ add_generation_prompt }}");
  RenderOptions opt;
  opt.default_kwargs = Json::parse(R"({"enable_thinking": true, "other": "dflt"})");
  EXPECT_EQ(*Chat(ct, "[]", Json::parse(R"({"other": "req", "unused": 1})"), opt), "True|req|<bos>|True");
  EXPECT_EQ(*Chat(ct, "[]", Json::parse(R"({"enable_thinking": null})"), opt), "True|dflt|<bos>|True");
  EXPECT_EQ(*Chat(ct, "[]", Json::parse(R"({"enable_thinking": false, "bos_token": "B"})"), opt), "False|dflt|B|True");
  EXPECT_EQ(*Chat(ct, "[]", Json::parse(R"({"add_generation_prompt": false})"), opt), "True|dflt|<bos>|True");
  for (const char* bad : {R"({"tokenize": false})", R"({"chat_template": "x"})"}) {
    auto r = Chat(ct, "[]", Json::parse(bad), opt);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("unexpected chat template kwargs"), std::string::npos);
  }
  EXPECT_FALSE(Chat(ct, "[]", Json::parse("[1]")).ok());
}

TEST(RenderChat, ContinueFinalMessage) {
  ChatTemplate ct = Make(
      "{% for m in messages %}<{{ m.role }}>{% for p in m.content %}{{ p.text | trim }}{% endfor %}</{{ m.role }}>\n{% endfor %}"
      "{% if add_generation_prompt %}<assistant>{% endif %}");
  RenderOptions opt;
  opt.add_generation_prompt = false;
  opt.continue_final_message = true;
  auto r = Chat(ct, R"([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "The answer is "}])", Json(), opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "<user>Hi</user>\n<assistant>The answer is");
  opt.add_generation_prompt = true;
  EXPECT_FALSE(Chat(ct, R"([{"role": "user", "content": "Hi"}])", Json(), opt).ok());
  opt.add_generation_prompt = false;
  EXPECT_FALSE(Chat(ct, "[]", Json(), opt).ok());
  EXPECT_FALSE(Chat(ct, R"([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}])", Json(), opt).ok());
  ChatTemplate drops = Make("{% for m in messages %}{{ m.role }}{% endfor %}");
  EXPECT_FALSE(Chat(drops, R"([{"role": "user", "content": "Hi"}])", Json(), opt).ok());
}

TEST(RenderChat, Gemma4ThinkingAndErrors) {
  ChatTemplate ct = Make(EmbeddedGemma4ToolTemplate());
  EXPECT_EQ(*Chat(ct, R"([{"role": "user", "content": "Hello!"}])"),
            "<bos><|turn>user\nHello!<turn|>\n<|turn>model\n<|channel>thought\n<channel|>");
  RenderOptions thinking;
  thinking.default_kwargs = Json::parse(R"({"enable_thinking": true})");
  EXPECT_EQ(*Chat(ct, R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 17*23?"}])", Json(), thinking),
            "<bos><|turn>system\n<|think|>\nBe brief. <turn|>\n<|turn>user\nWhat is 17*23?<turn|>\n<|turn>model\n");
  auto empty = Chat(ct, "[]");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
}

TEST(LoadChatTemplate, FileInlineEmbeddedAndErrors) {
  std::string dir = testing::TempDir();
  std::string path = JoinPath(dir, "t.jinja");
  ASSERT_TRUE(WriteStringToFile(path, "{{ messages|length }}").ok());
  auto from_file = LoadChatTemplate(path);
  ASSERT_TRUE(from_file.ok());
  EXPECT_EQ(from_file->origin, path);
  EXPECT_EQ(from_file->detected_format, ContentFormat::kString);

  auto inline_t = LoadChatTemplate("{{ 'a' }}\\n{{ 'é' }}\\u00e9");
  ASSERT_TRUE(inline_t.ok()) << inline_t.status().ToString();
  EXPECT_EQ(inline_t->origin, "inline");
  // vLLM decodes inline templates with Python's unicode_escape codec: escapes are decoded and
  // raw non-ASCII bytes become Latin-1 characters.
  EXPECT_EQ(*inline_t->tmpl.Render(Json::object()), "a\n\xC3\x83\xC2\xA9\xC3\xA9");

  auto missing = LoadChatTemplate("/no/such/template.jinja");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/no/such/template.jinja"), std::string::npos);

  auto embedded = LoadChatTemplate("examples/tool_chat_template_gemma4.jinja.nope/tool_chat_template_gemma4.jinja");
  ASSERT_TRUE(embedded.ok());
  EXPECT_EQ(embedded->origin, "embedded:tool_chat_template_gemma4.jinja");
  EXPECT_EQ(embedded->detected_format, ContentFormat::kOpenAI);

  auto bad_syntax = LoadChatTemplate("{% if %}");
  EXPECT_FALSE(bad_syntax.ok());
  EXPECT_TRUE(MakeChatTemplate(Gemma4DefaultTemplate(), "default").ok());
}

TEST(LoadChatTemplate, EmbeddedCopyEqualsExampleFile) {
  auto file = ReadFileToString(std::string(GEMMAD_SOURCE_DIR) + "/examples/tool_chat_template_gemma4.jinja");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(*file, EmbeddedGemma4ToolTemplate())
      << "run scripts/golden/template/embed_template.py after editing the example template";
}

TEST(ContentFormat, Parse) {
  EXPECT_EQ(*ParseContentFormat("auto"), ContentFormat::kAuto);
  EXPECT_EQ(*ParseContentFormat("openai"), ContentFormat::kOpenAI);
  EXPECT_EQ(*ParseContentFormat("string"), ContentFormat::kString);
  EXPECT_FALSE(ParseContentFormat("xml").ok());
}

}  // namespace
}  // namespace gemmad::tmpl
