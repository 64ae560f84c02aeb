// Structured-output grammar engine on the real 262,144-token Gemma 4 vocabulary: compile time per
// schema, and next-token mask time per step (p50/p99 over random walks, separately for steps
// inside JSON strings), against a baseline of copying one full bitmask in the same run.
// gemmad-bench-libs: gemmad_constrain gemmad_tokenizer
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "base/rng.h"
#include "base/stopwatch.h"
#include "constrain/compiled_grammar.h"
#include "constrain/matcher.h"
#include "constrain/testing/gemma_vocab.h"

namespace {

using gemmad::constrain::CompiledGrammar;
using gemmad::constrain::ConstraintKind;
using gemmad::constrain::ConstraintSpec;
using gemmad::constrain::Matcher;

std::shared_ptr<const gemmad::constrain::Vocabulary> Vocab() {
  return gemmad::constrain::testing::GemmaVocab(GEMMAD_SHARED_DIR);
}

struct Case {
  const char* name;
  ConstraintSpec spec;
};

ConstraintSpec Json(const char* schema) {
  ConstraintSpec s;
  s.kind = ConstraintKind::kJsonSchema;
  s.json_schema = schema;
  return s;
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> c;
    c.push_back({"person", Json(R"({"type":"object","properties":{"name":{"type":"string","maxLength":40},
        "age":{"type":"integer","minimum":0,"maximum":150},"email":{"type":"string","format":"email"},
        "tags":{"type":"array","items":{"type":"string","maxLength":12},"maxItems":5},
        "role":{"enum":["admin","user","guest"]},"active":{"type":"boolean"}},"required":["name","age","role"]})")});
    c.push_back({"nested", Json(R"({"type":"object","properties":{"id":{"type":"string","format":"uuid"},
        "items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{4}$"},
        "qty":{"type":"integer","minimum":1},"price":{"type":"number","minimum":0,"exclusiveMaximum":10000}},
        "required":["sku","qty"]},"minItems":1,"maxItems":8},"note":{"anyOf":[{"type":"string","maxLength":80},{"type":"null"}]},
        "created":{"type":"string","format":"date-time"}},"required":["id","items"]})")});
    c.push_back({"recursive", Json(R"({"$defs":{"node":{"type":"object","properties":{"value":{"type":"string"},
        "children":{"type":"array","items":{"$ref":"#/$defs/node"},"maxItems":4}},"required":["value"]}},"$ref":"#/$defs/node"})")});
    ConstraintSpec any;
    any.kind = ConstraintKind::kJsonObject;
    c.push_back({"json_object", any});
    ConstraintSpec tool;
    tool.kind = ConstraintKind::kGemmaToolCalls;
    tool.tools = {{"get_weather", R"({"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":14},
        "unit":{"enum":["c","f"]}},"required":["city"]})"}};
    c.push_back({"tool_call", tool});
    return c;
  }();
  return cases;
}

std::shared_ptr<const CompiledGrammar> Compiled(size_t i) {
  static std::vector<std::shared_ptr<const CompiledGrammar>> g(Cases().size());
  if (!g[i]) {
    auto r = gemmad::constrain::Compile(Cases()[i].spec, Vocab());
    GEMMAD_CHECK(r.ok(), "{}", r.status().ToString());
    g[i] = *r;
  }
  return g[i];
}

void BM_Compile(benchmark::State& state) {
  const auto& c = Cases()[static_cast<size_t>(state.range(0))];
  auto vocab = Vocab();
  for (auto _ : state) {
    auto r = gemmad::constrain::Compile(c.spec, vocab);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(c.name);
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

// Random walks to completion; every step's mask time is recorded (separately inside strings).
void BM_MaskWalk(benchmark::State& state) {
  const size_t idx = static_cast<size_t>(state.range(0));
  auto g = Compiled(idx);
  const auto& vocab = g->vocabulary();
  std::vector<uint32_t> words(static_cast<size_t>(vocab.bitmask_words()));
  std::vector<double> all, in_string;
  gemmad::Rng rng(7);
  for (auto _ : state) {
    Matcher m(g);
    std::string text;
    for (int step = 0; step < 400 && !m.IsTerminated(); ++step) {
      gemmad::Stopwatch sw;
      m.FillNextTokenBitmask(words);
      const double us = sw.Seconds() * 1e6;
      all.push_back(us);
      size_t quotes = 0;
      for (char ch : text) quotes += ch == '"';
      if (quotes % 2 == 1) in_string.push_back(us);
      std::vector<int32_t> allowed;
      for (int32_t id = 0; id < vocab.size(); ++id) {
        if (words[static_cast<size_t>(id) / 32] >> (id % 32) & 1u) allowed.push_back(id);
      }
      if (allowed.empty()) break;
      int32_t pick = allowed[rng.Below(allowed.size())];
      // Past 40 steps, head for completion: stop if allowed, else prefer short tokens.
      if (step > 40) {
        if (m.CanTerminate()) pick = vocab.stop_token_ids()[0];
        else {
          int32_t best = pick, best_len = 1 << 30;
          for (int k = 0; k < 64; ++k) {
            int32_t id = allowed[rng.Below(allowed.size())];
            if (!m.AcceptToken(id)) continue;
            int32_t left = m.MinBytesToComplete();
            m.Rollback(1);
            if (left < best_len) {
              best_len = left;
              best = id;
            }
          }
          pick = best;
        }
      }
      GEMMAD_CHECK(m.AcceptToken(pick), "accept");
      if (!vocab.IsSpecial(pick)) text += vocab.TokenBytes(pick);
    }
  }
  state.counters["p50_us"] = Percentile(all, 0.5);
  state.counters["p99_us"] = Percentile(all, 0.99);
  state.counters["str_p50_us"] = Percentile(in_string, 0.5);
  state.counters["str_p99_us"] = Percentile(in_string, 0.99);
  state.counters["steps"] = static_cast<double>(all.size());
  state.SetLabel(Cases()[idx].name);
}

// Baseline: copying one full 262,144-bit mask (the least any mask computation costs).
void BM_BaselineMaskCopy(benchmark::State& state) {
  const auto& src = Vocab()->ordinary_mask();
  std::vector<uint32_t> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size() * sizeof(uint32_t));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
}

}  // namespace

BENCHMARK(BM_BaselineMaskCopy);
BENCHMARK(BM_Compile)->DenseRange(0, 4)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_MaskWalk)->DenseRange(0, 4)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK_MAIN();
