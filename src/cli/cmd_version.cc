// `gemmad version`: prints the version.
#include <cstdio>

#include "cli/subcommand.h"
#include "cli/version.h"

namespace gemmad::cli {
namespace {
int RunVersion(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::fprintf(stderr, "gemmad version: takes no arguments\n");
    return 2;
  }
  std::printf("%.*s\n", static_cast<int>(Version().size()), Version().data());
  return 0;
}
}  // namespace

extern const Subcommand kCmd_version;
const Subcommand kCmd_version{"version", "print the gemmad version", &RunVersion};
}  // namespace gemmad::cli
