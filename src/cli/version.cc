// Version string.
#include "cli/version.h"

namespace gemmad::cli {
std::string_view Version() { return "0.1.0"; }
}  // namespace gemmad::cli
