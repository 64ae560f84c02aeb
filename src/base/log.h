// Leveled logging to stderr in vLLM's line format: "INFO 12-02 20:33:48 [file.cc:42] message".
// Thread-safe; one line per call. The level is process-wide (--log-level, GEMMAD_LOG_LEVEL).
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "base/result.h"

namespace gemmad {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kCritical = 4 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
// Accepts debug/info/warning/warn/error/critical, any case.
Result<LogLevel> ParseLogLevel(std::string_view name);

namespace internal {
void LogLine(LogLevel level, const char* file, int line, const std::string& msg);
}  // namespace internal

}  // namespace gemmad

#define GEMMAD_LOG_AT_(level, ...)                                                       \
  do {                                                                                   \
    if (static_cast<int>(level) >= static_cast<int>(::gemmad::GetLogLevel())) {          \
      ::gemmad::internal::LogLine(level, __FILE__, __LINE__, fmt::format(__VA_ARGS__));  \
    }                                                                                    \
  } while (0)
#define GEMMAD_LOG_DEBUG(...) GEMMAD_LOG_AT_(::gemmad::LogLevel::kDebug, __VA_ARGS__)
#define GEMMAD_LOG_INFO(...) GEMMAD_LOG_AT_(::gemmad::LogLevel::kInfo, __VA_ARGS__)
#define GEMMAD_LOG_WARNING(...) GEMMAD_LOG_AT_(::gemmad::LogLevel::kWarning, __VA_ARGS__)
#define GEMMAD_LOG_ERROR(...) GEMMAD_LOG_AT_(::gemmad::LogLevel::kError, __VA_ARGS__)
