// Runs the gemmad binary of this build from a test and captures its exit code, stdout and stderr.
#pragma once

#include <string>
#include <vector>

namespace gemmad::testing_cli {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// Arguments are single-quoted for /bin/sh; the binary is <build>/gemmad.
CliResult RunGemmad(const std::vector<std::string>& args);

}  // namespace gemmad::testing_cli
