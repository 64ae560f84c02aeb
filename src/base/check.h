// GEMMAD_CHECK: aborts with file:line and a formatted message when an invariant is broken.
// GEMMAD_DCHECK: the same, compiled only in debug builds or with GEMMAD_ENABLE_DCHECK.
// Expected failures (bad input, missing files) are Status values, never checks.
#pragma once

#include <fmt/format.h>

#include <string>

namespace gemmad::internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* expr, const std::string& msg);
}  // namespace gemmad::internal

#define GEMMAD_CHECK(cond, ...)                                                          \
  do {                                                                                   \
    if (!(cond)) [[unlikely]] {                                                          \
      ::gemmad::internal::CheckFailed(__FILE__, __LINE__, #cond,                         \
                                      ::gemmad::internal::CheckMessage(__VA_ARGS__));    \
    }                                                                                    \
  } while (0)

#if !defined(NDEBUG) || defined(GEMMAD_ENABLE_DCHECK)
#define GEMMAD_DCHECK(cond, ...) GEMMAD_CHECK(cond, __VA_ARGS__)
#else
#define GEMMAD_DCHECK(cond, ...) \
  do {                           \
  } while (0)
#endif

namespace gemmad::internal {
inline std::string CheckMessage() { return {}; }
template <typename... Args>
std::string CheckMessage(fmt::format_string<Args...> f, Args&&... args) {
  return fmt::format(f, std::forward<Args>(args)...);
}
}  // namespace gemmad::internal
