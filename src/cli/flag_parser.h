// Command-line parsing with vLLM's (argparse + FlexibleArgumentParser) syntax, driven by a
// FlagTable: positional arguments, `--flag value`, `--flag=value`, `_` or `-` in names,
// `--no-flag` for booleans, nargs='+' lists, JSON values and dotted sub-keys
// (`--limit-mm-per-prompt.audio 0`), short aliases (`-tp 2`).
// Invariant: after a successful parse every table flag has a value (its default or null).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cli/flag_spec.h"

namespace gemmad::cli {

struct ParsedFlags {
  std::vector<std::string> positional;
  // canonical flag name -> value: bool, integer, float, string, array of strings, object; null
  // when the flag has no default and was not given.
  nlohmann::json values = nlohmann::json::object();
  std::set<std::string> explicitly_set;  // canonical names given on the command line
  bool help_requested = false;
  std::string help_topic;  // "--help=markdown" -> "markdown"

  bool IsSet(std::string_view name) const { return explicitly_set.count(std::string(name)) > 0; }
  bool IsNull(std::string_view name) const;
  bool GetBool(std::string_view name) const;
  int64_t GetInt(std::string_view name) const;
  double GetFloat(std::string_view name) const;
  std::string GetString(std::string_view name) const;  // "" when null
  std::vector<std::string> GetStringList(std::string_view name) const;
  const nlohmann::json& GetJson(std::string_view name) const;  // object or null
};

// Parses `args` (argv without program and subcommand). Errors are InvalidArgument with an
// argparse-like one-line message, e.g. "unrecognized arguments: --max-modl-len (did you mean
// --max-model-len?)" or "argument --port: invalid int value: 'x'".
Result<ParsedFlags> ParseFlags(const std::vector<std::string>& args, FlagTable table,
                               size_t max_positional);

// Canonical spelling of a user-typed flag name: strips leading dashes, '_' -> '-'.
std::string CanonicalFlagName(std::string_view typed);

}  // namespace gemmad::cli
