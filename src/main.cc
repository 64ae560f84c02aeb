// gemmad entry point: dispatches `gemmad <subcommand> ...` through the generated table.
// The only place that exits the process. Built twice: `gemmad` (release) and `gemmad-testing`
// (GEMMAD_TEST_SEAMS defined: installs the test seams of cli/test_seams.h; tests only).
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "base/strings.h"
#include "cli/subcommand.h"
#include "cli/version.h"
#ifdef GEMMAD_TEST_SEAMS
#include "cli/test_seams.h"
#include "runner/scripted_runner.h"
#endif

namespace gemmad::cli {
#include "cli/subcommand_table.inc"
}  // namespace gemmad::cli

namespace {

void PrintUsage(std::FILE* out) {
  std::fprintf(out, "usage: gemmad <command> [options]\n\ncommands:\n");
  for (const auto* cmd : gemmad::cli::kAllSubcommands) {
    std::fprintf(out, "  %-12.*s %.*s\n", static_cast<int>(cmd->name.size()), cmd->name.data(),
                 static_cast<int>(cmd->summary.size()), cmd->summary.data());
  }
  std::fprintf(out, "\nRun `gemmad <command> --help` for the options of a command.\n");
}

}  // namespace

int main(int argc, char** argv) {
#ifdef GEMMAD_TEST_SEAMS
  auto backend = gemmad::cli::TestBackendFromEnvironment();
  if (!backend.ok()) {
    std::fprintf(stderr, "gemmad-testing: %s\n", backend.status().message().c_str());
    return 2;
  }
  gemmad::cli::InstallTestSeams({.wrap_runner = gemmad::runner::MaybeScripted, .backend = *backend});
#endif
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  std::string_view name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (name == "-v" || name == "--version") {
    std::printf("%.*s\n", static_cast<int>(gemmad::cli::Version().size()), gemmad::cli::Version().data());
    return 0;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  const gemmad::cli::Subcommand* best = nullptr;
  size_t best_dist = ~size_t{0};
  for (const auto* cmd : gemmad::cli::kAllSubcommands) {
    if (cmd->name == name) return cmd->run(args);
    size_t d = gemmad::EditDistance(cmd->name, name);
    if (d < best_dist) {
      best_dist = d;
      best = cmd;
    }
  }
  if (best != nullptr && best_dist <= 2) {
    std::fprintf(stderr, "gemmad: unknown command '%s' (did you mean '%.*s'?)\n", argv[1],
                 static_cast<int>(best->name.size()), best->name.data());
  } else {
    std::fprintf(stderr, "gemmad: unknown command '%s'; run `gemmad --help`\n", argv[1]);
  }
  return 2;
}
