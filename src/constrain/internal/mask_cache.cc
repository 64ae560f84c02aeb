// BuildMasks (mask_cache.h). Per distinct position behaviour, one depth-first walk of the
// vocabulary trie with unknown callers (kLocal) splits the tokens into accepted / undecided /
// rejected and marks the trie nodes leading to undecided tokens; then, per position, a second walk
// restricted to the marked nodes settles what the rule's return sites decide (kContext).
#include "constrain/internal/mask_cache.h"

#include <algorithm>

#include "constrain/internal/stack.h"
#include "constrain/internal/token_trie.h"

namespace gemmad::constrain::internal {
namespace {

constexpr uint8_t kSubtreeUndecided = 1;  // some token in the subtree is undecided
constexpr uint8_t kTokensUndecided = 2;   // the tokens ending at this node are undecided

class Walker {
 public:
  Walker(const Program& p, const TokenTrie& trie)
      : p_(p), trie_(trie), marks_(trie.nodes.size(), 0), levels_(257) {}

  // kLocal walk from `pos`: returns accepted ids, marks undecided ones.
  std::vector<int32_t> WalkLocal(int32_t pos) {
    for (int32_t i : touched_) marks_[static_cast<size_t>(i)] = 0;
    touched_.clear();
    if (p_.rule_pure[static_cast<size_t>(p_.pos_rule[static_cast<size_t>(pos)])]) return WalkPure(pos);
    arena_.Clear();
    Stepper st(p_, arena_, PopMode::kLocal);
    std::vector<int32_t> accepted;
    int32_t path[257] = {0};
    // Unclosed start: a position answers for the tokens whose first byte it consumes itself; the
    // positions reached by calls and returns answer for theirs (the run-time union is complete).
    levels_[0] = {{pos, kBottom, 0}};
    const auto n = static_cast<int32_t>(trie_.nodes.size());
    for (int32_t i = 1; i < n;) {
      const TrieNode& node = trie_.nodes[static_cast<size_t>(i)];
      path[node.depth] = i;
      st.StepByte(levels_[node.depth - 1u], node.byte, seeds_);
      if (seeds_.empty()) {
        i = node.subtree_end;
        continue;
      }
      bool clean = false;
      for (const Config& c : seeds_) clean = clean || c.taint == 0;
      if (node.token_begin < node.token_end) {
        if (clean) {
          for (int32_t t = node.token_begin; t < node.token_end; ++t) {
            accepted.push_back(trie_.token_ids[static_cast<size_t>(t)]);
          }
        } else {
          Mark(i, kTokensUndecided);
          for (int32_t d = node.depth; d >= 1; --d) {
            if (marks_[static_cast<size_t>(path[d])] & kSubtreeUndecided) break;
            Mark(path[d], kSubtreeUndecided);
          }
        }
      }
      st.Close(seeds_, levels_[node.depth]);
      i = levels_[node.depth].empty() ? node.subtree_end : i + 1;
    }
    return accepted;
  }

  // kContext walk from `pos` over the nodes marked by the last WalkLocal.
  void Refine(int32_t pos, PositionMask& m) {
    arena_.Clear();
    Stepper st(p_, arena_, PopMode::kContext);
    levels_[0] = {{pos, kBottom, 0}};
    const auto n = static_cast<int32_t>(trie_.nodes.size());
    for (int32_t i = 1; i < n;) {
      const TrieNode& node = trie_.nodes[static_cast<size_t>(i)];
      if (!(marks_[static_cast<size_t>(i)] & kSubtreeUndecided)) {
        i = node.subtree_end;
        continue;
      }
      st.StepByte(levels_[node.depth - 1u], node.byte, seeds_);
      if (seeds_.empty()) {
        i = node.subtree_end;
        continue;
      }
      if (marks_[static_cast<size_t>(i)] & kTokensUndecided) {
        bool clean = false;
        for (const Config& c : seeds_) clean = clean || c.taint == 0;
        auto& dst = clean ? m.extra_accepted : m.undecided;
        for (int32_t t = node.token_begin; t < node.token_end; ++t) {
          dst.push_back(trie_.token_ids[static_cast<size_t>(t)]);
        }
      }
      st.Close(seeds_, levels_[node.depth]);
      i = levels_[node.depth].empty() ? node.subtree_end : i + 1;
    }
  }

