// RefinePartition (partition_refine.h).
#include "constrain/internal/partition_refine.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

namespace gemmad::constrain::internal {
namespace {

// A refinable partition of {0..n-1}: the elements of set s are elems[first[s] .. past[s]), `loc`
// is each element's index in elems. mark(e) moves e to the marked front of its set; split() cuts
// every set with marked elements in two, the smaller part becoming a new set (all-but-the-largest:
// what makes the refinement O(m log n)).
class Partition {
 public:
  // Sets from `group` (element → set, sets 0..num_sets-1, each non-empty).
  Partition(const std::vector<int32_t>& group, int32_t num_sets)
      : elems_(group.size()), loc_(group.size()), set_(group),
        first_(static_cast<size_t>(num_sets)), past_(static_cast<size_t>(num_sets)),
        marked_(static_cast<size_t>(num_sets), 0) {
    std::vector<int32_t> count(static_cast<size_t>(num_sets) + 1, 0);
    for (int32_t g : group) ++count[static_cast<size_t>(g) + 1];
    for (size_t s = 1; s < count.size(); ++s) count[s] += count[s - 1];
    for (size_t s = 0; s < static_cast<size_t>(num_sets); ++s) {
      first_[s] = count[s];
      past_[s] = count[s + 1];
    }
    for (size_t e = 0; e < group.size(); ++e) {
      const auto i = static_cast<size_t>(count[static_cast<size_t>(group[e])]++);
      elems_[i] = static_cast<int32_t>(e);
      loc_[e] = static_cast<int32_t>(i);
    }
  }

  int32_t num_sets() const { return static_cast<int32_t>(first_.size()); }
  int32_t set_of(int32_t e) const { return set_[static_cast<size_t>(e)]; }
  int32_t first(int32_t s) const { return first_[static_cast<size_t>(s)]; }
  int32_t past(int32_t s) const { return past_[static_cast<size_t>(s)]; }
  int32_t elem(int32_t i) const { return elems_[static_cast<size_t>(i)]; }

  void Mark(int32_t e) {
    const auto s = static_cast<size_t>(set_[static_cast<size_t>(e)]);
    const int32_t i = loc_[static_cast<size_t>(e)];
    const int32_t j = first_[s] + marked_[s];
    if (i < j) return;  // already marked
    std::swap(elems_[static_cast<size_t>(i)], elems_[static_cast<size_t>(j)]);
    loc_[static_cast<size_t>(elems_[static_cast<size_t>(i)])] = i;
    loc_[static_cast<size_t>(e)] = j;
    if (marked_[s]++ == 0) touched_.push_back(static_cast<int32_t>(s));
  }

  void Split() {
    while (!touched_.empty()) {
      const auto s = static_cast<size_t>(touched_.back());
      touched_.pop_back();
      const int32_t j = first_[s] + marked_[s];
      marked_[s] = 0;
      if (j == past_[s]) continue;  // every element marked: nothing to cut
      int32_t lo, hi;               // the new set's range: the smaller part
      if (j - first_[s] <= past_[s] - j) {
        lo = first_[s];
        hi = j;
        first_[s] = j;
      } else {
        lo = j;
        hi = past_[s];
        past_[s] = j;
      }
      const auto z = static_cast<int32_t>(first_.size());
      first_.push_back(lo);
      past_.push_back(hi);
      marked_.push_back(0);
      for (int32_t i = lo; i < hi; ++i) set_[static_cast<size_t>(elems_[static_cast<size_t>(i)])] = z;
    }
  }

