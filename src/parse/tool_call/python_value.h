// Typing of a bare (undelimited) Gemma 4 argument value as vLLM does it (chat-format.md §6.1),
// written as JSON the way Python's json.dumps writes the resulting object.
#pragma once

#include <string>
#include <string_view>

namespace gemmad::parse {

// `raw` is the text of a bare value (up to its terminator). After Python strip():
//   "true"/"false" -> true/false; "null"/"none"/"nil" (any case) -> null;
//   contains '.' -> Python float(): repr (1.50 -> 1.5, 1. -> 1.0, 1.5e3 -> 1500.0);
//   otherwise Python int(): canonical digits (007 -> 7, +5 -> 5, 1_000 -> 1000);
//   anything else (1e5, abc, a non-finite float such as 1.0e999) -> a JSON string of the text.
// vLLM writes a non-finite float as the invalid JSON `Infinity`/`NaN`; we keep the text.
std::string BareValueToJson(std::string_view raw);

// Python repr() of a finite double (shortest round-trip digits; fixed notation when the decimal
// exponent is in (-4, 16], else d.ddde+XX), as json.dumps writes floats.
std::string PyFloatRepr(double value);

}  // namespace gemmad::parse
