// Matcher (matcher.h): the current set of parse stacks, a history for Rollback, and the
// next-token bitmask built from the precomputed per-position masks plus run-time checks of the
// undecided tokens against the real stacks.
#include "constrain/matcher.h"

#include <algorithm>
#include <cstring>

#include "constrain/internal/program.h"
#include "constrain/internal/stack.h"

namespace gemmad::constrain {

namespace internal {

struct Snapshot {
  std::vector<Config> configs;
  bool complete = false;
  size_t arena_size = 0;
};

struct MatcherState {
  FrameArena arena;
  std::vector<Config> cur;
  bool complete = false;
  bool terminated = false;
  std::vector<Snapshot> history;
  // Scratch for mask computation and stepping.
  std::vector<std::vector<Config>> levels = std::vector<std::vector<Config>>(257);
  std::vector<Config> seeds, next;
  std::vector<uint32_t> tmp;
  std::vector<int32_t> positions;
};

}  // namespace internal

using internal::Config;
using internal::PopMode;
using internal::Stepper;

namespace {

inline void SetBit(std::span<uint32_t> w, int32_t id) {
  w[static_cast<size_t>(id) >> 5] |= 1u << (static_cast<uint32_t>(id) & 31u);
}

}  // namespace

Matcher::Matcher(std::shared_ptr<const CompiledGrammar> grammar)
    : grammar_(std::move(grammar)), state_(std::make_unique<internal::MatcherState>()) {
  Reset();
}
Matcher::~Matcher() = default;
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;

void Matcher::Reset() {
  auto& s = *state_;
  const auto& p = grammar_->program();
  s.arena.Clear();
  s.history.clear();
  s.terminated = false;
  Stepper st(p, s.arena, PopMode::kRuntime);
  s.complete = st.Close({{p.rule_start[static_cast<size_t>(p.root_rule)], internal::kBottom, 0}}, s.cur);
}

bool Matcher::CanTerminate() const { return !state_->terminated && state_->complete; }
bool Matcher::IsTerminated() const { return state_->terminated; }
bool Matcher::MustTerminate() const { return CanTerminate() && state_->cur.empty(); }
int32_t Matcher::num_accepted_tokens() const { return static_cast<int32_t>(state_->history.size()); }

int32_t Matcher::MinBytesToComplete() const {
  auto& s = *state_;  // the arena is only read
  if (s.terminated || s.complete) return 0;
  Stepper st(grammar_->program(), s.arena, PopMode::kRuntime);
  int64_t best = INT32_MAX;
  for (const Config& c : s.cur) best = std::min(best, st.MinComplete(c));
  return static_cast<int32_t>(std::min<int64_t>(best, INT32_MAX));
}

bool Matcher::AcceptBytes(std::string_view bytes) {
  auto& s = *state_;
  if (s.terminated || bytes.empty()) return false;
  const size_t mark = s.arena.size();
  Stepper st(grammar_->program(), s.arena, PopMode::kRuntime);
  s.next = s.cur;
  bool complete = s.complete;
  for (char ch : bytes) {
    st.StepByte(s.next, static_cast<uint8_t>(ch), s.seeds);
    if (s.seeds.empty()) {
      s.arena.Truncate(mark);
      return false;
    }
    complete = st.Close(s.seeds, s.next);
  }
  s.history.push_back({std::move(s.cur), s.complete, mark});
  s.cur = std::move(s.next);
  s.next.clear();
  s.complete = complete;
  return true;
}

bool Matcher::AcceptToken(int32_t id) {
  auto& s = *state_;
  const Vocabulary& v = grammar_->vocabulary();
  if (s.terminated || id < 0 || id >= v.size()) return false;
  if (v.IsSpecial(id) || v.IsStop(id)) {
    Stepper st(grammar_->program(), s.arena, PopMode::kRuntime);
    const size_t mark = s.arena.size();
    st.StepToken(s.cur, id, s.seeds);
    if (!s.seeds.empty()) {
      bool complete = st.Close(s.seeds, s.next);
      s.history.push_back({std::move(s.cur), s.complete, mark});
      s.cur = std::move(s.next);
      s.next.clear();
      s.complete = complete;
      return true;
    }
    if (v.IsStop(id) && s.complete) {
      s.history.push_back({s.cur, s.complete, mark});
      s.terminated = true;
      return true;
    }
    return false;
  }
  return AcceptBytes(v.TokenBytes(id));
}

bool Matcher::Rollback(int32_t num_tokens) {
  auto& s = *state_;
  if (num_tokens < 0 || static_cast<size_t>(num_tokens) > s.history.size()) return false;
  for (int32_t i = 0; i < num_tokens; ++i) {
    internal::Snapshot snap = std::move(s.history.back());
    s.history.pop_back();
    s.cur = std::move(snap.configs);
    s.complete = snap.complete;
    s.terminated = false;
    s.arena.Truncate(snap.arena_size);
  }
  return true;
}

void Matcher::FillNextTokenBitmask(std::span<uint32_t> words) {
  auto& s = *state_;
  const Vocabulary& v = grammar_->vocabulary();
  const auto& p = grammar_->program();
  const auto n = static_cast<size_t>(v.bitmask_words());
  GEMMAD_CHECK(words.size() >= n, "bitmask has {} words, needs {}", words.size(), n);
  std::memset(words.data(), 0, n * sizeof(uint32_t));
  if (!s.terminated) {
    // Distinct positions: precomputed parts (bitmask forms first: the first one is copied).
    s.positions.clear();
    for (const Config& c : s.cur) s.positions.push_back(c.pos);
    std::sort(s.positions.begin(), s.positions.end());
    s.positions.erase(std::unique(s.positions.begin(), s.positions.end()), s.positions.end());
    bool first_bits = true;
    for (int32_t pos : s.positions) {
      const auto& pm = p.pos_masks[static_cast<size_t>(pos)];
      if (pm.local < 0) continue;
      const auto& lm = p.local_masks[static_cast<size_t>(pm.local)];
      if (lm.bits.empty()) continue;
      if (first_bits) {
        std::memcpy(words.data(), lm.bits.data(), n * sizeof(uint32_t));  // words were all zero
        first_bits = false;
      } else {
        for (size_t i = 0; i < n; ++i) words[i] |= lm.bits[i];
      }
    }
    for (int32_t pos : s.positions) {
      const auto& pm = p.pos_masks[static_cast<size_t>(pos)];
      if (pm.local >= 0) {
        for (int32_t id : p.local_masks[static_cast<size_t>(pm.local)].ids) SetBit(words, id);
      }
      for (int32_t id : pm.extra_accepted) SetBit(words, id);
      const auto u = static_cast<size_t>(pos);
      for (int32_t i = p.tok_begin[u]; i < p.tok_begin[u + 1]; ++i) {
        SetBit(words, p.toks[static_cast<size_t>(i)].sym);
      }
    }
    CheckUndecided(words);
  }
  if (s.terminated || s.complete) {
    for (int32_t id : v.stop_token_ids()) SetBit(words, id);
  }
}

void Matcher::CheckUndecided(std::span<uint32_t> words) {
  auto& s = *state_;
  const Vocabulary& v = grammar_->vocabulary();
  const auto& p = grammar_->program();
  const size_t mark = s.arena.size();
  Stepper st(p, s.arena, PopMode::kRuntime);
  for (const Config& c : s.cur) {
    const auto& pm = p.pos_masks[static_cast<size_t>(c.pos)];
    if (pm.undecided.empty()) continue;
    s.levels[0] = {c};
    size_t valid = 0;  // levels[0..valid] hold the closed sets of the current prefix
    for (size_t i = 0; i < pm.undecided.size(); ++i) {
      const int32_t id = pm.undecided[i];
      const size_t lcp = i == 0 ? 0 : pm.undecided_lcp[i];
      if (lcp > valid) continue;  // shares a prefix that already died
      const std::string& b = v.TokenBytes(id);
      size_t d = lcp;
      for (; d < b.size(); ++d) {
        st.StepByte(s.levels[d], static_cast<uint8_t>(b[d]), s.seeds);
        if (s.seeds.empty()) break;
        st.Close(s.seeds, s.levels[d + 1]);
      }
      valid = d;
      if (d == b.size()) SetBit(words, id);
    }
  }
  s.arena.Truncate(mark);
}

}  // namespace gemmad::constrain
