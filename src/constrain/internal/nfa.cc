// Thompson construction of a rule body (automaton.h). Repetitions are expanded into copies;
// intersections are determinised, multiplied and embedded as plain byte states.
#include <fmt/format.h>

#include "constrain/internal/automaton.h"
#include "constrain/internal/utf8_ranges.h"

namespace gemmad::constrain::internal {
namespace {

struct Frag {
  int32_t start;
  int32_t end;
};

class Builder {
 public:
  Builder(const GrammarAst& ast, size_t max_states) : ast_(ast), max_states_(max_states) {}

  Result<Frag> Build(ExprId id) {
    GEMMAD_RETURN_IF_ERROR(ast_.CheckBudget());
    if (static_cast<size_t>(nfa_.num_states()) > max_states_) {
      return InvalidArgumentError(fmt::format(
          "the grammar is too large: a rule needs more than {} automaton states (large repetition "
          "counts or string lengths?)",
          max_states_));
    }
    const Expr& e = ast_.expr(id);
    int32_t s = nfa_.AddState();
    int32_t t = nfa_.AddState();
    switch (e.kind) {
      case ExprKind::kEmpty: Eps(s, t); break;
      case ExprKind::kNothing: break;
      case ExprKind::kBytes: {
        int32_t cur = s;
        for (size_t i = 0; i < e.bytes.size(); ++i) {
          int32_t next = i + 1 == e.bytes.size() ? t : nfa_.AddState();
          auto b = static_cast<uint8_t>(e.bytes[i]);
          Add(cur, {EdgeKind::kByte, b, b, -1, next});
          cur = next;
        }
        break;
      }
      case ExprKind::kByteClass:
        for (const auto& r : e.ranges) {
          Add(s, {EdgeKind::kByte, static_cast<uint8_t>(r.lo), static_cast<uint8_t>(r.hi), -1, t});
        }
        break;
      case ExprKind::kCharClass: BuildCharClass(e.ranges, s, t); break;
      case ExprKind::kSeq: {
        int32_t cur = s;
        for (ExprId c : e.children) {
          GEMMAD_ASSIGN_OR_RETURN(Frag f, Build(c));
          Eps(cur, f.start);
          cur = f.end;
        }
        Eps(cur, t);
        break;
      }
      case ExprKind::kAlt:
        for (ExprId c : e.children) {
          GEMMAD_ASSIGN_OR_RETURN(Frag f, Build(c));
          Eps(s, f.start);
          Eps(f.end, t);
        }
        break;
      case ExprKind::kRepeat: GEMMAD_RETURN_IF_ERROR(BuildRepeat(e, s, t)); break;
      case ExprKind::kRuleRef: Add(s, {EdgeKind::kRef, 0, 0, e.ref, t}); break;
      case ExprKind::kToken: Add(s, {EdgeKind::kToken, 0, 0, e.ref, t}); break;
      case ExprKind::kIntersect:
      case ExprKind::kExcept: GEMMAD_RETURN_IF_ERROR(BuildIntersect(e, s, t)); break;
    }
    return Frag{s, t};
  }

  Nfa Take(int32_t start, int32_t end) {
    nfa_.start = start;
    nfa_.final[static_cast<size_t>(end)] = 1;
    return std::move(nfa_);
  }

 private:
  void Add(int32_t from, NfaEdge e) { nfa_.out[static_cast<size_t>(from)].push_back(e); }
  void Eps(int32_t from, int32_t to) { Add(from, {EdgeKind::kEps, 0, 0, -1, to}); }

  void BuildCharClass(const std::vector<CodeRange>& ranges, int32_t s, int32_t t) {
    for (const auto& r : ranges) {
      for (const auto& seq : Utf8Sequences(r.lo, r.hi)) {
        int32_t cur = s;
        for (size_t i = 0; i < seq.size(); ++i) {
          int32_t next = i + 1 == seq.size() ? t : nfa_.AddState();
          Add(cur, {EdgeKind::kByte, seq[i].lo, seq[i].hi, -1, next});
          cur = next;
        }
      }
    }
  }

  Status BuildRepeat(const Expr& e, int32_t s, int32_t t) {
    ExprId child = e.children[0];
    int32_t cur = s;
    for (int32_t i = 0; i < e.min; ++i) {
      GEMMAD_ASSIGN_OR_RETURN(Frag f, Build(child));
      Eps(cur, f.start);
      cur = f.end;
    }
    if (e.max < 0) {
      GEMMAD_ASSIGN_OR_RETURN(Frag f, Build(child));
      int32_t loop = nfa_.AddState();
      Eps(cur, loop);
      Eps(loop, f.start);
      Eps(f.end, loop);
      Eps(loop, t);
      return OkStatus();
    }
    Eps(cur, t);
    for (int32_t i = e.min; i < e.max; ++i) {
      GEMMAD_ASSIGN_OR_RETURN(Frag f, Build(child));
      Eps(cur, f.start);
      Eps(f.end, t);
      cur = f.end;
    }
    return OkStatus();
  }

  Status BuildIntersect(const Expr& e, int32_t s, int32_t t) {
    Dfa acc;
    for (size_t i = 0; i < e.children.size(); ++i) {
      Builder sub(ast_, max_states_);
      GEMMAD_ASSIGN_OR_RETURN(Frag f, sub.Build(e.children[i]));
      Nfa n = sub.Take(f.start, f.end);
      for (const auto& edges : n.out) {
        for (const auto& ed : edges) {
          if (ed.kind == EdgeKind::kRef || ed.kind == EdgeKind::kToken) {
            return InvalidArgumentError(
                "an intersection (e.g. a string pattern combined with a length or format) may "
                "only contain plain characters, not rule references");
          }
        }
      }
      GEMMAD_ASSIGN_OR_RETURN(Dfa d, Determinize(n, max_states_, &ast_.meter()));
      if (e.kind == ExprKind::kExcept && i == 1) d = ComplementDfa(d);
      if (i == 0) {
        acc = std::move(d);
      } else {
        GEMMAD_ASSIGN_OR_RETURN(acc, IntersectDfa(acc, d, max_states_, &ast_.meter()));
      }
    }
    GEMMAD_ASSIGN_OR_RETURN(acc, Minimize(acc, 0, nullptr, &ast_.meter()));
    if (static_cast<size_t>(nfa_.num_states()) + acc.states.size() > max_states_) {
      return InvalidArgumentError("the grammar is too large (intersection)");
    }
    const auto base = static_cast<int32_t>(nfa_.num_states());
    for (size_t i = 0; i < acc.states.size(); ++i) nfa_.AddState();
    Eps(s, base);
    for (size_t i = 0; i < acc.states.size(); ++i) {
      const DfaState& ds = acc.states[i];
      const int32_t from = base + static_cast<int32_t>(i);
      for (const auto& b : ds.bytes) Add(from, {EdgeKind::kByte, b.lo, b.hi, -1, base + b.to});
      if (ds.final) Eps(from, t);
    }
    return OkStatus();
  }

  const GrammarAst& ast_;
  size_t max_states_;
  Nfa nfa_;
};

}  // namespace

Result<Nfa> BuildNfa(const GrammarAst& ast, ExprId body, size_t max_states) {
  Builder b(ast, max_states);
  GEMMAD_ASSIGN_OR_RETURN(Frag f, b.Build(body));
  return b.Take(f.start, f.end);
}

}  // namespace gemmad::constrain::internal
