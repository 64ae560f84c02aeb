// Parse stacks over a Program: hash-consed return frames, configurations (top position + frame
// below), and the two moves of the pushdown automaton: closing a set of configurations under
// calls and returns, and stepping it by one byte or special token.
//
// Pop modes say what happens when the top rule ends and there is no frame below:
//   kRuntime: the stack is the real one; popping the bottom (root) frame means "complete".
//   kLocal:   the frames below are unknown; the configuration becomes kEscaped (still alive,
//             undecided) — used to precompute masks that hold in any context.
//   kContext: the frames below are unknown, but the rule's return sites are known: continue at
//             each (tainted when there are several, i.e. the real context decides).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "constrain/internal/program.h"

namespace gemmad::constrain::internal {

constexpr int32_t kBottom = -1;   // no frame below
constexpr int32_t kEscaped = -2;  // pseudo position: the token left the start rule (kLocal)

struct Frame {
  int32_t pos;     // where to continue when the callee ends
  int32_t parent;  // frame below, or kBottom
};

class FrameArena {
 public:
  int32_t Intern(int32_t pos, int32_t parent);
  const Frame& at(int32_t id) const { return frames_[static_cast<size_t>(id)]; }
  size_t size() const { return frames_.size(); }
  // Drops frames created after size() was `n` (scratch frames of a mask computation).
  void Truncate(size_t n);
  void Clear();

 private:
  static uint64_t Key(int32_t pos, int32_t parent) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(pos)) << 32) | static_cast<uint32_t>(parent);
  }
  std::vector<Frame> frames_;
  std::unordered_map<uint64_t, int32_t> index_;
};

struct Config {
  int32_t pos;
  int32_t parent;
  uint8_t taint;  // kContext: 1 when the continuation depends on the unknown real context
  friend bool operator==(const Config& a, const Config& b) {
    return a.pos == b.pos && a.parent == b.parent && a.taint == b.taint;
  }
};

enum class PopMode { kRuntime, kLocal, kContext };

class Stepper {
 public:
  Stepper(const Program& program, FrameArena& arena, PopMode mode)
      : p_(program), arena_(arena), mode_(mode) {}

  // Closes `seeds` under calls and returns into `out` (cleared first): keeps configurations that
  // can consume a byte or token (and kEscaped). Returns true when (kRuntime) the root can end.
  bool Close(const std::vector<Config>& seeds, std::vector<Config>& out);
  // Advances closed `in` by byte `b` into unclosed `seeds` (cleared first).
  void StepByte(const std::vector<Config>& in, uint8_t b, std::vector<Config>& seeds) const;
  // Advances closed `in` by special token `token` into `seeds`.
  void StepToken(const std::vector<Config>& in, int32_t token, std::vector<Config>& seeds) const;
  // Fewest bytes to complete from a configuration (sum over its frames).
  int64_t MinComplete(const Config& c) const;

  // Upper bound on the configurations kept per step; more (a highly ambiguous grammar) are
  // dropped, which keeps the matcher sound but may shrink the language.
  static constexpr size_t kMaxConfigs = 4096;

 private:
  void Visit(const Config& c);
  const Program& p_;
  FrameArena& arena_;
  PopMode mode_;
  std::vector<Config> seen_;
  std::vector<Config> work_;
};

}  // namespace gemmad::constrain::internal
