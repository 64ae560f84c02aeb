// BuildProgram: lowers every rule to a minimised DFA and links them into one Program (program.h):
// pruning of unproductive/unreachable states, nullability, left-recursion check, byte classes,
// fewest-bytes-to-complete, return sites and mask-sharing keys.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "constrain/internal/automaton.h"
#include "constrain/internal/program.h"

namespace gemmad::constrain::internal {
namespace {

constexpr int32_t kInf = std::numeric_limits<int32_t>::max() / 4;

struct Lowered {
  std::vector<Dfa> dfas;
  std::vector<std::vector<int32_t>> la;  // lookahead classes (pure byte rules only)
  std::vector<uint64_t> hash;
  std::vector<int32_t> first;
  int32_t num_positions = 0;
};

Result<Lowered> LowerRules(const GrammarAst& ast, const ProgramLimits& limits) {
  Lowered l;
  const auto n = static_cast<size_t>(ast.num_rules());
  l.dfas.resize(n);
  l.la.resize(n);
  l.hash.resize(n);
  size_t total = 0;
  for (size_t r = 0; r < n; ++r) {
    const Rule& rule = ast.rules()[r];
    if (rule.body < 0) return InvalidArgumentError(fmt::format("rule '{}' is not defined", rule.name));
    auto prefix = fmt::format("rule '{}'", rule.name);
    auto nfa = BuildNfa(ast, rule.body, limits.max_states_per_rule);
    if (!nfa.ok()) return nfa.status().WithPrefix(prefix);
    auto dfa = Determinize(*nfa, limits.max_states_per_rule, limits.meter);
    if (!dfa.ok()) return dfa.status().WithPrefix(prefix);
    const bool pure = !dfa->HasSymbols();
    auto min = Minimize(*dfa, limits.lookahead_bytes, pure ? &l.la[r] : nullptr, limits.meter);
    if (!min.ok()) return min.status();
    l.dfas[r] = std::move(*min);
    l.hash[r] = StructureHash(l.dfas[r]);
    total += l.dfas[r].states.size();
    // A DFA state with its edges takes ~100 bytes, the linked program about as much again.
    if (limits.meter) GEMMAD_RETURN_IF_ERROR(limits.meter->Check(total * 200));
    if (total > limits.max_total_states) {
      return InvalidArgumentError(fmt::format(
          "the grammar is too large: more than {} automaton states in all", limits.max_total_states));
    }
  }
  for (size_t r = 0; r < n; ++r) {
    l.first.push_back(l.num_positions);
    l.num_positions += l.dfas[r].num_states();
  }
  return l;
}

// Productive positions: those from which the rule can be completed. A worklist from the final
// positions backwards over the edges (O(positions + edges)): a byte or token edge makes its source
// productive once its target is; a reference edge once both the called rule's start and the
// return position are. (Passes over every position until nothing changed took one pass per
// position of a long chain: nested {88,} repetitions ran 24 s.)
std::vector<uint8_t> Productive(const Lowered& l) {
  const auto n = static_cast<size_t>(l.num_positions);
  // Calls fn(dependency, other, source) for every edge: `source` becomes productive once
  // `dependency` is and `other` (-1: no second condition) is.
  auto for_each_edge = [&](auto&& fn) {
    for (size_t r = 0; r < l.dfas.size(); ++r) {
      const int32_t base = l.first[r];
      for (size_t s = 0; s < l.dfas[r].states.size(); ++s) {
        const int32_t p = base + static_cast<int32_t>(s);
        const DfaState& st = l.dfas[r].states[s];
        for (const auto& e : st.bytes) fn(base + e.to, -1, p);
        for (const auto& e : st.tokens) fn(base + e.to, -1, p);
        for (const auto& e : st.refs) {
          const int32_t callee = l.first[static_cast<size_t>(e.sym)];
          fn(callee, base + e.to, p);
          fn(base + e.to, callee, p);
        }
      }
    }
  };
  std::vector<int32_t> first(n + 1, 0);
  for_each_edge([&](int32_t d, int32_t, int32_t) { ++first[static_cast<size_t>(d) + 1]; });
  for (size_t i = 1; i <= n; ++i) first[i] += first[i - 1];
  std::vector<std::pair<int32_t, int32_t>> waiting(static_cast<size_t>(first[n]));  // (source, other)
  {
    std::vector<int32_t> fill(first.begin(), first.end() - 1);
    for_each_edge([&](int32_t d, int32_t other, int32_t p) {
      waiting[static_cast<size_t>(fill[static_cast<size_t>(d)]++)] = {p, other};
    });
  }
  std::vector<uint8_t> prod(n, 0);
  std::vector<int32_t> queue;
  for (size_t r = 0; r < l.dfas.size(); ++r) {
    for (size_t s = 0; s < l.dfas[r].states.size(); ++s) {
      if (!l.dfas[r].states[s].final) continue;
      const int32_t p = l.first[r] + static_cast<int32_t>(s);
      prod[static_cast<size_t>(p)] = 1;
      queue.push_back(p);
    }
  }
  while (!queue.empty()) {
    const auto d = static_cast<size_t>(queue.back());
    queue.pop_back();
    for (int32_t i = first[d]; i < first[d + 1]; ++i) {
      const auto [p, other] = waiting[static_cast<size_t>(i)];
      if (prod[static_cast<size_t>(p)] || (other >= 0 && !prod[static_cast<size_t>(other)])) continue;
      prod[static_cast<size_t>(p)] = 1;
      queue.push_back(p);
    }
  }
  return prod;
}

void Link(const Lowered& l, const std::vector<uint8_t>& prod, Program& p) {
  const auto n = static_cast<size_t>(l.num_positions);
  p.pos_rule.assign(n, 0);
  p.pos_final.assign(n, 0);
  p.pos_has_bytes.assign(n, 0);
  p.pos_trans.assign(n, 0);
  p.ref_begin.assign(n + 1, 0);
  p.tok_begin.assign(n + 1, 0);
  p.rule_byte_class.resize(l.dfas.size());
  auto keep = [&](int32_t pos) { return prod[static_cast<size_t>(pos)] != 0; };
  for (size_t r = 0; r < l.dfas.size(); ++r) {
    const int32_t base = l.first[r];
    p.rule_names.emplace_back();
    p.rule_start.push_back(base);
    // Byte classes: elementary intervals of all edge boundaries in this rule.
    std::vector<int> points = {0, 256};
    for (const auto& st : l.dfas[r].states) {
      for (const auto& e : st.bytes) {
        points.push_back(e.lo);
        points.push_back(e.hi + 1);
      }
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    auto& bc = p.rule_byte_class[r];
    for (size_t k = 0; k + 1 < points.size(); ++k) {
      for (int b = points[k]; b < points[k + 1]; ++b) bc[static_cast<size_t>(b)] = static_cast<uint8_t>(k);
    }
    const size_t num_classes = points.size() - 1;
    p.rule_num_classes.push_back(static_cast<int32_t>(num_classes));
    for (size_t s = 0; s < l.dfas[r].states.size(); ++s) {
      const auto pos = static_cast<size_t>(base) + s;
      const DfaState& st = l.dfas[r].states[s];
      p.pos_rule[pos] = static_cast<int32_t>(r);
      p.pos_final[pos] = st.final ? 1 : 0;
      p.pos_trans[pos] = static_cast<int32_t>(p.trans.size());
      p.trans.resize(p.trans.size() + num_classes, -1);
      if (!prod[pos]) continue;
      for (const auto& e : st.bytes) {
        if (!keep(base + e.to)) continue;
        for (int b = e.lo; b <= e.hi; ++b) {
          p.trans[static_cast<size_t>(p.pos_trans[pos] + bc[static_cast<size_t>(b)])] = base + e.to;
        }
        p.pos_has_bytes[pos] = 1;
      }
    }
  }
  for (size_t r = 0; r < l.dfas.size(); ++r) {
    const int32_t base = l.first[r];
    for (size_t s = 0; s < l.dfas[r].states.size(); ++s) {
      const auto pos = static_cast<size_t>(base) + s;
      const DfaState& st = l.dfas[r].states[s];
      if (prod[pos]) {
        for (const auto& e : st.refs) {
          if (keep(l.first[static_cast<size_t>(e.sym)]) && keep(base + e.to)) {
            p.refs.push_back({e.sym, base + e.to});
          }
        }
        for (const auto& e : st.tokens) {
          if (keep(base + e.to)) p.toks.push_back({e.sym, base + e.to});
        }
      }
      p.ref_begin[pos + 1] = static_cast<int32_t>(p.refs.size());
      p.tok_begin[pos + 1] = static_cast<int32_t>(p.toks.size());
    }
  }
}

template <typename F>
void ForRefs(const Program& p, int32_t pos, F f) {
  for (int32_t i = p.ref_begin[static_cast<size_t>(pos)]; i < p.ref_begin[static_cast<size_t>(pos) + 1]; ++i) {
    f(p.refs[static_cast<size_t>(i)]);
  }
}

void ComputeNullable(Program& p) {
  std::vector<uint8_t> np(p.pos_final.begin(), p.pos_final.end());
  p.rule_nullable.assign(p.rule_start.size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (int32_t pos = p.num_positions() - 1; pos >= 0; --pos) {
      if (np[static_cast<size_t>(pos)]) continue;
      bool ok = false;
      ForRefs(p, pos, [&](const SymEdge& e) {
        ok = ok || (p.rule_nullable[static_cast<size_t>(e.sym)] && np[static_cast<size_t>(e.to)]);
      });
      if (ok) {
        np[static_cast<size_t>(pos)] = 1;
        changed = true;
      }
    }
    for (size_t r = 0; r < p.rule_start.size(); ++r) {
      uint8_t v = np[static_cast<size_t>(p.rule_start[r])];
      if (v != p.rule_nullable[r]) {
        p.rule_nullable[r] = v;
        changed = true;
      }
    }
  }
}

// Rule graph "R can call X before consuming anything"; a cycle is left recursion.
Status CheckLeftRecursion(const Program& p) {
  const size_t n = p.rule_start.size();
  std::vector<std::vector<int32_t>> calls(n);
  for (size_t r = 0; r < n; ++r) {
    std::vector<int32_t> stack = {p.rule_start[r]};
    std::vector<int32_t> seen = stack;
    while (!stack.empty()) {
      int32_t pos = stack.back();
      stack.pop_back();
      ForRefs(p, pos, [&](const SymEdge& e) {
        calls[r].push_back(e.sym);
        if (p.rule_nullable[static_cast<size_t>(e.sym)] &&
            std::find(seen.begin(), seen.end(), e.to) == seen.end()) {
          seen.push_back(e.to);
          stack.push_back(e.to);
        }
      });
    }
  }
  std::vector<int> color(n, 0);
  std::vector<int32_t> path;
  std::string cycle;
  auto dfs = [&](auto&& self, int32_t r) -> bool {
    color[static_cast<size_t>(r)] = 1;
    path.push_back(r);
    for (int32_t x : calls[static_cast<size_t>(r)]) {
      if (color[static_cast<size_t>(x)] == 1) {
        auto it = std::find(path.begin(), path.end(), x);
        for (; it != path.end(); ++it) cycle += p.rule_names[static_cast<size_t>(*it)] + " -> ";
        cycle += p.rule_names[static_cast<size_t>(x)];
        return true;
      }
      if (color[static_cast<size_t>(x)] == 0 && self(self, x)) return true;
    }
    color[static_cast<size_t>(r)] = 2;
    path.pop_back();
    return false;
  };
  for (size_t r = 0; r < n; ++r) {
    if (color[r] == 0 && dfs(dfs, static_cast<int32_t>(r))) {
      return InvalidArgumentError(fmt::format(
          "left recursion is not supported ({}); rewrite the rule with repetition", cycle));
    }
  }
  return OkStatus();
}

void ComputeMinComplete(Program& p) {
  const auto n = static_cast<size_t>(p.num_positions());
  p.min_complete.assign(n, kInf);
  for (size_t i = 0; i < n; ++i) {
    if (p.pos_final[i]) p.min_complete[i] = 0;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (int32_t pos = p.num_positions() - 1; pos >= 0; --pos) {
      const auto u = static_cast<size_t>(pos);
      int32_t best = p.min_complete[u];
      const int32_t nc = p.rule_num_classes[static_cast<size_t>(p.pos_rule[u])];
      for (int32_t c = 0; c < nc && p.pos_has_bytes[u]; ++c) {
        int32_t t = p.trans[static_cast<size_t>(p.pos_trans[u] + c)];
        if (t >= 0) best = std::min(best, 1 + p.min_complete[static_cast<size_t>(t)]);
      }
      for (int32_t i = p.tok_begin[u]; i < p.tok_begin[u + 1]; ++i) {
        best = std::min(best, 1 + p.min_complete[static_cast<size_t>(p.toks[static_cast<size_t>(i)].to)]);
      }
      ForRefs(p, pos, [&](const SymEdge& e) {
        int64_t v = static_cast<int64_t>(p.min_complete[static_cast<size_t>(p.rule_start[static_cast<size_t>(e.sym)])]) +
                    p.min_complete[static_cast<size_t>(e.to)];
        if (v < best) best = static_cast<int32_t>(v);
      });
      if (best < p.min_complete[u]) {
        p.min_complete[u] = best;
        changed = true;
      }
    }
  }
}

}  // namespace

Result<Program> BuildProgram(const GrammarAst& ast, const ProgramLimits& limits) {
  if (ast.num_rules() == 0) return InvalidArgumentError("the grammar has no rules");
  GEMMAD_ASSIGN_OR_RETURN(Lowered l, LowerRules(ast, limits));
  std::vector<uint8_t> prod = Productive(l);
  const int32_t root = ast.root();
  if (!prod[static_cast<size_t>(l.first[static_cast<size_t>(root)])]) {
    return InvalidArgumentError(fmt::format(
        "the grammar matches no string (rule '{}' can never be completed)",
        ast.rules()[static_cast<size_t>(root)].name));
  }
  Program p;
  p.root_rule = root;
  Link(l, prod, p);
  for (size_t r = 0; r < l.dfas.size(); ++r) {
    p.rule_names[r] = ast.rules()[r].name;
    p.rule_pure.push_back(l.dfas[r].HasSymbols() ? 0 : 1);
  }
  ComputeNullable(p);
  GEMMAD_RETURN_IF_ERROR(CheckLeftRecursion(p));
  ComputeMinComplete(p);
  p.return_sites.resize(p.rule_start.size());
  for (const auto& e : p.refs) p.return_sites[static_cast<size_t>(e.sym)].push_back(e.to);
  for (auto& v : p.return_sites) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  // Reachable positions (from the root's start, through byte/token edges, calls and returns).
  std::vector<uint8_t> reach(static_cast<size_t>(p.num_positions()), 0);
  std::vector<int32_t> stack = {p.rule_start[static_cast<size_t>(root)]};
  reach[static_cast<size_t>(stack[0])] = 1;
  auto visit = [&](int32_t pos) {
    if (!reach[static_cast<size_t>(pos)]) {
      reach[static_cast<size_t>(pos)] = 1;
      stack.push_back(pos);
    }
  };
  while (!stack.empty()) {
    const int32_t pos = stack.back();
    const auto u = static_cast<size_t>(pos);
    stack.pop_back();
    const int32_t nc = p.rule_num_classes[static_cast<size_t>(p.pos_rule[u])];
    for (int32_t c = 0; c < nc && p.pos_has_bytes[u]; ++c) {
      if (int32_t t = p.trans[static_cast<size_t>(p.pos_trans[u] + c)]; t >= 0) visit(t);
    }
    for (int32_t i = p.tok_begin[u]; i < p.tok_begin[u + 1]; ++i) visit(p.toks[static_cast<size_t>(i)].to);
    ForRefs(p, pos, [&](const SymEdge& e) {
      visit(e.to);
      visit(p.rule_start[static_cast<size_t>(e.sym)]);
    });
  }
  std::map<std::tuple<uint64_t, int32_t, int32_t>, int32_t> keys;
  p.local_key.assign(static_cast<size_t>(p.num_positions()), -1);
  for (size_t r = 0; r < l.dfas.size(); ++r) {
    for (int32_t s = 0; s < l.dfas[r].num_states(); ++s) {
      const auto pos = static_cast<size_t>(l.first[r] + s);
      if (!p.pos_has_bytes[pos] || !reach[pos]) continue;
      const int32_t cls = l.la[r].empty() ? s : 1000000000 + l.la[r][static_cast<size_t>(s)];
      auto key = std::make_tuple(l.hash[r], l.dfas[r].num_states(), cls);
      auto [it, inserted] = keys.emplace(key, static_cast<int32_t>(keys.size()));
      p.local_key[pos] = it->second;
    }
  }
  p.num_local_keys = static_cast<int32_t>(keys.size());
  return p;
}

size_t Program::TableBytes() const {
  const auto bytes = [](const auto& v) { return v.size() * sizeof(v[0]); };
  size_t n = bytes(rule_start) + bytes(rule_nullable) + bytes(pos_rule) + bytes(pos_final) + bytes(pos_has_bytes) +
             bytes(pos_trans) + bytes(rule_byte_class) + bytes(rule_num_classes) + bytes(rule_pure) + bytes(trans) +
             bytes(ref_begin) + bytes(refs) + bytes(tok_begin) + bytes(toks) + bytes(min_complete) + bytes(local_key);
  for (const auto& name : rule_names) n += sizeof(name) + name.size();
  for (const auto& sites : return_sites) n += sizeof(sites) + bytes(sites);
  return n;
}

}  // namespace gemmad::constrain::internal
