// Many threads submit, read, abort and drop streams while the engine runs.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "base/rng.h"
#include "engine_test_util.h"

namespace gemmad::engine::testing {
namespace {

using namespace std::chrono_literals;

TEST(EngineConcurrency, ThreadsSubmitAbortAndDropWhileTheEngineRuns) {
  TestEngineOptions o;
  o.full_blocks = 120;  // tight enough to preempt now and then
  o.sliding_blocks = 120;
  o.max_num_batched_tokens = 32;
  o.eos_bias = -2.0f;
  auto engine = MakeEngine(o);

  constexpr int kPrompts = 8;
  std::vector<std::vector<int32_t>> expected(kPrompts);
  for (int p = 0; p < kPrompts; ++p) expected[static_cast<size_t>(p)] = RunAlone(o, Request(Prompt(5 + 7 * p, p), 12))[0].tokens;

  std::atomic<int> finished{0}, aborted{0}, mismatches{0};
  auto worker = [&](int t) {
    Rng rng(static_cast<uint64_t>(t) + 1);
    for (int i = 0; i < 25; ++i) {
      const int p = static_cast<int>(rng.Below(kPrompts));
      auto s = engine->Submit(Request(Prompt(5 + 7 * p, p), 12));
      if (!s.ok()) {
        ADD_FAILURE() << s.status().ToString();
        return;
      }
      const int mode = static_cast<int>(rng.Below(4));
      if (mode == 0) {  // drop right away (disconnect before any output)
        aborted.fetch_add(1);
        continue;
      }
      if (mode == 1) {  // read a little, then abort explicitly or via Engine::Abort
        RequestOutput out;
        std::vector<int32_t> tokens;
        bool ended = false;
        if ((*s)->Read(&out, 50ms) == RequestStream::ReadStatus::kOutput) {
          tokens = out.token_ids;
          ended = out.finished();
        }
        if (rng.Below(2)) {
          (*s)->Abort();
        } else {
          engine->Abort((*s)->id());
        }
        FinishReason finish = out.finish_reason;
        if (!ended) {
          auto c = Collect(**s);
          tokens.insert(tokens.end(), c[0].tokens.begin(), c[0].tokens.end());
          finish = c[0].finish;
        }
        // Finished before the abort arrived: then it must be the sequential result.
        if (finish != FinishReason::kAbort && tokens != expected[static_cast<size_t>(p)]) {
          mismatches.fetch_add(1);
        }
        aborted.fetch_add(1);
        continue;
      }
      auto c = Collect(**s);
      if (c[0].tokens != expected[static_cast<size_t>(p)]) mismatches.fetch_add(1);
      finished.fetch_add(1);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(finished.load() + aborted.load(), 8 * 25);
  EngineMetrics m;
  for (int i = 0; i < 400; ++i) {
    m = engine->Metrics();
    if (engine->num_in_flight() == 0 && m.num_requests_running == 0 && m.num_requests_waiting == 0) break;
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(engine->num_in_flight(), 0);
  EXPECT_EQ(m.kv_cache_usage_perc, 0.0);
  EXPECT_EQ(m.request_success.stop + m.request_success.length + m.request_success.abort, 8u * 25u);
  EXPECT_TRUE(engine->Shutdown(1s));
}

TEST(EngineConcurrency, SubmitRacesWithShutdown) {
  for (int round = 0; round < 5; ++round) {
    TestEngineOptions o;
    o.eos_bias = -100.0f;
    auto engine = MakeEngine(o);
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    std::atomic<int> ended{0}, refused{0};
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        while (!stop) {
          auto s = engine->Submit(Request(Prompt(6, t), 8));
          if (!s.ok()) {
            EXPECT_EQ(s.status().code(), StatusCode::kUnavailable);
            refused.fetch_add(1);
            std::this_thread::sleep_for(1ms);
            continue;
          }
          Collect(**s);  // every stream ends (finished or aborted), none hangs
          ended.fetch_add(1);
        }
      });
    }
    std::this_thread::sleep_for(20ms);
    engine->Shutdown(5ms);
    std::this_thread::sleep_for(5ms);
    stop = true;
    for (auto& th : threads) th.join();
    EXPECT_GT(ended.load(), 0);
    EXPECT_EQ(engine->num_in_flight(), 0);
  }
}

}  // namespace
}  // namespace gemmad::engine::testing