 private:
  std::vector<int32_t> elems_, loc_, set_;
  std::vector<int32_t> first_, past_, marked_;
  std::vector<int32_t> touched_;
};

struct Transition {
  int32_t tail, label, head;
};

// Every edge as transitions over one alphabet: the byte intervals that no edge's range boundary
// cuts (labels 0..k-1), then each rule reference and each token id that occurs.
std::vector<Transition> Transitions(const Dfa& dfa, int32_t* num_labels) {
  std::array<bool, 257> cut{};
  cut[0] = true;
  std::map<int32_t, int32_t> refs, tokens;
  for (const auto& st : dfa.states) {
    for (const auto& e : st.bytes) {
      cut[e.lo] = true;
      cut[static_cast<size_t>(e.hi) + 1] = true;
    }
    for (const auto& e : st.refs) refs.emplace(e.sym, 0);
    for (const auto& e : st.tokens) tokens.emplace(e.sym, 0);
  }
  std::array<int32_t, 256> interval{};  // byte → interval label
  int32_t k = -1;
  for (int b = 0; b < 256; ++b) {
    if (cut[static_cast<size_t>(b)]) ++k;
    interval[static_cast<size_t>(b)] = k;
  }
  int32_t next = k + 1;
  for (auto& [sym, label] : refs) label = next++;
  for (auto& [sym, label] : tokens) label = next++;
  *num_labels = next;
  std::vector<Transition> out;
  for (size_t s = 0; s < dfa.states.size(); ++s) {
    const auto tail = static_cast<int32_t>(s);
    const DfaState& st = dfa.states[s];
    for (const auto& e : st.bytes) {
      // One transition per interval the range covers: the intervals' first bytes are the cuts.
      for (int b = e.lo; b <= e.hi; ++b) {
        if (b == e.lo || cut[static_cast<size_t>(b)]) out.push_back({tail, interval[static_cast<size_t>(b)], e.to});
      }
    }
    for (const auto& e : st.refs) out.push_back({tail, refs.at(e.sym), e.to});
    for (const auto& e : st.tokens) out.push_back({tail, tokens.at(e.sym), e.to});
  }
  return out;
}

}  // namespace

Result<std::vector<int32_t>> RefinePartition(const Dfa& dfa, const std::vector<int32_t>& classes,
                                             int32_t num_classes, const BudgetMeter* meter) {
  const auto n = static_cast<int32_t>(dfa.states.size());
  if (n == 0) return classes;
  int32_t num_labels = 0;
  const std::vector<Transition> trans = Transitions(dfa, &num_labels);
  const auto m = static_cast<int32_t>(trans.size());
  if (meter) GEMMAD_RETURN_IF_ERROR(meter->Check(static_cast<size_t>(m) * 40));

  Partition blocks(classes, num_classes);
  // Cords: the transitions grouped by label (labels that occur only).
  std::vector<int32_t> by_label(static_cast<size_t>(num_labels), -1), label_group(trans.size());
  int32_t num_cords = 0;
  for (size_t t = 0; t < trans.size(); ++t) {
    int32_t& g = by_label[static_cast<size_t>(trans[t].label)];
    if (g < 0) g = num_cords++;
    label_group[t] = g;
  }
  Partition cords(label_group, num_cords);
  // Incoming transitions per state.
  std::vector<int32_t> in_first(static_cast<size_t>(n) + 1, 0), in_list(trans.size());
  for (const auto& t : trans) ++in_first[static_cast<size_t>(t.head) + 1];
  for (size_t s = 1; s < in_first.size(); ++s) in_first[s] += in_first[s - 1];
  {
    std::vector<int32_t> fill(in_first.begin(), in_first.end() - 1);
    for (size_t t = 0; t < trans.size(); ++t) {
      in_list[static_cast<size_t>(fill[static_cast<size_t>(trans[t].head)]++)] = static_cast<int32_t>(t);
    }
  }

  // Every block but the first splits the cords by the transitions entering it; every cord splits
  // the blocks by the states it leaves. Sets created along the way join the end of both queues.
  int32_t b = 1, c = 0;
  int64_t steps = 0;
  while (c < cords.num_sets()) {
    for (int32_t i = cords.first(c); i < cords.past(c); ++i) {
      blocks.Mark(trans[static_cast<size_t>(cords.elem(i))].tail);
    }
    blocks.Split();
    ++c;
    while (b < blocks.num_sets()) {
      for (int32_t i = blocks.first(b); i < blocks.past(b); ++i) {
        const auto s = static_cast<size_t>(blocks.elem(i));
        for (int32_t j = in_first[s]; j < in_first[s + 1]; ++j) cords.Mark(in_list[static_cast<size_t>(j)]);
        if (meter && ++steps % 4096 == 0) GEMMAD_RETURN_IF_ERROR(meter->Check(static_cast<size_t>(m) * 40));
      }
      cords.Split();
      ++b;
    }
  }
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (int32_t s = 0; s < n; ++s) out[static_cast<size_t>(s)] = blocks.set_of(s);
  return out;
}

}  // namespace gemmad::constrain::internal
