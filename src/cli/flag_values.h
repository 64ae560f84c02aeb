// Conversions from command-line text to flag values (one function per FlagType), with argparse-
// style error messages naming the flag. Shared by the parser and by default values in tables.
#pragma once

#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cli/flag_spec.h"

namespace gemmad::cli {

// "true/false/1/0/yes/no/on/off" (any case).
Result<bool> ParseBoolText(std::string_view text);
Result<int64_t> ParseIntText(std::string_view text);
Result<double> ParseFloatText(std::string_view text);
// vLLM's human_readable_int: "32k" = 32000, "25.6k" = 25600, "32K" = 32768 (k/m/g/t decimal,
// K/M/G/T binary, no decimals with binary suffixes); also a plain integer ("-1" allowed).
// "auto" gives -1 (vLLM's human_readable_int_or_auto).
Result<int64_t> ParseTokenCountText(std::string_view text);
// --limit-mm-per-prompt: a JSON object ('{"image": 4}'), or "image=4,audio=1" (v0.9 syntax).
Result<nlohmann::json> ParseMmLimitsText(std::string_view text);
// Parses `text` as a value of `spec`'s type (not kStringList/kBool lists). Errors name the flag:
// "argument --port: invalid int value: 'abc'".
Result<nlohmann::json> ParseFlagValue(const FlagSpec& spec, std::string_view text);
// A dotted sub-key value: JSON when it parses as JSON, else the string itself.
nlohmann::json ParseLooseJson(std::string_view text);

}  // namespace gemmad::cli
