// ProgressBar implementation.
#include "io/progress_bar.h"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>

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

ProgressBar::ProgressBar(std::string label, uint64_t total, bool enabled, bool bytes)
    : label_(std::move(label)), total_(total), enabled_(enabled), bytes_(bytes),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {
  Draw(true);
}

ProgressBar::~ProgressBar() { Finish(); }

bool ProgressBar::StderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

void ProgressBar::Set(uint64_t done) {
  done_ = done > total_ ? total_ : done;
  Draw(done_ == total_);
}

void ProgressBar::Finish() {
  if (finished_) return;
  finished_ = true;
  if (!enabled_) return;
  Draw(true);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

void ProgressBar::Draw(bool force) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  double frac = total_ == 0 ? 1.0 : static_cast<double>(done_) / static_cast<double>(total_);
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
