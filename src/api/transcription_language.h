// The `language` (and `to_language`) fields of the audio routes: ISO 639-1 codes and their
// English names, which Gemma 4's transcription prompt spells out ("in French"). vLLM validates
// the code against the model's table with its message; gemmad's table is every ISO 639-1 code.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/api_error.h"

namespace gemmad::api {

// The English name of an ISO 639-1 code ("fr" -> "French"); nullopt for anything else
// (codes are lowercase, as vLLM compares them).
std::optional<std::string_view> LanguageName(std::string_view code);

// vLLM's error for a code outside the table (HTTP 400, `param` = `field`):
// "Unsupported language: 'xx'.  Must be one of ['aa', 'ab', ...]."
ApiError UnsupportedLanguage(std::string_view code, std::string_view field);

// Python's repr() of a str (quotes chosen as Python does, escapes for \\, \n, \r, \t and other
// control characters), for messages that quote request values as vLLM does.
std::string PyRepr(std::string_view s);

}  // namespace gemmad::api