 private:
  // The same walk for a rule without calls or tokens: one DFA state per depth, and "escaped"
  // (the rule could have ended after at least one byte of the token) per depth.
  std::vector<int32_t> WalkPure(int32_t pos) {
    std::vector<int32_t> accepted;
    int32_t state[257];
    bool escaped[257];
    int32_t path[257] = {0};
    state[0] = pos;
    escaped[0] = false;
    // Ending the root when nothing calls it ends the output: nothing can follow.
    const int32_t rule = p_.pos_rule[static_cast<size_t>(pos)];
    const bool can_escape = rule != p_.root_rule || !p_.return_sites[static_cast<size_t>(rule)].empty();
    const auto n = static_cast<int32_t>(trie_.nodes.size());
    for (int32_t i = 1; i < n;) {
      const TrieNode& node = trie_.nodes[static_cast<size_t>(i)];
      const uint32_t d = node.depth;
      path[d] = i;
      const int32_t prev = state[d - 1];
      const int32_t t = prev >= 0 ? p_.Step(prev, node.byte) : -1;
      const bool esc = escaped[d - 1] || (can_escape && d >= 2 && prev >= 0 && p_.pos_final[static_cast<size_t>(prev)]);
      if (t < 0 && !esc) {
        i = node.subtree_end;
        continue;
      }
      state[d] = t;
      escaped[d] = esc;
      if (node.token_begin < node.token_end) {
        if (t >= 0) {
          for (int32_t k = node.token_begin; k < node.token_end; ++k) accepted.push_back(trie_.token_ids[static_cast<size_t>(k)]);
        } else {
          Mark(i, kTokensUndecided);
          for (uint32_t e = d; e >= 1; --e) {
            if (marks_[static_cast<size_t>(path[e])] & kSubtreeUndecided) break;
            Mark(path[e], kSubtreeUndecided);
          }
        }
      }
      ++i;
    }
    return accepted;
  }

  void Mark(int32_t i, uint8_t bit) {
    if (marks_[static_cast<size_t>(i)] == 0) touched_.push_back(i);
    marks_[static_cast<size_t>(i)] |= bit;
  }

  const Program& p_;
  const TokenTrie& trie_;
  std::vector<uint8_t> marks_;
  std::vector<int32_t> touched_;
  FrameArena arena_;
  std::vector<std::vector<Config>> levels_;
  std::vector<Config> seeds_;
};

LocalMask MakeLocalMask(const std::vector<int32_t>& accepted, const Vocabulary& vocab) {
  constexpr size_t kMaxListSize = 2048;  // beyond this a 32 KiB bitmask is smaller and faster
  LocalMask m;
  if (accepted.size() <= kMaxListSize) {
    m.ids = accepted;
    std::sort(m.ids.begin(), m.ids.end());
    return m;
  }
  m.bits.assign(static_cast<size_t>(vocab.bitmask_words()), 0u);
  for (int32_t id : accepted) m.bits[static_cast<size_t>(id) >> 5] |= 1u << (static_cast<uint32_t>(id) & 31u);
  return m;
}

void ComputeLcp(const Vocabulary& vocab, PositionMask& m) {
  m.undecided_lcp.assign(m.undecided.size(), 0);
  for (size_t i = 1; i < m.undecided.size(); ++i) {
    const std::string& a = vocab.TokenBytes(m.undecided[i - 1]);
    const std::string& b = vocab.TokenBytes(m.undecided[i]);
    size_t l = 0;
    while (l < a.size() && l < b.size() && a[l] == b[l]) ++l;
    m.undecided_lcp[i] = static_cast<uint8_t>(std::min<size_t>(l, 255));
  }
}

}  // namespace

Status BuildMasks(Program& p, const Vocabulary& vocab, const BudgetMeter* meter, size_t base_bytes) {
  std::vector<std::vector<int32_t>> by_key(static_cast<size_t>(p.num_local_keys));
  for (int32_t pos = 0; pos < p.num_positions(); ++pos) {
    const int32_t k = p.local_key[static_cast<size_t>(pos)];
    if (k >= 0) by_key[static_cast<size_t>(k)].push_back(pos);
  }
  p.local_masks.assign(static_cast<size_t>(p.num_local_keys), {});
  p.pos_masks.assign(static_cast<size_t>(p.num_positions()), {});
  Walker w(p, vocab.trie());
  size_t bytes = base_bytes;
  for (size_t k = 0; k < by_key.size(); ++k) {
    if (by_key[k].empty()) continue;
    if (meter) GEMMAD_RETURN_IF_ERROR(meter->Check(bytes));
    p.local_masks[k] = MakeLocalMask(w.WalkLocal(by_key[k][0]), vocab);
    bytes += (p.local_masks[k].ids.size() + p.local_masks[k].bits.size()) * sizeof(int32_t);
    for (int32_t pos : by_key[k]) {
      if (meter) GEMMAD_RETURN_IF_ERROR(meter->Check(bytes));
      PositionMask& m = p.pos_masks[static_cast<size_t>(pos)];
      m.local = static_cast<int32_t>(k);
      w.Refine(pos, m);
      std::sort(m.extra_accepted.begin(), m.extra_accepted.end());
      ComputeLcp(vocab, m);
      bytes += (m.extra_accepted.size() + m.undecided.size()) * sizeof(int32_t) + m.undecided_lcp.size();
    }
  }
  return OkStatus();
}

}  // namespace gemmad::constrain::internal
