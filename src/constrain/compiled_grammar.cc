// Compile(): front end -> GrammarAst -> Program (rule automata) -> per-position token masks.
#include "constrain/compiled_grammar.h"

#include "base/stopwatch.h"
#include "constrain/internal/frontends.h"
#include "constrain/internal/grammar_ast.h"
#include "constrain/internal/mask_cache.h"
#include "constrain/internal/program.h"

namespace gemmad::constrain {

CompiledGrammar::CompiledGrammar(std::shared_ptr<const Vocabulary> vocab,
                                 std::shared_ptr<const internal::Program> program,
                                 CompileStats stats, std::string cache_key, std::string ebnf)
    : vocab_(std::move(vocab)),
      program_(std::move(program)),
      stats_(stats),
      cache_key_(std::move(cache_key)),
      ebnf_(std::move(ebnf)) {}

namespace {

Status BuildAst(const ConstraintSpec& spec, const Vocabulary& vocab, internal::GrammarAst& ast) {
  internal::JsonOptions json;
  json.compact = spec.disable_any_whitespace;
  json.closed_objects = spec.disable_additional_properties;
  switch (spec.kind) {
    case ConstraintKind::kJsonSchema: return internal::BuildFromJsonSchema(spec.json_schema, json, ast);
    case ConstraintKind::kJsonObject: return internal::BuildJsonObject(json, ast);
    case ConstraintKind::kRegex: return internal::BuildFromRegex(spec.regex, ast);
    case ConstraintKind::kChoice: return internal::BuildFromChoices(spec.choices, ast);
    case ConstraintKind::kGrammar: return internal::BuildFromEbnf(spec.grammar, ast);
    case ConstraintKind::kGemmaToolCalls: return internal::BuildToolCalls(spec, vocab, ast);
  }
  return InvalidArgumentError("unknown constraint kind");
}

}  // namespace

Result<std::shared_ptr<const CompiledGrammar>> Compile(const ConstraintSpec& spec,
                                                       std::shared_ptr<const Vocabulary> vocab,
                                                       const CompileBudget& budget) {
  Stopwatch sw;
  internal::GrammarAst ast;
  ast.set_budget(budget);
  const BudgetMeter& meter = ast.meter();
  GEMMAD_RETURN_IF_ERROR(BuildAst(spec, *vocab, ast));
  internal::ProgramLimits limits;
  limits.meter = &meter;
  auto program = internal::BuildProgram(ast, limits);
  if (!program.ok()) {
    return program.status().WithPrefix(std::string(ConstraintKindName(spec.kind)));
  }
  auto shared = std::make_shared<internal::Program>(std::move(program).value());
  const size_t program_bytes = shared->TableBytes();
  if (Status s = internal::BuildMasks(*shared, *vocab, &meter, program_bytes); !s.ok()) {
    return s.WithPrefix(std::string(ConstraintKindName(spec.kind)));
  }
  CompileStats stats;
  stats.num_rules = static_cast<int32_t>(shared->rule_start.size());
  stats.num_states = shared->num_positions();
  size_t bytes = shared->trans.size() * sizeof(int32_t);
  for (const auto& lm : shared->local_masks) bytes += (lm.ids.size() + lm.bits.size()) * sizeof(int32_t);
  for (const auto& pm : shared->pos_masks) {
    if (pm.local < 0) continue;
    ++stats.num_cached_states;
    stats.num_undecided_tokens += static_cast<int64_t>(pm.undecided.size());
    bytes += (pm.extra_accepted.size() + pm.undecided.size()) * sizeof(int32_t) + pm.undecided_lcp.size();
  }
  stats.cache_size_bytes = bytes;
  stats.compile_ms = sw.Millis();
  return std::make_shared<const CompiledGrammar>(std::move(vocab), std::move(shared), stats,
                                                 spec.CacheKey(), ast.ToEbnf());
}

}  // namespace gemmad::constrain
