#include "io/memory_info.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace gemmad::io {

std::optional<uint64_t> ParseMemAvailable(std::string_view meminfo) {
  constexpr std::string_view kKey = "MemAvailable:";
  size_t at = 0;
  while (at < meminfo.size()) {
    const size_t end = std::min(meminfo.find('\n', at), meminfo.size());
    std::string_view line = meminfo.substr(at, end - at);
    at = end + 1;
    if (line.substr(0, kKey.size()) != kKey) continue;
    line.remove_prefix(kKey.size());
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    uint64_t kib = 0;
    size_t digits = 0;
    for (; digits < line.size() && line[digits] >= '0' && line[digits] <= '9'; ++digits) {
      if (kib > (UINT64_MAX >> 10) / 10) return std::nullopt;
      kib = kib * 10 + static_cast<uint64_t>(line[digits] - '0');
    }
    if (digits == 0 || line.substr(digits) != " kB") return std::nullopt;
    return kib << 10;
  }
  return std::nullopt;
}

std::optional<uint64_t> AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return ParseMemAvailable(text.str());
}

}  // namespace gemmad::io
