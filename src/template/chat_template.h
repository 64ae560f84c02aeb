// Public API of the template module: compile a Jinja chat template (HF/transformers dialect,
// sandboxed), render it with a JSON context, and render a whole chat request the way vLLM does
// (message normalisation, kwargs filtering, continue_final_message) before templating.
// Namespace note: `template` is a C++ keyword, so the module's namespace is gemmad::tmpl.
// Invariant: a compiled Template is immutable and safe to render from many threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace gemmad::tmpl {

// JSON type used for every context/request value: key order is preserved as in the request
// (Python dict order), which matters for `tojson`, `items()` and dict printing.
using Json = nlohmann::ordered_json;

// Bounds that make rendering of any template terminate (sandbox). Exceeding one is an
// InvalidArgument error naming the limit.
struct RenderLimits {
  size_t max_output_bytes = size_t{64} << 20;  // total rendered text, including buffers
  uint64_t max_steps = 20'000'000;             // evaluated nodes + loop iterations
  int max_call_depth = 256;                    // macro/caller/loop() recursion depth
  // (independently, expression/statement nesting is bounded so that a render needs < 1 MiB of
  // native stack)
};

struct TemplateRenderOptions {
  RenderLimits limits;
  // Seconds since the Unix epoch returned by strftime_now (for reproducible tests); unset =
  // the system clock, local time (as Python's datetime.now()).
  std::optional<int64_t> fixed_time_unix;
};

namespace internal {
struct Program;  // parsed template (AST); defined in template/ast.h
}  // namespace internal

// A compiled Jinja template. Cheap to copy (shares the immutable AST).
class Template {
 public:
  // Parses `source`. Syntax errors are InvalidArgument with "<name>:<line>:<column>: <what>".
  static Result<Template> Compile(std::string_view source, std::string_view name = "template");

  // Renders with `context` (must be a JSON object; its keys become template variables).
  // Runtime errors (raise_exception, undefined attribute access, type errors, sandbox
  // violations, limits) are InvalidArgument with "<name>:<line>:<column>: <what>".
  Result<std::string> Render(const Json& context, const TemplateRenderOptions& options = {}) const;

  const std::string& source() const;
  const std::string& name() const;
  // A Render error's text without its "<name>:<line>:<column>: " prefix: what Jinja's exception
  // says (vLLM answers a client that text; the location is for the server log). Other
  // messages are returned unchanged.
  std::string_view WithoutLocation(std::string_view message) const;
  // Top-level names the template reads without assigning them first (what
  // jinja2.meta.find_undeclared_variables reports), sorted.
  const std::vector<std::string>& undeclared_variables() const;
  // True when the template loops over a message's `content` (vLLM's "openai" content format).
  bool iterates_message_content() const;
  // True when the template reads a variable of that name anywhere.
  bool ReadsVariable(std::string_view variable) const;

  Template() = default;

 private:
  explicit Template(std::shared_ptr<const internal::Program> program)
      : program_(std::move(program)) {}
  std::shared_ptr<const internal::Program> program_;
};

// How messages' `content` is passed to the template (vLLM --chat-template-content-format).
enum class ContentFormat {
  kAuto,    // detect from the template (openai if it iterates message content, else string)
  kString,  // text parts joined with "\n" into one string
  kOpenAI,  // list of {"type": ...} parts
};
// Parses "auto" / "string" / "openai".
Result<ContentFormat> ParseContentFormat(std::string_view name);

// A chat template ready for RenderChat: the compiled template plus where it came from.
struct ChatTemplate {
  Template tmpl;
  std::string origin;  // file path, "inline", "embedded:<name>" or "checkpoint"
  ContentFormat detected_format = ContentFormat::kString;  // what kAuto resolves to
};

// Compiles a template text (from a checkpoint's chat_template.jinja / tokenizer_config.json or
// an inline --chat-template value).
Result<ChatTemplate> MakeChatTemplate(std::string_view source, std::string origin);

// --chat-template VALUE, as vLLM's load_chat_template: an existing file is read; a value that
// does not name a readable file but contains any of "{", "}", "\n" is an inline template
// (Python unicode-escape sequences such as "\n" in it are decoded); otherwise an error naming
// the path. Exception: when VALUE's file name is tool_chat_template_gemma4.jinja (the recipe's
// examples/ path) and the file does not exist, the copy embedded in the binary is used and a
// log line says so.
Result<ChatTemplate> LoadChatTemplate(std::string_view path_or_inline);

// Our Gemma 4 tool-calling template (examples/tool_chat_template_gemma4.jinja), embedded.
std::string_view EmbeddedGemma4ToolTemplate();
// The template used for a Gemma 4 checkpoint that ships no chat template.
std::string_view Gemma4DefaultTemplate();

struct RenderOptions {
  bool add_generation_prompt = true;
  bool continue_final_message = false;
  // Template variables for special tokens, e.g. {"bos_token","<bos>"}, {"eos_token","<eos>"},
  // {"pad_token","<pad>"}, {"unk_token","<unk>"}; set from the tokenizer. Defaults: Gemma 4.
  std::vector<std::pair<std::string, std::string>> special_tokens = {
      {"bos_token", "<bos>"}, {"eos_token", "<eos>"}, {"pad_token", "<pad>"},
      {"unk_token", "<unk>"}};
  // --default-chat-template-kwargs (a JSON object, or null); request kwargs win.
  Json default_kwargs = nullptr;
  // --chat-template-content-format.
  ContentFormat content_format = ContentFormat::kAuto;
  TemplateRenderOptions template_options;
};

// Renders a chat request as vLLM does: normalises `request_messages` (OpenAI messages array,
// as received) and `tools_or_null` (OpenAI tools array or null), merges default and request
// `chat_template_kwargs` (an object or null; keys the template does not reference are dropped;
// "chat_template" and "tokenize" are rejected), then renders. With continue_final_message the
// prompt is cut right after the final message's text. Errors are InvalidArgument with a message
// fit for an HTTP 400 body (e.g. "messages[2].tool_calls[0].function.name: expected a string").
Result<std::string> RenderChat(const ChatTemplate& chat_template, const Json& request_messages,
                               const Json& tools_or_null, const Json& chat_template_kwargs,
                               const RenderOptions& options);

// InvalidArgument when `value` nests deeper than the engine accepts (about 250 levels); checked
// without recursion, before anything else touches a request.
Status CheckJsonDepth(const Json& value, const std::string& what);

// The normalisation step alone (what the template sees as `messages`), for tests and /tokenize.
Result<Json> NormalizeMessages(const Json& request_messages, ContentFormat format);
// vLLM's tool dump: [{"type":"function","function":{"name","description"(or null),
// "parameters"(or null), ...extra keys}}]; null stays null (and [] stays []).
Result<Json> NormalizeTools(const Json& tools_or_null);

}  // namespace gemmad::tmpl
