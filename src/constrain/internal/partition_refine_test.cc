// RefinePartition against Moore rounds to the fixed point (the obvious reference: per byte, per
// symbol), and Minimize through either path giving the same automaton.
#include "constrain/internal/partition_refine.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "base/rng.h"
#include "constrain/internal/automaton.h"

namespace gemmad::constrain::internal {
namespace {

// A random partial DFA: byte ranges (disjoint, sorted), a few rule references and tokens.
Dfa RandomDfa(Rng& rng, int n) {
  Dfa d;
  d.states.resize(static_cast<size_t>(n));
  for (auto& st : d.states) {
    st.final = rng.Below(3) == 0;
    int b = static_cast<int>(rng.Below(8));
    while (b < 256 && rng.Below(4) != 0) {
      const int hi = std::min(255, b + static_cast<int>(rng.Below(rng.Below(2) ? 3 : 40)));
      st.bytes.push_back({static_cast<uint8_t>(b), static_cast<uint8_t>(hi), static_cast<int32_t>(rng.Below(n))});
      b = hi + 1 + static_cast<int>(rng.Below(20));
    }
    for (int32_t sym = 0; sym < 3; ++sym) {
      if (rng.Below(5) == 0) st.refs.push_back({sym, static_cast<int32_t>(rng.Below(n))});
      if (rng.Below(7) == 0) st.tokens.push_back({100 + sym, static_cast<int32_t>(rng.Below(n))});
    }
  }
  return d;
}

// Moore to the fixed point, every byte and symbol its own letter (-1: no edge).
std::vector<int32_t> ReferenceClasses(const Dfa& d) {
  const size_t n = d.states.size();
  std::vector<int32_t> cls(n);
  for (size_t s = 0; s < n; ++s) cls[s] = d.states[s].final ? 1 : 0;
  for (size_t prev = 0;;) {
    std::map<std::vector<int32_t>, int32_t> ids;
    std::vector<int32_t> next(n);
    for (size_t s = 0; s < n; ++s) {
      std::vector<int32_t> sig(256 + 6 + 1, -1);
      sig[0] = cls[s];
      for (const auto& e : d.states[s].bytes) {
        for (int b = e.lo; b <= e.hi; ++b) sig[1 + static_cast<size_t>(b)] = cls[static_cast<size_t>(e.to)];
      }
      for (const auto& e : d.states[s].refs) sig[257 + static_cast<size_t>(e.sym)] = cls[static_cast<size_t>(e.to)];
      for (const auto& e : d.states[s].tokens) {
        sig[260 + static_cast<size_t>(e.sym - 100)] = cls[static_cast<size_t>(e.to)];
      }
      next[s] = ids.emplace(sig, static_cast<int32_t>(ids.size())).first->second;
    }
    cls.swap(next);
    if (ids.size() == prev) return cls;
    prev = ids.size();
  }
}

// Same blocks, whatever their numbering.
void ExpectSamePartition(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  ASSERT_EQ(a.size(), b.size());
  std::map<int32_t, int32_t> ab, ba;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(ab.emplace(a[i], b[i]).first->second, b[i]) << "state " << i;
    EXPECT_EQ(ba.emplace(b[i], a[i]).first->second, a[i]) << "state " << i;
  }
}

void ExpectSameDfa(const Dfa& a, const Dfa& b) {
  ASSERT_EQ(a.num_states(), b.num_states());
  for (size_t s = 0; s < a.states.size(); ++s) {
    const auto &x = a.states[s], &y = b.states[s];
    EXPECT_EQ(x.final, y.final);
    ASSERT_EQ(x.bytes.size(), y.bytes.size()) << "state " << s;
    for (size_t i = 0; i < x.bytes.size(); ++i) {
      EXPECT_EQ(x.bytes[i].lo, y.bytes[i].lo);
      EXPECT_EQ(x.bytes[i].hi, y.bytes[i].hi);
      EXPECT_EQ(x.bytes[i].to, y.bytes[i].to);
    }
    ASSERT_EQ(x.refs.size(), y.refs.size());
    for (size_t i = 0; i < x.refs.size(); ++i) EXPECT_EQ(x.refs[i].to, y.refs[i].to);
    ASSERT_EQ(x.tokens.size(), y.tokens.size());
    for (size_t i = 0; i < x.tokens.size(); ++i) EXPECT_EQ(x.tokens[i].to, y.tokens[i].to);
  }
}

TEST(RefinePartitionTest, MatchesMooreOnRandomDfas) {
  Rng rng(20261206);
  int merged = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const Dfa d = RandomDfa(rng, 1 + static_cast<int>(rng.Below(60)));
    std::vector<int32_t> init(d.states.size());
    bool any_final = false, any_other = false;
    for (size_t s = 0; s < init.size(); ++s) {
      init[s] = d.states[s].final ? 1 : 0;
      (d.states[s].final ? any_final : any_other) = true;
    }
    if (!any_final || !any_other) {  // one block: renumber it 0
      for (auto& c : init) c = 0;
    }
    auto got = RefinePartition(d, init, any_final && any_other ? 2 : 1);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const auto want = ReferenceClasses(d);
    ExpectSamePartition(*got, want);
    std::map<int32_t, int> sizes;
    for (int32_t c : want) ++sizes[c];
    merged += sizes.size() < want.size() ? 1 : 0;
  }
  EXPECT_GT(merged, 30);  // the random automata do have states to merge
}

