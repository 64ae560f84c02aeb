// Agreement with an independent oracle: for every (schema, text) pair of
// tests/golden/constrain/oracle_cases.jsonl (labels from xgrammar, see the MANIFEST), gemmad's
// matcher accepts the whole text and can then terminate exactly when the oracle accepts it.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "constrain/compiled_grammar.h"
#include "constrain/matcher.h"
#include "constrain/testing/small_vocab.h"

namespace gemmad::constrain {
namespace {

TEST(ConstrainOracle, AcceptRejectAgreesWithXgrammar) {
  const std::string dir = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/constrain/";
  std::map<int, std::string> schemas;
  {
    std::ifstream in(dir + "schemas.jsonl");
    ASSERT_TRUE(in);
    std::string line;
    while (std::getline(in, line)) {
      auto e = nlohmann::ordered_json::parse(line);
      schemas[e["id"].get<int>()] = e["schema"].dump();
    }
  }
  std::ifstream in(dir + "oracle_cases.jsonl");
  ASSERT_TRUE(in);
  auto vocab = testing::SmallVocab();
  std::map<std::pair<int, bool>, std::shared_ptr<const CompiledGrammar>> compiled;
  std::string line;
  int total = 0, rejects = 0, mismatches = 0;
  while (std::getline(in, line)) {
    auto c = nlohmann::json::parse(line);
    const int id = c["id"].get<int>();
    const bool compact = c["compact"].get<bool>();
    auto& g = compiled[{id, compact}];
    if (!g) {
      ConstraintSpec spec;
      spec.kind = ConstraintKind::kJsonSchema;
      spec.json_schema = schemas.at(id);
      spec.disable_any_whitespace = compact;
      auto r = Compile(spec, vocab);
      ASSERT_TRUE(r.ok()) << "schema " << id << ": " << r.status().ToString();
      g = *r;
    }
    const std::string text = c["text"].get<std::string>();
    const bool expect = c["accept"].get<bool>();
    Matcher m(g);
    const bool got = (text.empty() || m.AcceptBytes(text)) && m.CanTerminate();
    ++total;
    rejects += expect ? 0 : 1;
    if (got != expect) {
      ++mismatches;
      ADD_FAILURE() << "schema " << id << (compact ? " (compact)" : "") << ": oracle " << (expect ? "accepts" : "rejects")
                    << ", gemmad " << (got ? "accepts" : "rejects") << ": " << nlohmann::json(text).dump();
      if (mismatches > 20) break;
    }
  }
  EXPECT_GE(total, 5000);
  EXPECT_GE(rejects * 10, total * 3) << "at least 30% rejects";
}

}  // namespace
}  // namespace gemmad::constrain
