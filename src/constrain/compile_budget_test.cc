// CompileBudget: nesting, time, memory and cancellation bound every front end's compilation, and a
// cancelled compilation in the cache is retried by a caller whose client is still there.
#include "constrain/compile_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "constrain/compiled_grammar.h"
#include "constrain/grammar_cache.h"
#include "constrain/testing/small_vocab.h"

namespace gemmad::constrain {
namespace {

using testing::SmallVocab;

ConstraintSpec Spec(ConstraintKind kind, std::string text) {
  ConstraintSpec s;
  s.kind = kind;
  if (kind == ConstraintKind::kRegex) s.regex = std::move(text);
  if (kind == ConstraintKind::kGrammar) s.grammar = std::move(text);
  if (kind == ConstraintKind::kJsonSchema) s.json_schema = std::move(text);
  return s;
}

std::string NestedSchema(int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += R"({"type":"array","items":)";
  s += R"({"type":"integer"})";
  return s + std::string(static_cast<size_t>(depth), '}');
}

std::string WideSchema(int n) {
  std::string props, req;
  for (int i = 0; i < n; ++i) {
    props += (i ? "," : "") + std::string("\"p") + std::to_string(i) + R"(":{"type":"string","pattern":"^[a-z]{)" +
             std::to_string(i % 7 + 1) + "}x" + std::to_string(i) + "$\"}";
    req += (i ? "," : "") + std::string("\"p") + std::to_string(i) + "\"";
  }
  return R"({"type":"object","properties":{)" + props + R"(},"required":[)" + req + "]}";
}

Status CompileStatus(const ConstraintSpec& spec, const CompileBudget& budget) {
  auto g = Compile(spec, SmallVocab(), budget);
  return g.ok() ? OkStatus() : g.status();
}

TEST(CompileBudgetTest, NestingIsBoundedInEveryFrontEnd) {
  CompileBudget b;
  b.max_nesting = 16;
  const std::string deep_regex = std::string(17, '(') + "a" + std::string(17, ')');
  const std::string ok_regex = std::string(16, '(') + "a" + std::string(16, ')');
  EXPECT_TRUE(CompileStatus(Spec(ConstraintKind::kRegex, ok_regex), b).ok());
  Status s = CompileStatus(Spec(ConstraintKind::kRegex, deep_regex), b);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--structured-outputs-max-nesting"), std::string::npos) << s.message();

  const std::string deep_ebnf = "root ::= " + std::string(17, '(') + "\"a\"" + std::string(17, ')');
  s = CompileStatus(Spec(ConstraintKind::kGrammar, deep_ebnf), b);
  EXPECT_NE(s.message().find("grammar: line 1"), std::string::npos) << s.message();
  EXPECT_TRUE(CompileStatus(Spec(ConstraintKind::kGrammar, "root ::= ((\"a\"))"), b).ok());

  EXPECT_TRUE(CompileStatus(Spec(ConstraintKind::kJsonSchema, NestedSchema(15)), b).ok());
  s = CompileStatus(Spec(ConstraintKind::kJsonSchema, NestedSchema(16)), b);
  EXPECT_NE(s.message().find("the schema is nested more than 16 levels deep"), std::string::npos) << s.message();
  // Far deeper text is refused before the schema is parsed or walked.
  s = CompileStatus(Spec(ConstraintKind::kJsonSchema, NestedSchema(200000)), b);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
}

// Integer keywords past int64 (a float of 2^63 or more, an unsigned past INT64_MAX) are a 400-class
// error, never a cast out of range (found by the constrain_schema fuzz campaign, kept in its corpus as
// regression-ubsan-minlength-float); an integral float below 2^63 still reads.
TEST(CompileBudgetTest, IntegerKeywordsPastInt64AreRefused) {
  for (const std::string v : {"55555555555555555555555555555555555555555555552", "18446744073709551615", "9.3e18",
                              "1e300", "9223372036854775808"}) {
    const Status s = CompileStatus(Spec(ConstraintKind::kJsonSchema, R"({"type":"string","minLength":)" + v + "}"), {});
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << v;
    EXPECT_NE(s.message().find("must be a non-negative integer below 2^63"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(CompileStatus(Spec(ConstraintKind::kJsonSchema, R"({"type":"string","minLength":2.0})"), {}).ok());
  EXPECT_TRUE(CompileStatus(Spec(ConstraintKind::kJsonSchema, R"({"type":"array","maxItems":3})"), {}).ok());
}

// allOf over a branch whose "properties" is not an object is an error, not a thrown iterator
// exception (found by the constrain_schema fuzz campaign; regression-allof-properties-false).
TEST(CompileBudgetTest, AllOfWithPropertiesNotAnObjectIsRefused) {
  const Status s = CompileStatus(
      Spec(ConstraintKind::kJsonSchema,
           R"({"allOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"properties":false}]})"),
      {});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  EXPECT_NE(s.message().find("properties: must be an object"), std::string::npos) << s.message();
}

TEST(CompileBudgetTest, TimeAndMemoryAreBounded) {
  const ConstraintSpec wide = Spec(ConstraintKind::kJsonSchema, WideSchema(60));
  EXPECT_TRUE(CompileStatus(wide, {}).ok());
  CompileBudget quick;
  quick.timeout_s = 1e-6;
  Status s = CompileStatus(wide, quick);
  EXPECT_NE(s.message().find("(--structured-outputs-compile-timeout)"), std::string::npos) << s.message();
  CompileBudget small;
  small.max_bytes = 64 << 10;
  s = CompileStatus(wide, small);
  EXPECT_NE(s.message().find("(--structured-outputs-max-compile-bytes)"), std::string::npos) << s.message();
}

// The subset construction and the minimisation count what they hold: the union below is (a|b)*, a
// one-state DFA with small token masks, but its subset construction first makes 2^13 states (the
// left branch's "13th symbol from the end is an a"). It compiles under the default budget and is
// refused under a 256 KiB one.
TEST(CompileBudgetTest, TheAutomatonStagesCountTheirMemory) {
  const ConstraintSpec big = Spec(ConstraintKind::kRegex, "(a|b)*a(a|b){12}|(a|b)*");
  EXPECT_TRUE(CompileStatus(big, {}).ok());
  CompileBudget small;
  small.max_bytes = 256 << 10;
  Status s = CompileStatus(big, small);
  EXPECT_NE(s.message().find("(--structured-outputs-max-compile-bytes)"), std::string::npos) << s.message();
  EXPECT_TRUE(CompileStatus(Spec(ConstraintKind::kRegex, "(a|b)*a(a|b){3}|(a|b)*"), small).ok());
}

TEST(CompileBudgetTest, CancellationStopsTheCompilation) {
  CompileBudget b;
  b.cancelled = [] { return true; };
  Status s = CompileStatus(Spec(ConstraintKind::kJsonSchema, WideSchema(20)), b);
  EXPECT_EQ(s.code(), StatusCode::kCancelled) << s.message();
}

TEST(CompileBudgetTest, AWaiterRetriesWhenTheOwnersCompilationWasCancelled) {
  GrammarCache cache(SmallVocab(), 4);
  const ConstraintSpec spec = Spec(ConstraintKind::kJsonSchema, WideSchema(40));
  std::atomic<bool> owner_started{false};
  std::atomic<bool> owner_gone{false};
  CompileBudget owner;
  owner.cancelled = [&] {
    owner_started = true;
    return owner_gone.load();
  };
  std::thread first([&] {
    auto r = cache.GetOrCompile(spec, owner);
    EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  });
  while (!owner_started) std::this_thread::yield();
  std::thread second([&] {
    auto r = cache.GetOrCompile(spec, {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
  });
  owner_gone = true;
  first.join();
  second.join();
  EXPECT_TRUE(cache.GetOrCompile(spec, {}).ok());
}

TEST(CompileBudgetTest, CompilationsBeyondTheConcurrencyBoundWaitForASlot) {
  GrammarCache cache(SmallVocab(), 4, /*max_concurrent=*/1);
  const ConstraintSpec a = Spec(ConstraintKind::kJsonSchema, WideSchema(20));
  const ConstraintSpec b = Spec(ConstraintKind::kJsonSchema, WideSchema(21));
  std::atomic<bool> a_started{false}, release{false};
  CompileBudget hold;  // A's compilation holds the only slot until released
  hold.cancelled = [&] {
    a_started = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return false;
  };
  std::thread first([&] { EXPECT_TRUE(cache.GetOrCompile(a, hold).ok()); });
  while (!a_started) std::this_thread::yield();
  const auto t0 = std::chrono::steady_clock::now();
  CompileBudget impatient;  // B gives up after 200 ms: it was waiting, never compiling
  impatient.cancelled = [&] { return std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(200); };
  auto r = cache.GetOrCompile(b, impatient);
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  release = true;
  first.join();
  EXPECT_TRUE(cache.GetOrCompile(b, {}).ok());
  EXPECT_TRUE(cache.GetOrCompile(a, {}).ok());  // a hit: never waits
}

}  // namespace
}  // namespace gemmad::constrain
