// The background-stream pieces of /v1/responses: the bounded event log, the store counting it,
// GET ?stream=true's query parsing and replay, and the typed `error` event.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "api/responses_event_log.h"
#include "api/responses_replay.h"
#include "api/responses_store.h"
#include "api/responses_stream.h"
#include "api/serving_test_util.h"

namespace gemmad::api {
namespace {

using std::chrono::milliseconds;
using testing::RecordingSink;

TEST(ResponseEventLog, ReadsFromASequenceNumberAndWaitsForMore) {
  ResponseEventLog log(1 << 20);
  log.Append("response.created", R"({"sequence_number":0})");
  log.Append("response.in_progress", R"({"sequence_number":1})");
  int64_t next = 1;
  std::vector<LoggedEvent> got;
  ASSERT_EQ(log.ReadFrom(&next, &got, milliseconds(0)), ResponseEventLog::Read::kEvents);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].type, "response.in_progress");
  EXPECT_EQ(got[0].sequence_number, 1);
  EXPECT_EQ(next, 2);
  EXPECT_EQ(log.ReadFrom(&next, &got, milliseconds(1)), ResponseEventLog::Read::kTimeout);
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(20));
    log.Append("response.completed", "{}");
  });
  EXPECT_EQ(log.ReadFrom(&next, &got, milliseconds(5000)), ResponseEventLog::Read::kEvents);
  writer.join();
  EXPECT_EQ(got.at(0).type, "response.completed");
  log.Close();
  EXPECT_EQ(log.ReadFrom(&next, &got, milliseconds(5000)), ResponseEventLog::Read::kClosed);
  log.Append("late", "{}");  // ignored once closed
  EXPECT_EQ(log.ReadFrom(&next, &got, milliseconds(0)), ResponseEventLog::Read::kClosed);
}

TEST(ResponseEventLog, DropsTheOldestBeyondItsCapButKeepsTheNewest) {
  ResponseEventLog log(3 * (sizeof(LoggedEvent) + 20));
  for (int i = 0; i < 10; ++i) log.Append("t", std::string(19, 'a' + i));
  EXPECT_LE(log.bytes(), 3 * (sizeof(LoggedEvent) + 20));
  EXPECT_EQ(log.first_sequence_number(), 7);
  int64_t next = 2;
  std::vector<LoggedEvent> got;
  EXPECT_EQ(log.ReadFrom(&next, &got, milliseconds(0)), ResponseEventLog::Read::kGap);
  ResponseEventLog tiny(1);
  tiny.Append("big", std::string(100, 'x'));
  tiny.Append("bigger", std::string(200, 'y'));
  EXPECT_EQ(tiny.first_sequence_number(), 1);
  next = 1;
  ASSERT_EQ(tiny.ReadFrom(&next, &got, milliseconds(0)), ResponseEventLog::Read::kEvents);
  EXPECT_EQ(got[0].type, "bigger");
}

TEST(ResponsesStore, EventLogBytesCountAndEvict) {
  ResponsesStore store(true, 10, 2000);
  auto log = std::make_shared<ResponseEventLog>(1 << 20);
  store.Put("run", {Json{{"status", "queued"}}, Json::array(), log});
  store.Put("other", {Json{{"status", "completed"}}, Json::array()});
  size_t before = store.bytes();
  log->Append("response.created", std::string(500, 'x'));
  store.Recharge("run");
  EXPECT_EQ(store.bytes(), before + log->bytes());
  store.Finish("run", {Json{{"status", "completed"}}, Json::array()});
  ASSERT_TRUE(store.Get("run"));
  EXPECT_EQ(store.Get("run")->events, log) << "Finish keeps the event log";
  log->Append("response.completed", std::string(1500, 'y'));
  store.Recharge("run");
  EXPECT_LE(store.bytes(), 2000u);
  // "other" (least recently used) went first; the log alone is still past the cap.
  EXPECT_EQ(store.size(), 0u);
  EXPECT_FALSE(store.Get("run"));
}

TEST(ResponsesReplay, QueryParsesAsFastApi) {
  RetrieveQuery q;
  EXPECT_FALSE(ParseRetrieveQuery("stream=true&starting_after=3", &q));
  EXPECT_TRUE(q.stream);
  EXPECT_EQ(q.starting_after, 3);
  RetrieveQuery q2;
  EXPECT_FALSE(ParseRetrieveQuery("stream=False&include=x", &q2));
  EXPECT_FALSE(q2.stream);
  EXPECT_FALSE(q2.starting_after);
  RetrieveQuery q3;
  EXPECT_FALSE(ParseRetrieveQuery("stream=%74rue&starting_after=-1", &q3));
  EXPECT_TRUE(q3.stream);
  EXPECT_EQ(q3.starting_after, -1);
  RetrieveQuery bad;
  auto e = ParseRetrieveQuery("stream=maybe", &bad);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->param, "stream");
  e = ParseRetrieveQuery("starting_after=x1", &bad);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->param, "starting_after");
}

TEST(ResponsesReplay, ReplaysFromStartThenFollowsUntilCompletedOrClosed) {
  auto log = std::make_shared<ResponseEventLog>(1 << 20);
  for (const char* t : {"response.created", "response.in_progress", "response.output_item.added"}) log->Append(t, "{}");
  std::thread writer([log] {
    std::this_thread::sleep_for(milliseconds(30));
    log->Append("response.completed", "{}");
    log->Append("after", "{}");
    log->Close();
  });
  RecordingSink s;
  ReplayEvents(*log, 1, s);
  writer.join();
  EXPECT_EQ(s.event_types,
            (std::vector<std::string>{"response.in_progress", "response.output_item.added", "response.completed"}));
  EXPECT_TRUE(s.typed_done);
  RecordingSink cancelled;  // closed without response.completed: the stream still ends
  ResponseEventLog stopped(1 << 20);
  stopped.Append("response.created", "{}");
  stopped.Close();
  ReplayEvents(stopped, 0, cancelled);
  EXPECT_EQ(cancelled.event_types, std::vector<std::string>{"response.created"});
  EXPECT_TRUE(cancelled.typed_done);
  ResponseEventLog small(1);
  small.Append("a", "{}");
  small.Append("b", "{}");
  RecordingSink gone;
  ReplayEvents(small, 0, gone);
  ASSERT_TRUE(gone.error);
  EXPECT_EQ(gone.error->param, "starting_after");
}

TEST(ResponsesEventWriter, FailSendsTheTypedErrorEventAndEnds) {
  RecordingSink s;
  ResponsesEventWriter w(s);
  ASSERT_TRUE(w.Start(Json::object()));
  w.Fail("500", "Internal server error");
  ASSERT_EQ(s.events.size(), 3u);
  EXPECT_EQ(s.event_types[2], "error");
  EXPECT_EQ(s.events[2].dump(),
            R"({"code":"500","message":"Internal server error","param":null,"sequence_number":2,"type":"error"})");
  EXPECT_TRUE(s.typed_done);
  EXPECT_FALSE(s.done);
}

}  // namespace
}  // namespace gemmad::api
