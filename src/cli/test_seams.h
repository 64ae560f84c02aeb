// TestSeams: hooks that only the test binary installs. `gemmad-testing` (main.cc built with
// GEMMAD_TEST_SEAMS) installs them before running a subcommand; the release binary `gemmad` never
// does, so no environment variable or flag can reach a seam there (tests/e2e/test_test_seams.py).
#pragma once

#include <functional>
#include <memory>

#include "runner/runner.h"

namespace gemmad::cli {

struct TestSeams {
  // Wraps the serving runner (GEMMAD_TEST_SCRIPTED_OUTPUT, runner/scripted_runner.h); unset: none.
  std::function<std::unique_ptr<runner::Runner>(std::unique_ptr<runner::Runner>)> wrap_runner;
};

// Called once by main before the subcommand runs (test binary only).
void InstallTestSeams(TestSeams seams);
// The installed seams; empty in the release binary.
const TestSeams& InstalledTestSeams();

}  // namespace gemmad::cli