TEST(RefinePartitionTest, EveryInitialBlockButOneSplits) {
  // p -a-> f, q -a-> q, f -a-> f, only f final: every state has an a-edge, so only the blocks the
  // edges enter tell p (accepts "a") from q (accepts nothing).
  Dfa d;
  d.states.resize(3);
  d.states[0].bytes.push_back({'a', 'a', 2});
  d.states[1].bytes.push_back({'a', 'a', 1});
  d.states[2].bytes.push_back({'a', 'a', 2});
  d.states[2].final = true;
  auto got = RefinePartition(d, {0, 0, 1}, 2);
  ASSERT_TRUE(got.ok());
  ExpectSamePartition(*got, {0, 1, 2});
}

TEST(RefinePartitionTest, MinimizeIsTheSameThroughEitherPath) {
  Rng rng(7);
  for (int iter = 0; iter < 200; ++iter) {
    const Dfa d = RandomDfa(rng, 1 + static_cast<int>(rng.Below(80)));
    std::vector<int32_t> la_moore, la_refined;
    auto moore = Minimize(d, 1 << 30, &la_moore);  // Moore rounds to the fixed point
    auto refined = Minimize(d, 0, nullptr);        // one round, then RefinePartition
    auto la = Minimize(d, 2, &la_refined);         // two rounds, then RefinePartition
    ASSERT_TRUE(moore.ok() && refined.ok() && la.ok());
    ExpectSameDfa(*moore, *refined);
    ExpectSameDfa(*moore, *la);
    ASSERT_EQ(la_refined.size(), static_cast<size_t>(la->num_states()));
  }
}

TEST(RefinePartitionTest, LongChainStaysMinimal) {
  // "ab" repeated: 2·k + 1 states in a chain, every suffix a different language.
  const int k = 20000;
  Dfa d;
  d.states.resize(2 * k + 1);
  for (int i = 0; i < 2 * k; ++i) {
    const uint8_t c = i % 2 == 0 ? 'a' : 'b';
    d.states[static_cast<size_t>(i)].bytes.push_back({c, c, i + 1});
  }
  d.states.back().final = true;
  auto m = Minimize(d, 48, nullptr);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->num_states(), 2 * k + 1);
  // Two copies of a chain side by side from a fork: the copies merge.
  Dfa fork;
  fork.states.resize(2 * 100 + 1);
  fork.states[0].bytes.push_back({'x', 'x', 1});
  fork.states[0].bytes.push_back({'y', 'y', 101});
  for (int i = 0; i < 2; ++i) {
    for (int j = 1; j <= 100; ++j) {
      const int s = i * 100 + j;
      if (j < 100) fork.states[static_cast<size_t>(s)].bytes.push_back({'a', 'a', s + 1});
      fork.states[static_cast<size_t>(s)].final = j == 100;
    }
  }
  auto f = Minimize(fork, 0, nullptr);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->num_states(), 101);
  ASSERT_EQ(f->states[0].bytes.size(), 1u);  // 'x' and 'y' to one state: one range [x, y]
  EXPECT_EQ(f->states[0].bytes[0].lo, 'x');
  EXPECT_EQ(f->states[0].bytes[0].hi, 'y');
}

}  // namespace
}  // namespace gemmad::constrain::internal
