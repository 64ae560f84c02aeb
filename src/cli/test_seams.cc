// TestSeams storage (see test_seams.h). Written once by main before any thread starts.
#include "cli/test_seams.h"

namespace gemmad::cli {
namespace {

TestSeams& Seams() {
  static TestSeams seams;
  return seams;
}

}  // namespace

void InstallTestSeams(TestSeams seams) { Seams() = std::move(seams); }

const TestSeams& InstalledTestSeams() { return Seams(); }

}  // namespace gemmad::cli
