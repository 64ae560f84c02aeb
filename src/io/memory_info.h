// How much memory the system could give this process now, for decisions made at load (whether a
// model's weights may be copied out of their file mapping).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gemmad::io {

// MemAvailable of /proc/meminfo in bytes (free memory plus what the kernel can reclaim, the page
// cache included); nullopt where the file or the field cannot be read.
std::optional<uint64_t> AvailableMemoryBytes();

// The MemAvailable line of a /proc/meminfo text ("MemAvailable:   123456 kB"), in bytes; nullopt
// when absent or malformed. For tests.
std::optional<uint64_t> ParseMemAvailable(std::string_view meminfo);

}  // namespace gemmad::io
