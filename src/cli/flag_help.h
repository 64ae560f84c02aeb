// `--help` text and the Markdown flags table (docs/api.md, README), both generated from the
// same FlagTable that drives parsing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/flag_spec.h"

namespace gemmad::cli {

struct FlagGroup {
  std::string_view title;  // "Frontend (HTTP server and OpenAI API)"
  FlagTable flags;
};

// argparse-like help: usage line, then one entry per flag with type, default and status.
std::string FormatHelp(std::string_view usage, std::string_view description,
                       const std::vector<FlagGroup>& groups);
// Markdown table: | flag | value | default | effect | tested by | meaning |.
std::string FormatMarkdownTable(const std::vector<FlagGroup>& groups);

}  // namespace gemmad::cli
