// The gemmad version string reported by `gemmad --version` and GET /version.
#pragma once

#include <string_view>

namespace gemmad::cli {
std::string_view Version();
}  // namespace gemmad::cli
