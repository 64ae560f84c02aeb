// Tests only (needs GoogleTest): a per-process path under the test temp dir, so parallel ctest
// processes never share files; every path handed out is removed when the process exits.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace gemmad {

inline std::string TestTempPath(const std::string& name) {
  struct Registry {
    std::vector<std::string> paths;
    ~Registry() {
      for (const auto& p : paths) std::filesystem::remove_all(p);
    }
  };
  static Registry registry;
  registry.paths.push_back((std::filesystem::path(::testing::TempDir()) /
                            (name + "_" + std::to_string(::getpid()))).string());
  return registry.paths.back();
}

}  // namespace gemmad
