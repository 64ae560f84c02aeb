// vLLM's request normalisation before templating (vllm/entrypoints/chat_utils.py:
// _parse_chat_message_content, _postprocess_messages; tool dumps), as observed in
// shared/data/templates/gemma4/README.md: content becomes a list of typed parts ("openai"
// format) or one string ("string" format), tool messages get joined text, assistant tool-call
// arguments become objects, `reasoning` is mirrored into `reasoning_content`.
#include <string>

#include "template/chat_template.h"

namespace gemmad::tmpl {
namespace {

std::string Where(size_t i) { return "messages[" + std::to_string(i) + "]"; }

// Part fields vLLM knows; any other key of a part is copied onto the normalised part.
bool KnownPartKey(const std::string& k) {
  static const char* const kKnown[] = {"type", "text", "refusal", "thinking", "closed", "image_url",
                                       "image_pil", "image_embeds", "audio_embeds", "input_audio",
                                       "audio_url", "video_url", "uuid", "detail"};
  for (const char* known : kKnown) {
    if (k == known) return true;
  }
  return false;
}

// Returns "text", "image", "audio" or "video" for a part type (or the direct-URL form without
// `type`), or an error.
Result<std::string> PartKind(const Json& part, const std::string& where) {
  auto type_it = part.find("type");
  if (type_it == part.end() || type_it->is_null()) {
    if (part.contains("image_url") || part.contains("image_pil") || part.contains("image_embeds")) return std::string("image");
    if (part.contains("audio_url") || part.contains("audio_embeds")) return std::string("audio");
    if (part.contains("input_audio") && !part["input_audio"].is_null()) return std::string("audio");
    if (part.contains("video_url")) return std::string("video");
    return InvalidArgumentError(where + ": missing 'type' field in content part");
  }
  if (!type_it->is_string()) return InvalidArgumentError(where + ".type: expected a string");
  const std::string& t = type_it->get_ref<const std::string&>();
  if (t == "text" || t == "input_text" || t == "output_text" || t == "refusal" || t == "thinking") {
    return std::string("text");
  }
  if (t == "image_url" || t == "input_image" || t == "image_pil" || t == "image_embeds") return std::string("image");
  if (t == "audio_url" || t == "input_audio" || t == "audio_embeds") return std::string("audio");
  if (t == "video_url") return std::string("video");
  return InvalidArgumentError(where + ".type: unsupported chat content part type '" + t +
                              "' (supported: text, input_text, output_text, refusal, thinking, "
                              "image_url, input_image, audio_url, input_audio, video_url)");
}

// Content as a list of normalised parts; text parts whose text is null are dropped.
Result<Json> NormalizeParts(const Json& content, const std::string& where) {
  Json parts = Json::array();
  if (content.is_null()) return parts;
  if (content.is_string()) {
    parts.push_back(Json{{"type", "text"}, {"text", content}});
    return parts;
  }
  if (!content.is_array()) return InvalidArgumentError(where + ": expected a string, an array of content parts or null");
  for (size_t j = 0; j < content.size(); ++j) {
    const Json& part = content[j];
    std::string pw = where + "[" + std::to_string(j) + "]";
    if (part.is_string()) {
      parts.push_back(Json{{"type", "text"}, {"text", part}});
      continue;
    }
    if (!part.is_object()) return InvalidArgumentError(pw + ": expected an object or a string");
    auto kind = PartKind(part, pw);
    if (!kind.ok()) return kind.status();
    Json out;
    if (*kind == "text") {
      std::string type = part.value("type", std::string("text"));
      std::string field = type == "refusal" ? "refusal" : (type == "thinking" ? "thinking" : "text");
      auto it = part.find(field);
      if (it == part.end() || it->is_null()) {
        if (type == "text" || type == "refusal") continue;
        return InvalidArgumentError(pw + "." + field + ": expected a string");
      }
      if (!it->is_string()) return InvalidArgumentError(pw + "." + field + ": expected a string");
      out = Json{{"type", "text"}, {"text", *it}};
    } else {
      out = Json{{"type", *kind}};
    }
    for (auto it = part.begin(); it != part.end(); ++it) {
      if (!KnownPartKey(it.key())) out[it.key()] = it.value();
    }
    parts.push_back(std::move(out));
  }
  return parts;
}

// Python json.loads of tool-call arguments; anything but an object becomes {} (vLLM logs and
// continues).
Json ParseArguments(const Json& args) {
  if (args.is_object()) return args;
  if (args.is_array()) return args;
  if (!args.is_string()) return Json::object();
  Json parsed = Json::parse(args.get_ref<const std::string&>(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) return Json::object();
  return parsed;
}

Result<Json> NormalizeToolCalls(const Json& calls, const std::string& where) {
  if (!calls.is_array()) return InvalidArgumentError(where + ": expected an array");
  Json out = Json::array();
  for (size_t k = 0; k < calls.size(); ++k) {
    std::string cw = where + "[" + std::to_string(k) + "]";
    Json call = calls[k];
    if (!call.is_object()) return InvalidArgumentError(cw + ": expected an object");
    auto fn = call.find("function");
    if (fn == call.end() || !fn->is_object()) return InvalidArgumentError(cw + ".function: expected an object");
    auto name = fn->find("name");
    if (name == fn->end() || !name->is_string()) return InvalidArgumentError(cw + ".function.name: expected a string");
    Json args = fn->contains("arguments") ? (*fn)["arguments"] : Json();
    (*fn)["arguments"] = ParseArguments(args);
    out.push_back(std::move(call));
  }
  return out;
}

Result<Json> NormalizeMessage(const Json& m, size_t i, ContentFormat format) {
  const std::string where = Where(i);
  if (!m.is_object()) return InvalidArgumentError(where + ": expected an object");
  auto role_it = m.find("role");
  if (role_it == m.end() || !role_it->is_string()) return InvalidArgumentError(where + ".role: expected a string");
  const std::string role = *role_it;
  auto parts = NormalizeParts(m.contains("content") ? m["content"] : Json(), where + ".content");
  if (!parts.ok()) return parts.status();
  Json out;
  out["role"] = role;
  if (format == ContentFormat::kString) {
    std::string text;
    bool first = true;
    for (const auto& p : *parts) {
      if (p["type"] != "text") continue;
      if (!first) text += "\n";
      text += p["text"].get<std::string>();
      first = false;
    }
    out["content"] = text;
  } else {
    out["content"] = *parts;
  }
  if (role == "assistant") {
    auto calls = m.find("tool_calls");
    if (calls != m.end() && !calls->is_null()) {
      if (calls->is_array() && calls->empty()) {
        // an empty list is dropped so templates take the plain-assistant path
      } else {
        auto normalized = NormalizeToolCalls(*calls, where + ".tool_calls");
        if (!normalized.ok()) return normalized.status();
        out["tool_calls"] = std::move(normalized).value();
      }
    }
    auto reasoning = m.find("reasoning");
    if (reasoning != m.end() && !reasoning->is_null()) {
      if (!reasoning->is_string()) return InvalidArgumentError(where + ".reasoning: expected a string");
      out["reasoning"] = *reasoning;
      out["reasoning_content"] = *reasoning;
    }
  } else if (role == "tool") {
    if (m.contains("tool_call_id")) out["tool_call_id"] = m["tool_call_id"];
    Json& content = out["content"];
    if (content.is_array()) {
      bool all_text = true;
      for (const auto& p : content) all_text = all_text && p["type"] == "text";
      if (all_text) {
        std::string text;
        for (size_t k = 0; k < content.size(); ++k) {
          if (k > 0) text += "\n";
          text += content[k]["text"].get<std::string>();
        }
        content = text;
      }
    }
  }
  auto name = m.find("name");
  if (name != m.end() && name->is_string()) out["name"] = *name;
  if (role == "developer") out["tools"] = m.contains("tools") ? m["tools"] : Json();
  return out;
}

}  // namespace

Result<Json> NormalizeMessages(const Json& request_messages, ContentFormat format) {
  if (!request_messages.is_array()) return InvalidArgumentError("messages: expected an array");
  GEMMAD_RETURN_IF_ERROR(CheckJsonDepth(request_messages, "messages"));
  Json out = Json::array();
  for (size_t i = 0; i < request_messages.size(); ++i) {
    auto m = NormalizeMessage(request_messages[i], i, format);
    if (!m.ok()) return m.status();
    out.push_back(std::move(m).value());
  }
  return out;
}

Result<Json> NormalizeTools(const Json& tools_or_null) {
  if (tools_or_null.is_null()) return Json();
  if (!tools_or_null.is_array()) return InvalidArgumentError("tools: expected an array or null");
  GEMMAD_RETURN_IF_ERROR(CheckJsonDepth(tools_or_null, "tools"));
  Json out = Json::array();
  for (size_t i = 0; i < tools_or_null.size(); ++i) {
    const Json& t = tools_or_null[i];
    std::string where = "tools[" + std::to_string(i) + "]";
    if (!t.is_object()) return InvalidArgumentError(where + ": expected an object");
    auto fn = t.find("function");
    if (fn == t.end() || !fn->is_object()) return InvalidArgumentError(where + ".function: expected an object");
    auto name = fn->find("name");
    if (name == fn->end() || !name->is_string()) return InvalidArgumentError(where + ".function.name: expected a string");
    Json dumped;
    dumped["name"] = *name;
    dumped["description"] = fn->contains("description") ? (*fn)["description"] : Json();
    if (!dumped["description"].is_null() && !dumped["description"].is_string()) {
      return InvalidArgumentError(where + ".function.description: expected a string");
    }
    dumped["parameters"] = fn->contains("parameters") ? (*fn)["parameters"] : Json();
    if (!dumped["parameters"].is_null() && !dumped["parameters"].is_object()) {
      return InvalidArgumentError(where + ".function.parameters: expected an object");
    }
    for (auto it = fn->begin(); it != fn->end(); ++it) {
      if (it.key() != "name" && it.key() != "description" && it.key() != "parameters") dumped[it.key()] = it.value();
    }
    out.push_back(Json{{"type", "function"}, {"function", std::move(dumped)}});
  }
  return out;
}

}  // namespace gemmad::tmpl
