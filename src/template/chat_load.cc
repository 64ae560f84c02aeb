// --chat-template resolution (vLLM's load_chat_template): a readable file, else an inline
// template (decoded with Python's "unicode_escape" codec as vLLM does), else an error naming the
// path; plus our embedded Gemma 4 template as the fallback for the recipe's relative path.
#include <string>

#include "base/files.h"
#include "base/log.h"
#include "template/chat_template.h"
#include "template/unicode.h"

namespace gemmad::tmpl {
namespace {

constexpr std::string_view kGemma4FileName = "tool_chat_template_gemma4.jinja";

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(c | 0x20);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// codecs.decode(text, "unicode_escape"): the UTF-8 bytes of `text` are read one by one as
// Latin-1 characters (so non-ASCII text turns into mojibake, exactly as in vLLM) and Python
// escape sequences are decoded.
Result<std::string> DecodeUnicodeEscape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c != '\\') {
      internal::AppendCodepoint(out, c);
      continue;
    }
    if (++i >= text.size()) return InvalidArgumentError("--chat-template: \\ at end of string");
    char e = text[i];
    switch (e) {
      case '\n': break;
      case '\\': out.push_back('\\'); break;
      case '\'': out.push_back('\''); break;
      case '"': out.push_back('"'); break;
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'v': out.push_back('\v'); break;
      case 'x':
      case 'u':
      case 'U': {
        int n = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
        uint32_t cp = 0;
        for (int k = 0; k < n; ++k) {
          if (i + 1 >= text.size() || Hex(text[i + 1]) < 0) {
            return InvalidArgumentError(std::string("--chat-template: truncated \\") + e + " escape");
          }
          cp = cp * 16 + static_cast<uint32_t>(Hex(text[++i]));
        }
        if (cp > 0x10FFFF) return InvalidArgumentError("--chat-template: illegal Unicode character");
        internal::AppendCodepoint(out, cp);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t cp = static_cast<uint32_t>(e - '0');
          for (int k = 0; k < 2 && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '7'; ++k) {
            cp = cp * 8 + static_cast<uint32_t>(text[++i] - '0');
          }
          internal::AppendCodepoint(out, cp);
        } else {
          out.push_back('\\');
          internal::AppendCodepoint(out, static_cast<unsigned char>(e));
        }
    }
  }
  return out;
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<ChatTemplate> MakeChatTemplate(std::string_view source, std::string origin) {
  auto tmpl = Template::Compile(source, origin);
  if (!tmpl.ok()) return tmpl.status();
  ChatTemplate ct;
  ct.detected_format = tmpl->iterates_message_content() ? ContentFormat::kOpenAI : ContentFormat::kString;
  ct.tmpl = std::move(tmpl).value();
  ct.origin = std::move(origin);
  return ct;
}

Result<ChatTemplate> LoadChatTemplate(std::string_view path_or_inline) {
  const std::string value(path_or_inline);
  if (FileExists(value) && !IsDirectory(value)) {
    auto text = ReadFileToString(value);
    if (!text.ok()) return text.status().WithPrefix("--chat-template");
    return MakeChatTemplate(*text, value);
  }
  if (BaseName(value) == kGemma4FileName) {
    GEMMAD_LOG_INFO("--chat-template {} does not exist relative to {}; using gemmad's embedded copy "
                    "of {}", value, "the working directory", kGemma4FileName);
    return MakeChatTemplate(EmbeddedGemma4ToolTemplate(), "embedded:" + std::string(kGemma4FileName));
  }
  if (value.find_first_of("{}\n") == std::string::npos) {
    return InvalidArgumentError("The supplied chat template (" + value +
                                ") looks like a file path, but it failed to be opened: " +
                                (IsDirectory(value) ? "it is a directory" : "No such file or directory"));
  }
  auto decoded = DecodeUnicodeEscape(value);
  if (!decoded.ok()) return decoded.status();
  return MakeChatTemplate(*decoded, "inline");
}

std::string_view Gemma4DefaultTemplate() { return EmbeddedGemma4ToolTemplate(); }

}  // namespace gemmad::tmpl
