// TestSeams: hooks that only the test binary installs. `gemmad-testing` (main.cc built with
// GEMMAD_TEST_SEAMS) installs them before running a subcommand; the release binary `gemmad` never
// does, so no environment variable or flag can reach a seam there (tests/e2e/test_test_seams.py).
#pragma once

#include <functional>
#include <memory>

#include "base/result.h"
#include "kernels/backend.h"
#include "runner/runner.h"

namespace gemmad::cli {

struct TestSeams {
  // Wraps the serving runner (GEMMAD_TEST_SCRIPTED_OUTPUT, runner/scripted_runner.h); unset: none.
  std::function<std::unique_ptr<runner::Runner>(std::unique_ptr<runner::Runner>)> wrap_runner;
  // The kernels backend `serve` and `generate` run the model on (GEMMAD_TEST_BACKEND=cpu|reference,
  // kernels/backend.h); nullptr: the CPU backend.
  const kernels::Backend* backend = nullptr;
};

inline constexpr const char kTestBackendEnv[] = "GEMMAD_TEST_BACKEND";
// The backend GEMMAD_TEST_BACKEND names (nullptr when unset or empty); InvalidArgument for a name
// no backend has. Read by the test binary's main only.
Result<const kernels::Backend*> TestBackendFromEnvironment();

// Called once by main before the subcommand runs (test binary only).
void InstallTestSeams(TestSeams seams);
// The installed seams; empty in the release binary.
const TestSeams& InstalledTestSeams();

}  // namespace gemmad::cli
