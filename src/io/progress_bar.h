// ProgressBar: the progress of a long step (a download, loading shards, writing a checkpoint).
// On a terminal: a single-line tqdm-style bar on stderr ("Loading shards:  50% |##   | 1/2
// [00:01<00:01]"). Anywhere else (a service log, a pipe): INFO log lines at the start, every
// `log_every` and at the end ("Downloading model.safetensors: 45% (1.20 GB of 2.67 GB), 85.3 MB/s,
// ETA 00:17"), so a log shows what minutes of loading are doing. Disabled: silent.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace gemmad::io {

class ProgressBar {
 public:
  // total: the amount to reach (0 = unknown until SetTotal: no percentage, no ETA). enabled:
  // report at all; `terminal` picks the bar or the log lines.
  ProgressBar(std::string label, uint64_t total, bool enabled, bool bytes = false,
              std::chrono::milliseconds log_every = std::chrono::seconds(10), bool terminal = StderrIsTerminal());
  ~ProgressBar();
  void Advance(uint64_t delta) { Set(done_ + delta); }
  void Set(uint64_t done);
  void SetTotal(uint64_t total) { total_ = total; }
  // Reports the final state (the bar's line ends; the log says how long it took). Also done by
  // the destructor.
  void Finish();
  static bool StderrIsTerminal();

 private:
  void Draw(bool force);
  void LogLine(bool final);
  std::string label_;
  uint64_t total_, done_ = 0;
  bool enabled_, bytes_, terminal_, finished_ = false;
  std::chrono::milliseconds log_every_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace gemmad::io
