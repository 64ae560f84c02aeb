// Aborts, drain and shutdown, the step watchdog and runner failures.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "engine_test_util.h"

namespace gemmad::engine::testing {
namespace {

using namespace std::chrono_literals;

EngineMetrics WaitForMetrics(Engine& engine, const std::function<bool(const EngineMetrics&)>& pred) {
  EngineMetrics m;
  for (int i = 0; i < 400; ++i) {
    m = engine.Metrics();
    if (pred(m)) return m;
    std::this_thread::sleep_for(5ms);
  }
  ADD_FAILURE() << "metrics condition not reached";
  return m;
}

TEST(EngineLifecycle, DroppingTheStreamAbortsAndFreesBlocks) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  o.step_delay = 2ms;
  auto engine = MakeEngine(o);
  auto s = engine->Submit(Request(Prompt(30, 1), 400));
  ASSERT_TRUE(s.ok());
  RequestOutput out;
  ASSERT_EQ((*s)->Read(&out, 5s), RequestStream::ReadStatus::kOutput);  // running now
  // Metrics are published once per loop iteration, after the step that produced the delta.
  WaitForMetrics(*engine, [](const EngineMetrics& m) { return m.kv_cache_usage_perc > 0.0; });
  s->reset();  // the client went away
  auto m = WaitForMetrics(*engine, [](const EngineMetrics& m) { return m.request_success.abort == 1; });
  EXPECT_EQ(m.kv_cache_usage_perc, 0.0);
  EXPECT_EQ(m.num_requests_running, 0);
  EXPECT_EQ(engine->num_in_flight(), 0);
}

TEST(EngineLifecycle, AbortDeliversAFinalDeltaWithTheReason) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  o.step_delay = 2ms;
  auto engine = MakeEngine(o);
  auto s = engine->Submit(Request(Prompt(10, 2), 400));
  ASSERT_TRUE(s.ok());
  RequestOutput out;
  ASSERT_EQ((*s)->Read(&out, 5s), RequestStream::ReadStatus::kOutput);
  (*s)->Abort(FinishReason::kStop);  // the API matched a stop string
  (*s)->Abort();                     // idempotent
  auto choices = Collect(**s);
  EXPECT_EQ(choices[0].finish, FinishReason::kStop);
  EXPECT_LT(choices[0].tokens.size(), 400u);
  auto m = WaitForMetrics(*engine, [](const EngineMetrics& m) { return m.request_success.stop == 1; });
  EXPECT_EQ(m.request_success.abort, 0u);
  // Aborting by id after the end is a no-op.
  engine->Abort((*s)->id());
}

TEST(EngineLifecycle, AbortBeforeTheEngineSawTheRequest) {
  TestEngineOptions o;
  o.step_delay = 20ms;
  auto engine = MakeEngine(o);
  auto busy = engine->Submit(Request(Prompt(10, 3), 5));  // keeps the loop in a step
  ASSERT_TRUE(busy.ok());
  std::this_thread::sleep_for(5ms);
  auto s = engine->Submit(Request(Prompt(10, 4), 50));
  ASSERT_TRUE(s.ok());
  (*s)->Abort();
  auto choices = Collect(**s);
  EXPECT_EQ(choices[0].finish, FinishReason::kAbort);
  EXPECT_TRUE(choices[0].tokens.empty());
  Collect(**busy);
}

TEST(EngineLifecycle, DrainFinishesInFlightAndRefusesNewWork) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  o.step_delay = 1ms;
  auto engine = MakeEngine(o);
  auto s = engine->Submit(Request(Prompt(10, 5), 30));
  ASSERT_TRUE(s.ok());
  engine->BeginDrain();
  auto refused = engine->Submit(Request(Prompt(10, 6), 3));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(engine->Metrics().draining);
  EXPECT_TRUE(engine->Shutdown(10s));
  auto choices = Collect(**s);
  EXPECT_EQ(choices[0].finish, FinishReason::kLength);
  EXPECT_EQ(choices[0].tokens.size(), 30u);
}

TEST(EngineLifecycle, ShutdownAfterGraceAbortsWhatIsLeft) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  o.step_delay = 5ms;
  auto engine = MakeEngine(o);
  auto s = engine->Submit(Request(Prompt(10, 7), 400));
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(engine->Shutdown(30ms));
  auto choices = Collect(**s);
  EXPECT_EQ(choices[0].finish, FinishReason::kAbort);
  EXPECT_EQ(engine->num_in_flight(), 0);
}

TEST(EngineLifecycle, StreamsMayOutliveTheEngine) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  o.step_delay = 2ms;
  auto engine = MakeEngine(o);
  auto s = engine->Submit(Request(Prompt(10, 12), 400));
  ASSERT_TRUE(s.ok());
  engine.reset();  // destroys the engine with the request in flight
  auto choices = Collect(**s);
  EXPECT_EQ(choices[0].finish, FinishReason::kAbort);
  (*s)->Abort();
  s->reset();
}

TEST(EngineLifecycle, WatchdogFailsRequestsOfAHungStep) {
  TestEngineOptions o;
  o.step_delay = 400ms;
  o.iteration_timeout_s = 0.1;
  auto engine = MakeEngine(o);
  auto s = engine->Submit(Request(Prompt(10, 8), 5));
  ASSERT_TRUE(s.ok());
  auto choices = Collect(**s, 5s);
  EXPECT_EQ(choices[0].finish, FinishReason::kError);
  EXPECT_NE(choices[0].error.message().find("VLLM_ENGINE_ITERATION_TIMEOUT_S"), std::string::npos)
      << choices[0].error.message();
  EXPECT_FALSE(engine->healthy());
  auto refused = engine->Submit(Request(Prompt(10, 9), 5));
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(engine->Metrics().healthy);
}

TEST(EngineLifecycle, RunnerFailureKillsTheEngineCleanly) {
  TestEngineOptions o;
  o.fail_at_step = 2;
  o.eos_bias = -100.0f;
  auto engine = MakeEngine(o);
  auto s = engine->Submit(Request(Prompt(10, 10), 50));
  ASSERT_TRUE(s.ok());
  auto choices = Collect(**s, 5s);
  EXPECT_EQ(choices[0].finish, FinishReason::kError);
  EXPECT_NE(choices[0].error.message().find("injected failure"), std::string::npos);
  EXPECT_FALSE(engine->healthy());
}

TEST(EngineLifecycle, NotifierFiresForEveryDelta) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  o.step_delay = 1ms;
  auto engine = MakeEngine(o);
  auto s = engine->Submit(Request(Prompt(10, 11), 6));
  ASSERT_TRUE(s.ok());
  std::atomic<int> calls{0};
  (*s)->SetNotifier([&] { calls.fetch_add(1); });
  auto choices = Collect(**s);
  EXPECT_EQ(choices[0].tokens.size(), 6u);
  EXPECT_GE(calls.load(), 1);
  (*s)->SetNotifier(nullptr);
}

TEST(EngineLifecycle, IterationTimeoutFromEnv) {
  ::setenv("VLLM_ENGINE_ITERATION_TIMEOUT_S", "12.5", 1);
  EXPECT_EQ(IterationTimeoutFromEnv(), 12.5);
  ::setenv("VLLM_ENGINE_ITERATION_TIMEOUT_S", "abc", 1);
  EXPECT_EQ(IterationTimeoutFromEnv(), 60.0);
  ::unsetenv("VLLM_ENGINE_ITERATION_TIMEOUT_S");
  EXPECT_EQ(IterationTimeoutFromEnv(), 60.0);
}

}  // namespace
}  // namespace gemmad::engine::testing
