// Determinisation, intersection, minimisation and hashing of rule automata (automaton.h).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <unordered_map>

#include "constrain/internal/automaton.h"
#include "constrain/internal/partition_refine.h"

namespace gemmad::constrain::internal {
namespace {

struct VecHash {
  size_t operator()(const std::vector<int32_t>& v) const {
    uint64_t h = 1469598103934665603ull;
    for (int32_t x : v) h = (h ^ static_cast<uint32_t>(x)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};
struct Vec64Hash {
  size_t operator()(const std::vector<int64_t>& v) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t x : v) h = (h ^ static_cast<uint64_t>(x)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

void EpsClosure(const Nfa& nfa, std::vector<int32_t>& set, std::vector<uint8_t>& seen) {
  const size_t head = set.size();
  std::vector<int32_t> stack(set.begin(), set.end());
  for (int32_t s : set) seen[static_cast<size_t>(s)] = 1;
  while (!stack.empty()) {
    int32_t s = stack.back();
    stack.pop_back();
    for (const auto& e : nfa.out[static_cast<size_t>(s)]) {
      if (e.kind == EdgeKind::kEps && !seen[static_cast<size_t>(e.to)]) {
        seen[static_cast<size_t>(e.to)] = 1;
        set.push_back(e.to);
        stack.push_back(e.to);
      }
    }
  }
  for (int32_t s : set) seen[static_cast<size_t>(s)] = 0;
  // The canonical (sorted, unique) form. The states a transition reaches usually arrive in order
  // (Determinize walks its sorted set) and the closure appends the rest: then only that tail is
  // sorted and merged in, instead of the whole set (a chain like .*c{N} has sets of N states).
  const auto tail = set.begin() + static_cast<std::ptrdiff_t>(head);
  if (std::is_sorted(set.begin(), tail)) {
    std::sort(tail, set.end());
    std::inplace_merge(set.begin(), tail, set.end());
  } else {
    std::sort(set.begin(), set.end());
  }
  set.erase(std::unique(set.begin(), set.end()), set.end());
}

// Appends merged byte edges to `out`: adjacent intervals with equal targets are joined.
void PushByteEdge(std::vector<DfaByteEdge>& out, int lo, int hi, int32_t to) {
  if (!out.empty() && out.back().to == to && out.back().hi + 1 == lo) {
    out.back().hi = static_cast<uint8_t>(hi);
  } else {
    out.push_back({static_cast<uint8_t>(lo), static_cast<uint8_t>(hi), to});
  }
}

}  // namespace

bool Dfa::HasSymbols() const {
  for (const auto& s : states) {
    if (!s.refs.empty() || !s.tokens.empty()) return true;
  }
  return false;
}

Result<Dfa> Determinize(const Nfa& nfa, size_t max_states, const BudgetMeter* meter) {
  Dfa dfa;
  std::unordered_map<std::vector<int32_t>, int32_t, VecHash> ids;
  std::vector<std::vector<int32_t>> subsets;
  std::vector<uint8_t> seen(nfa.out.size(), 0);
  // What the construction holds, for the memory budget: each subset twice (the map's key and
  // `subsets`), its hash node and DFA state, and the DFA's edges.
  size_t held = 0;
  auto intern = [&](std::vector<int32_t> set) -> int32_t {
    EpsClosure(nfa, set, seen);
    auto it = ids.find(set);
    if (it != ids.end()) return it->second;
    held += 2 * set.size() * sizeof(int32_t) + 2 * sizeof(std::vector<int32_t>) + 64 + sizeof(DfaState);
    auto id = static_cast<int32_t>(subsets.size());
    ids.emplace(set, id);
    subsets.push_back(std::move(set));
    dfa.states.emplace_back();
    return id;
  };
  intern({nfa.start});
  for (size_t cur = 0; cur < subsets.size(); ++cur) {
    if (meter) GEMMAD_RETURN_IF_ERROR(meter->Check(held));
    if (subsets.size() > max_states) {
      return InvalidArgumentError(fmt::format(
          "the grammar is too large: a rule needs more than {} automaton states", max_states));
    }
    const std::vector<int32_t> set = subsets[cur];
    DfaState st;
    // The byte intervals: every edge's lo and hi + 1 cut [0, 256) (marks, not a sort: the set may
    // hold thousands of states).
    std::array<uint8_t, 257> cut{};
    std::map<int32_t, std::vector<int32_t>> refs, tokens;
    for (int32_t s : set) {
      if (nfa.final[static_cast<size_t>(s)]) st.final = true;
      for (const auto& e : nfa.out[static_cast<size_t>(s)]) {
        if (e.kind == EdgeKind::kByte) {
          cut[e.lo] = 1;
          cut[static_cast<size_t>(e.hi) + 1] = 1;
        } else if (e.kind == EdgeKind::kRef) {
          refs[e.sym].push_back(e.to);
        } else if (e.kind == EdgeKind::kToken) {
          tokens[e.sym].push_back(e.to);
        }
      }
    }
    std::vector<int> points;
    std::array<int16_t, 257> interval{};  // byte -> the interval [points[k], points[k+1]) holding it
    for (int b = 0; b <= 256; ++b) {
      if (cut[static_cast<size_t>(b)]) points.push_back(b);
      interval[static_cast<size_t>(b)] = static_cast<int16_t>(points.size()) - 1;
    }
    // Each interval's targets, in the order of the set's states and their edges.
    std::vector<std::vector<int32_t>> targets(points.empty() ? 0 : points.size() - 1);
    for (int32_t s : set) {
      for (const auto& e : nfa.out[static_cast<size_t>(s)]) {
        if (e.kind != EdgeKind::kByte) continue;
        for (int k = interval[e.lo]; k < interval[static_cast<size_t>(e.hi) + 1]; ++k) {
          targets[static_cast<size_t>(k)].push_back(e.to);
        }
      }
    }
    for (size_t k = 0; k + 1 < points.size(); ++k) {
      if (targets[k].empty()) continue;
      const int lo = points[k], hi = points[k + 1] - 1;
      int32_t to = intern(std::move(targets[k]));
      PushByteEdge(st.bytes, lo, hi, to);
    }
    for (auto& [sym, targets] : refs) st.refs.push_back({sym, intern(targets)});
    for (auto& [sym, targets] : tokens) st.tokens.push_back({sym, intern(targets)});
    held += st.bytes.size() * sizeof(DfaByteEdge) + (st.refs.size() + st.tokens.size()) * 8;
    dfa.states[cur] = std::move(st);
  }
  return dfa;
}

Result<Dfa> IntersectDfa(const Dfa& a, const Dfa& b, size_t max_states, const BudgetMeter* meter) {
  Dfa out;
  std::map<std::pair<int32_t, int32_t>, int32_t> ids;
  std::deque<std::pair<int32_t, int32_t>> queue;
  auto intern = [&](int32_t x, int32_t y) {
    auto [it, inserted] = ids.emplace(std::make_pair(x, y), static_cast<int32_t>(ids.size()));
    if (inserted) {
      queue.emplace_back(x, y);
      out.states.emplace_back();
    }
    return it->second;
  };
  intern(0, 0);
  while (!queue.empty()) {
    auto [x, y] = queue.front();
    queue.pop_front();
    if (meter) GEMMAD_RETURN_IF_ERROR(meter->Check());
    if (out.states.size() > max_states) {
      return InvalidArgumentError("the grammar is too large (intersection of patterns)");
    }
    const DfaState& sa = a.states[static_cast<size_t>(x)];
    const DfaState& sb = b.states[static_cast<size_t>(y)];
    DfaState st;
    st.final = sa.final && sb.final;
    for (const auto& ea : sa.bytes) {
      for (const auto& eb : sb.bytes) {
        int lo = std::max(ea.lo, eb.lo), hi = std::min(ea.hi, eb.hi);
        if (lo > hi) continue;
        int32_t to = intern(ea.to, eb.to);
        PushByteEdge(st.bytes, lo, hi, to);
      }
    }
    out.states[static_cast<size_t>(ids[{x, y}])] = std::move(st);
  }
  return out;
}

Dfa ComplementDfa(const Dfa& dfa) {
  Dfa out = dfa;
  const auto sink = static_cast<int32_t>(out.states.size());
  out.states.emplace_back();
  out.states.back().bytes.push_back({0, 255, sink});
  for (size_t s = 0; s < dfa.states.size(); ++s) {
    DfaState& st = out.states[s];
    std::vector<DfaByteEdge> full;
    int next = 0;
    for (const auto& e : st.bytes) {
      if (e.lo > next) full.push_back({static_cast<uint8_t>(next), static_cast<uint8_t>(e.lo - 1), sink});
      full.push_back(e);
      next = e.hi + 1;
    }
    if (next <= 255) full.push_back({static_cast<uint8_t>(next), 255, sink});
    st.bytes = std::move(full);
  }
  for (auto& st : out.states) st.final = !st.final;
  return out;
}

Result<Dfa> Minimize(const Dfa& dfa, int32_t lookahead, std::vector<int32_t>* lookahead_classes,
                     const BudgetMeter* meter) {
  const size_t n = dfa.states.size();
  std::vector<int32_t> cls(n), la;
  for (size_t s = 0; s < n; ++s) cls[s] = dfa.states[s].final ? 1 : 0;
  int32_t num = 0;
  // Moore rounds give the lookahead classes (k-equivalence after `lookahead` rounds; one round when
  // they are not asked for); a DFA not stable by then (a long chain takes one round per state) is
  // finished by RefinePartition, which reaches the same coarsest partition in O(m log n).
  const int32_t moore_rounds = lookahead_classes != nullptr ? std::max(lookahead, 0) : 0;
  bool stable = false;
  for (int round = 0; round <= moore_rounds; ++round) {
    if (round == lookahead) la = cls;
    std::unordered_map<std::vector<int64_t>, int32_t, Vec64Hash> sigs;
    std::vector<int32_t> next(n);
    std::vector<int64_t> sig;
    // For the memory budget: the classes and the distinct signatures with their hash nodes.
    size_t held = 2 * n * sizeof(int32_t);
    for (size_t s = 0; s < n; ++s) {
      if (meter && s % 256 == 0) GEMMAD_RETURN_IF_ERROR(meter->Check(held));
      const DfaState& st = dfa.states[s];
      sig.clear();
      sig.push_back(cls[s]);
      int64_t prev_hi = -2, prev_to = -2;
      for (const auto& e : st.bytes) {
        int64_t to = cls[static_cast<size_t>(e.to)];
        if (to == prev_to && e.lo == prev_hi + 1) {
          sig.back() = e.hi;
        } else {
          sig.insert(sig.end(), {-1, e.lo, to, e.hi});
        }
        prev_hi = e.hi;
        prev_to = to;
      }
      for (const auto& e : st.refs) sig.insert(sig.end(), {-2, e.sym, cls[static_cast<size_t>(e.to)]});
      for (const auto& e : st.tokens) sig.insert(sig.end(), {-3, e.sym, cls[static_cast<size_t>(e.to)]});
      auto [it, inserted] = sigs.emplace(sig, static_cast<int32_t>(sigs.size()));
      if (inserted) held += sig.size() * sizeof(int64_t) + sizeof(std::vector<int64_t>) + 48;
      next[s] = it->second;
    }
    auto new_num = static_cast<int32_t>(sigs.size());
    cls.swap(next);
    if (new_num == num) {
      stable = true;
      break;
    }
    num = new_num;
  }
  if (la.empty()) la = cls;
  if (!stable) {
    GEMMAD_ASSIGN_OR_RETURN(cls, RefinePartition(dfa, cls, num, meter));
    num = cls.empty() ? 0 : *std::max_element(cls.begin(), cls.end()) + 1;
  }
  // Canonical breadth-first numbering from the start.
  std::vector<int32_t> rep(static_cast<size_t>(num), -1), order(static_cast<size_t>(num), -1);
  for (size_t s = 0; s < n; ++s) {
    if (rep[static_cast<size_t>(cls[s])] < 0) rep[static_cast<size_t>(cls[s])] = static_cast<int32_t>(s);
  }
  std::vector<int32_t> queue;
  order[static_cast<size_t>(cls[0])] = 0;
  queue.push_back(cls[0]);
  for (size_t qi = 0; qi < queue.size(); ++qi) {
    const DfaState& st = dfa.states[static_cast<size_t>(rep[static_cast<size_t>(queue[qi])])];
    auto visit = [&](int32_t to) {
      int32_t c = cls[static_cast<size_t>(to)];
      if (order[static_cast<size_t>(c)] < 0) {
        order[static_cast<size_t>(c)] = static_cast<int32_t>(queue.size());
        queue.push_back(c);
      }
    };
    for (const auto& e : st.bytes) visit(e.to);
    for (const auto& e : st.refs) visit(e.to);
    for (const auto& e : st.tokens) visit(e.to);
  }
  Dfa out;
  out.states.resize(queue.size());
  std::vector<int32_t> la_ids;
  std::map<int32_t, int32_t> la_renumber;
  for (size_t i = 0; i < queue.size(); ++i) {
    const DfaState& st = dfa.states[static_cast<size_t>(rep[static_cast<size_t>(queue[i])])];
    DfaState& o = out.states[i];
    o.final = st.final;
    auto map = [&](int32_t to) { return order[static_cast<size_t>(cls[static_cast<size_t>(to)])]; };
    for (const auto& e : st.bytes) PushByteEdge(o.bytes, e.lo, e.hi, map(e.to));
    for (const auto& e : st.refs) o.refs.push_back({e.sym, map(e.to)});
    for (const auto& e : st.tokens) o.tokens.push_back({e.sym, map(e.to)});
    int32_t l = la[static_cast<size_t>(rep[static_cast<size_t>(queue[i])])];
    auto [it, ins] = la_renumber.emplace(l, static_cast<int32_t>(la_renumber.size()));
    la_ids.push_back(it->second);
  }
  if (lookahead_classes != nullptr) *lookahead_classes = std::move(la_ids);
  return out;
}

uint64_t StructureHash(const Dfa& dfa) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](int64_t x) { h = (h ^ static_cast<uint64_t>(x)) * 1099511628211ull; };
  for (const auto& st : dfa.states) {
    mix(st.final ? 7 : 3);
    for (const auto& e : st.bytes) {
      mix(e.lo);
      mix(e.hi);
      mix(e.to);
    }
    mix(-1);
    for (const auto& e : st.refs) {
      mix(e.sym);
      mix(e.to);
    }
    mix(-2);
    for (const auto& e : st.tokens) {
      mix(e.sym);
      mix(e.to);
    }
    mix(-3);
  }
  return h;
}

}  // namespace gemmad::constrain::internal
