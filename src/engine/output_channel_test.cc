#include "engine/output_channel.h"

#include <gtest/gtest.h>

#include <thread>

namespace gemmad::engine {
namespace {

using namespace std::chrono_literals;

RequestOutput Delta(int index, std::vector<int32_t> tokens, FinishReason finish = FinishReason::kNone) {
  RequestOutput o;
  o.index = index;
  o.token_ids = std::move(tokens);
  o.finish_reason = finish;
  o.num_output_tokens = static_cast<int32_t>(o.token_ids.size());
  return o;
}

TEST(OutputChannel, MergesPendingDeltasOfOneIndexInOrder) {
  auto ch = std::make_shared<OutputChannel>(1, "r", 2, 5, nullptr);
  RequestStream stream(ch);
  ch->Push(Delta(0, {1}));
  ch->Push(Delta(1, {9}));
  ch->Push(Delta(0, {2, 3}));
  ch->Push(Delta(0, {4}, FinishReason::kLength));
  RequestOutput out;
  ASSERT_EQ(stream.TryRead(&out), RequestStream::ReadStatus::kOutput);
  EXPECT_EQ(out.index, 0);
  EXPECT_EQ(out.token_ids, (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(out.finish_reason, FinishReason::kLength);
  ASSERT_EQ(stream.TryRead(&out), RequestStream::ReadStatus::kOutput);
  EXPECT_EQ(out.index, 1);
  EXPECT_EQ(stream.TryRead(&out), RequestStream::ReadStatus::kTimeout);
  EXPECT_FALSE(stream.finished());
  ch->Push(Delta(1, {}, FinishReason::kStop));
  EXPECT_TRUE(stream.finished());
  ASSERT_EQ(stream.Read(&out, 10ms), RequestStream::ReadStatus::kOutput);
  EXPECT_EQ(stream.Read(&out, 10ms), RequestStream::ReadStatus::kEnd);
  EXPECT_EQ(stream.Read(&out), RequestStream::ReadStatus::kEnd);
}

TEST(OutputChannel, ReadWaitsForAnotherThread) {
  auto ch = std::make_shared<OutputChannel>(1, "r", 1, 5, nullptr);
  RequestStream stream(ch);
  std::thread t([&] {
    std::this_thread::sleep_for(20ms);
    ch->Push(Delta(0, {7}, FinishReason::kStop));
  });
  RequestOutput out;
  EXPECT_EQ(stream.Read(&out), RequestStream::ReadStatus::kOutput);
  EXPECT_EQ(out.token_ids, std::vector<int32_t>{7});
  t.join();
}

TEST(OutputChannel, AbortIsPostedOnceAndDroppingTheStreamAborts) {
  int wakes = 0;
  auto mailbox = std::make_shared<AbortMailbox>([&] { ++wakes; });
  {
    auto ch = std::make_shared<OutputChannel>(3, "r", 1, 5, mailbox);
    RequestStream stream(ch);
    stream.Abort(FinishReason::kStop);
    stream.Abort();
    EXPECT_TRUE(ch->abort_requested());
    EXPECT_EQ(ch->abort_reason(), FinishReason::kStop);
  }
  auto posted = mailbox->Drain();
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(posted[0].first, 3u);
  EXPECT_EQ(posted[0].second, FinishReason::kStop);
  {
    auto ch = std::make_shared<OutputChannel>(4, "r", 1, 5, mailbox);
    RequestStream stream(ch);
  }
  posted = mailbox->Drain();
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(posted[0].second, FinishReason::kAbort);
  {  // finished requests are not aborted
    auto ch = std::make_shared<OutputChannel>(5, "r", 1, 5, mailbox);
    RequestStream stream(ch);
    ch->Push(Delta(0, {1}, FinishReason::kStop));
  }
  EXPECT_TRUE(mailbox->Drain().empty());
  EXPECT_EQ(wakes, 2);
}

TEST(OutputChannel, WakeMayDrainTheMailbox) {
  std::vector<std::pair<uint64_t, FinishReason>> seen;
  std::shared_ptr<AbortMailbox> mailbox;
  mailbox = std::make_shared<AbortMailbox>([&] {
    for (auto& p : mailbox->Drain()) seen.push_back(p);
  });
  auto ch = std::make_shared<OutputChannel>(9, "r", 1, 5, mailbox);
  {
    RequestStream stream(ch);
  }
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].first, 9u);
  mailbox->DisableWake();
  mailbox->Post(10, FinishReason::kAbort);
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(mailbox->Drain().size(), 1u);
}

TEST(OutputChannel, FailAllEndsEveryChoiceAndDropsLaterPushes) {
  auto ch = std::make_shared<OutputChannel>(1, "r", 2, 5, nullptr);
  RequestStream stream(ch);
  ch->Push(Delta(1, {4}, FinishReason::kStop));
  ch->FailAll(InternalError("boom"));
  ch->Push(Delta(0, {5}));  // ignored
  RequestOutput out;
  int errors = 0;
  while (stream.TryRead(&out) == RequestStream::ReadStatus::kOutput) {
    if (out.finish_reason == FinishReason::kError) {
      ++errors;
      EXPECT_EQ(out.error.message(), "boom");
      EXPECT_TRUE(out.token_ids.empty());
    }
  }
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(stream.TryRead(&out), RequestStream::ReadStatus::kEnd);
}

TEST(OutputChannel, NotifierIsCalledAndCanBeCleared) {
  auto ch = std::make_shared<OutputChannel>(1, "r", 1, 5, nullptr);
  RequestStream stream(ch);
  ch->Push(Delta(0, {1}));
  int calls = 0;
  stream.SetNotifier([&] { ++calls; });
  EXPECT_EQ(calls, 1);  // output was already pending
  ch->Push(Delta(0, {2}));
  EXPECT_EQ(calls, 2);
  stream.SetNotifier(nullptr);
  ch->Push(Delta(0, {3}, FinishReason::kStop));
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace gemmad::engine
