// ProgressBar: a single-line tqdm-style bar on stderr ("Loading shards:  50% | 1/2 [00:01<00:01]"),
// drawn only when stderr is a terminal (or when forced), so logs and tests stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace gemmad::io {

class ProgressBar {
 public:
  // enabled: draw at all; StderrIsTerminal() is the usual choice.
  ProgressBar(std::string label, uint64_t total, bool enabled, bool bytes = false);
  ~ProgressBar();
  void Advance(uint64_t delta) { Set(done_ + delta); }
  void Set(uint64_t done);
  // Draws the final state and ends the line (also done by the destructor).
  void Finish();
  static bool StderrIsTerminal();

 private:
  void Draw(bool force);
  std::string label_;
  uint64_t total_, done_ = 0;
  bool enabled_, bytes_, finished_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace gemmad::io
