// Subcommand: one `gemmad <name>` entry. Each src/cli/cmd_<name>.cc defines
// `const Subcommand kCmd_<name>` in namespace gemmad::cli; the table is generated at configure time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gemmad::cli {

struct Subcommand {
  std::string_view name;     // "serve"
  std::string_view summary;  // one line for `gemmad --help`
  // argv without the program and subcommand names. Returns the process exit code:
  // 0 success, 1 runtime failure, 2 bad usage or bad input (one-line message on stderr).
  int (*run)(const std::vector<std::string>& args);
};

}  // namespace gemmad::cli
