// ProgressBar implementation.
#include "io/progress_bar.h"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>

#include "base/log.h"

namespace gemmad::io {
namespace {

std::string Clock(double seconds) {
  auto s = static_cast<long>(seconds < 0 ? 0 : seconds);
  return fmt::format("{:02d}:{:02d}", s / 60, s % 60);
}

std::string Amount(uint64_t v, bool bytes) {
  if (!bytes) return std::to_string(v);
  return fmt::format("{:.2f}GB", static_cast<double>(v) / 1e9);
}

}  // namespace

ProgressBar::ProgressBar(std::string label, uint64_t total, bool enabled, bool bytes,
                         std::chrono::milliseconds log_every, bool terminal)
    : label_(std::move(label)), total_(total), enabled_(enabled), bytes_(bytes), terminal_(terminal),
      log_every_(log_every), start_(std::chrono::steady_clock::now()), last_draw_(start_) {
  Draw(true);
}

ProgressBar::~ProgressBar() { Finish(); }

bool ProgressBar::StderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

void ProgressBar::Set(uint64_t done) {
  done_ = total_ != 0 && done > total_ ? total_ : done;
  Draw(terminal_ && done_ == total_);
}

void ProgressBar::Finish() {
  if (finished_) return;
  finished_ = true;
  if (!enabled_) return;
  if (!terminal_) return LogLine(/*final=*/true);
  Draw(true);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

void ProgressBar::LogLine(bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string what = total_ != 0 ? fmt::format("{}% ({} of {})", static_cast<int>(100.0 * done_ / total_),
                                               Amount(done_, bytes_), Amount(total_, bytes_))
                                 : Amount(done_, bytes_);
  if (bytes_ && elapsed > 0 && done_ > 0) what += fmt::format(", {:.1f} MB/s", static_cast<double>(done_) / elapsed / 1e6);
  if (final) {
    GEMMAD_LOG_INFO("{}: done, {} in {}", label_, what, Clock(elapsed));
  } else if (total_ != 0 && done_ > 0) {
    const double remaining = elapsed * static_cast<double>(total_ - done_) / static_cast<double>(done_);
    GEMMAD_LOG_INFO("{}: {}, ETA {}", label_, what, Clock(remaining));
  } else {
    GEMMAD_LOG_INFO("{}: {}", label_, what);
  }
}

void ProgressBar::Draw(bool force) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (!terminal_) {
    if (!force && now - last_draw_ < log_every_) return;
    last_draw_ = now;
    return LogLine(/*final=*/false);
  }
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  if (total_ == 0) {
    std::fprintf(stderr, "\r%s: %s [%s]", label_.c_str(), Amount(done_, bytes_).c_str(), Clock(elapsed).c_str());
    std::fflush(stderr);
    return;
  }
  double frac = static_cast<double>(done_) / static_cast<double>(total_);
  double remaining = frac > 0 ? elapsed / frac - elapsed : 0;
  constexpr int kWidth = 25;
  int filled = static_cast<int>(frac * kWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), ' ');
  std::fprintf(stderr, "\r%s: %3d%% |%s| %s/%s [%s<%s]", label_.c_str(), static_cast<int>(frac * 100), bar.c_str(),
               Amount(done_, bytes_).c_str(), Amount(total_, bytes_).c_str(), Clock(elapsed).c_str(),
               Clock(remaining).c_str());
  std::fflush(stderr);
}

}  // namespace gemmad::io
