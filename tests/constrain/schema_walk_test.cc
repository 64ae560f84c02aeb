// For each of the generated schemas (tests/golden/constrain/schemas.jsonl), a seeded random walk
// over the real 262,144-token Gemma 4 vocabulary: random allowed tokens for a while, then tokens
// that bring completion closer, until a stop token ends the output. Every walk must terminate,
// masks must agree with AcceptToken on sampled tokens, and every output must validate with
// Python `jsonschema` (scripts/golden/constrain/validate_outputs.py, run at the end).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/rng.h"
#include "constrain/compiled_grammar.h"
#include "constrain/matcher.h"
#include "constrain/testing/gemma_vocab.h"

namespace gemmad::constrain {
namespace {

#ifndef GEMMAD_WALK_STRIDE
#define GEMMAD_WALK_STRIDE 1
#endif
// CI runs every GEMMAD_WALK_STRIDE-th schema; the `slow` variant runs all of them.
constexpr int kStride = GEMMAD_WALK_STRIDE;
constexpr int kFreeSteps = 24;
constexpr int kMaxSteps = 3000;

bool Bit(const std::vector<uint32_t>& w, int32_t id) { return (w[static_cast<size_t>(id) / 32] >> (id % 32)) & 1u; }

// One walk; returns the generated text, or an error description.
std::string Walk(const std::shared_ptr<const CompiledGrammar>& g, uint64_t seed, std::string* error) {
  const Vocabulary& v = g->vocabulary();
  Matcher m(g);
  Rng rng(seed);
  std::vector<uint32_t> words(static_cast<size_t>(v.bitmask_words()));
  std::string text;
  for (int step = 0; step < kMaxSteps; ++step) {
    m.FillNextTokenBitmask(words);
    std::vector<int32_t> allowed;
    for (int32_t id = 0; id < v.size(); ++id) {
      if (Bit(words, id)) allowed.push_back(id);
    }
    if (allowed.empty()) {
      *error = "empty mask at step " + std::to_string(step);
      return text;
    }
    // Mask vs AcceptToken on a sample of tokens (allowed and not).
    for (int k = 0; k < 8; ++k) {
      int32_t id = static_cast<int32_t>(rng.Below(static_cast<uint64_t>(v.size())));
      if (k < 4) id = allowed[rng.Below(allowed.size())];
      const bool ok = m.AcceptToken(id);
      if (ok) m.Rollback(1);
      if (ok != Bit(words, id)) {
        *error = "mask disagrees with AcceptToken for token " + std::to_string(id) + " at step " + std::to_string(step);
        return text;
      }
    }
    int32_t pick = allowed[rng.Below(allowed.size())];
    if (step >= kFreeSteps) {
      if (m.CanTerminate()) {
        pick = v.stop_token_ids()[0];
      } else {
        int32_t best_left = INT32_MAX;
        for (int k = 0; k < 48; ++k) {
          const int32_t id = allowed[rng.Below(allowed.size())];
          if (v.IsStop(id) || !m.AcceptToken(id)) continue;
          const int32_t left = m.MinBytesToComplete();
          m.Rollback(1);
          if (left < best_left) {
            best_left = left;
            pick = id;
          }
        }
      }
    }
    if (!m.AcceptToken(pick)) {
      *error = "allowed token rejected at step " + std::to_string(step);
      return text;
    }
    if (m.IsTerminated()) return text;
    text += v.TokenBytes(pick);
  }
  *error = "did not terminate";
  return text;
}

// Distinct test names for the CI subset and the full (slow) run, so ctest keeps both.
#if GEMMAD_WALK_STRIDE == 1
#define GEMMAD_WALK_TEST AllSchemasTerminateAndValidate
#else
#define GEMMAD_WALK_TEST SampledSchemasTerminateAndValidate
#endif

TEST(ConstrainSchemaWalk, GEMMAD_WALK_TEST) {
  auto vocab = testing::GemmaVocab(GEMMAD_SHARED_DIR);
  const std::string schemas_path = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/constrain/schemas.jsonl";
  const std::string out_path =
      std::string(GEMMAD_BINARY_DIR) + "/constrain_walk_outputs_" + std::to_string(kStride) + ".jsonl";
  std::ifstream in(schemas_path);
  ASSERT_TRUE(in) << schemas_path;
  std::ofstream out(out_path);
  std::string line;
  int count = 0;
  while (std::getline(in, line)) {
    auto entry = nlohmann::ordered_json::parse(line);
    const int id = entry["id"].get<int>();
    if (id % kStride != 0) continue;
    ConstraintSpec spec;
    spec.kind = ConstraintKind::kJsonSchema;
    spec.json_schema = entry["schema"].dump();
    spec.disable_any_whitespace = entry["compact"].get<bool>();
    auto g = Compile(spec, vocab);
    ASSERT_TRUE(g.ok()) << "schema " << id << ": " << g.status().ToString();
    std::string error;
    std::string text = Walk(*g, static_cast<uint64_t>(id) + 1, &error);
    ASSERT_TRUE(error.empty()) << "schema " << id << ": " << error << "\noutput so far: " << text;
    ASSERT_TRUE(nlohmann::json::accept(text)) << "schema " << id << ": not JSON: " << text;
    out << nlohmann::json{{"id", id}, {"output", text}}.dump() << "\n";
    ++count;
  }
  out.close();
  ASSERT_GE(count * kStride, 300);
  std::string py = std::string(GEMMAD_SOURCE_DIR) + "/.venv/bin/python";
  if (std::system(("test -x " + py).c_str()) != 0) py = "python3";
  const std::string cmd = py + " " + GEMMAD_SOURCE_DIR + "/scripts/golden/constrain/validate_outputs.py " + schemas_path +
                          " " + out_path;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "jsonschema validation failed: " << cmd;
}

}  // namespace
}  // namespace gemmad::constrain
