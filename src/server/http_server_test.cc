// HttpServer over real sockets: framing, keep-alive, SSE chunks, 100-continue, disconnect
// detection mid-stream, many concurrent streams, graceful shutdown.
#include "server/http_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <new>
#include <stdexcept>
#include <thread>

#include "server/server_test_util.h"

namespace gemmad::server {
namespace {

using namespace testing;  // NOLINT

class HttpServerTest : public ::testing::Test {
 protected:
  void StartServer(Handler handler, HttpServerOptions options = {}) {
    options.host = "127.0.0.1";
    options.port = 0;
    auto s = HttpServer::Start(options, std::move(handler));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }
  std::unique_ptr<HttpServer> server_;
};

Handler Echo() {
  return [](HttpRequest r, std::shared_ptr<Responder> out) {
    out->Send(200, "text/plain", r.method + " " + r.path + " " + r.body + " " + std::string(r.Header("x-a")));
  };
}

TEST_F(HttpServerTest, AnswersARequest) {
  StartServer(Echo());
  std::string resp = RoundTrip(server_->port(),
                               "POST /v1/x?q=1 HTTP/1.1\r\nHost: a\r\nX-A: b\r\nContent-Length: 3\r\n"
                               "Connection: close\r\n\r\nabc");
  EXPECT_EQ(resp.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << resp;
  EXPECT_NE(resp.find("content-length: 16\r\n"), std::string::npos) << resp;
  EXPECT_NE(resp.find("content-type: text/plain\r\n"), std::string::npos);
  EXPECT_NE(resp.find("connection: close\r\n"), std::string::npos);
  EXPECT_EQ(resp.substr(resp.find("\r\n\r\n") + 4), "POST /v1/x abc b");
}

TEST_F(HttpServerTest, KeepAliveServesSeveralRequests) {
  StartServer(Echo());
  int fd = Connect(server_->port());
  ASSERT_GE(fd, 0);
  for (int i = 0; i < 3; ++i) {
    SendAll(fd, "GET /ping HTTP/1.1\r\nHost: a\r\n\r\n");
    std::string resp = ReadUntil(fd, "GET /ping  ");
    EXPECT_NE(resp.find("HTTP/1.1 200 OK"), std::string::npos) << i;
    EXPECT_EQ(resp.find("connection: close"), std::string::npos);
  }
  ::close(fd);
}

TEST_F(HttpServerTest, StreamsSseWithChunkedFraming) {
  StartServer([](HttpRequest, std::shared_ptr<Responder> out) {
    out->SendEvent(R"({"a":1})");
    out->SendEvent(R"({"b":"x"})");
    out->EndStream();
  });
  std::string resp = RoundTrip(server_->port(), "GET /s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  EXPECT_NE(resp.find("transfer-encoding: chunked\r\n"), std::string::npos) << resp;
  EXPECT_NE(resp.find("content-type: text/event-stream; charset=utf-8\r\n"), std::string::npos);
  std::string body = resp.substr(resp.find("\r\n\r\n") + 4);
  EXPECT_EQ(body, "f\r\ndata: {\"a\":1}\n\n\r\n11\r\ndata: {\"b\":\"x\"}\n\n\r\ne\r\ndata: [DONE]\n\n\r\n0\r\n\r\n");
}

TEST_F(HttpServerTest, TypedSseEventsEndWithoutDone) {
  StartServer([](HttpRequest, std::shared_ptr<Responder> out) {
    out->SendTypedEvent("response.created", R"({"a":1})");
    out->EndTypedStream();
  });
  std::string resp = RoundTrip(server_->port(), "GET /s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  EXPECT_NE(resp.find("content-type: text/event-stream; charset=utf-8\r\n"), std::string::npos) << resp;
  std::string body = resp.substr(resp.find("\r\n\r\n") + 4);
  EXPECT_EQ(body, "27\r\nevent: response.created\ndata: {\"a\":1}\n\n\r\n0\r\n\r\n");
}

TEST_F(HttpServerTest, ErrorAfterStreamStartIsAnSseEvent) {
  StartServer([](HttpRequest, std::shared_ptr<Responder> out) {
    out->SendEvent("{}");
    out->SendError(api::ApiError::Internal("Internal server error"));
  });
  std::string resp = RoundTrip(server_->port(), "GET /s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  EXPECT_NE(resp.find("data: {\"error\":{\"message\":\"Internal server error\",\"type\":\"InternalServerError\","
                      "\"param\":null,\"code\":500}}\n\n"),
            std::string::npos)
      << resp;
  EXPECT_NE(resp.find("data: [DONE]\n\n"), std::string::npos);
}

TEST_F(HttpServerTest, AnswersExpect100Continue) {
  StartServer(Echo());
  int fd = Connect(server_->port());
  SendAll(fd, "POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n");
  std::string interim = ReadUntil(fd, "\r\n\r\n", 2000);
  EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
  SendAll(fd, "hi");
  std::string resp = ReadAll(fd);
  EXPECT_NE(resp.find("POST /e hi"), std::string::npos) << resp;
  ::close(fd);
}

TEST_F(HttpServerTest, NoticesAClientThatLeavesMidStream) {
  std::mutex mu;
  std::condition_variable cv;
  bool gone_callback = false, send_failed = false;
  StartServer([&](HttpRequest, std::shared_ptr<Responder> out) {
    out->OnClientGone([&] {
      std::lock_guard<std::mutex> lock(mu);
      gone_callback = true;
      cv.notify_all();
    });
    for (int i = 0; i < 2000 && out->SendEvent("{\"tick\":1}"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::lock_guard<std::mutex> lock(mu);
    send_failed = out->client_gone();
    cv.notify_all();
  });
  int fd = Connect(server_->port());
  SendAll(fd, "GET /s HTTP/1.1\r\nHost: a\r\n\r\n");
  ReadUntil(fd, "tick");
  ::close(fd);
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return gone_callback && send_failed; }));
  lock.unlock();
  EXPECT_TRUE(server_->WaitIdle(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
}

TEST_F(HttpServerTest, HoldsManyConcurrentStreams) {
  constexpr int kStreams = 64;
  std::atomic<int> started{0};
  StartServer([&](HttpRequest, std::shared_ptr<Responder> out) {
    ++started;
    while (started.load() < kStreams) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (int i = 0; i < 20; ++i) out->SendEvent("{\"i\":" + std::to_string(i) + "}");
    out->EndStream();
  });
  std::vector<int> fds;
  for (int i = 0; i < kStreams; ++i) {
    fds.push_back(Connect(server_->port()));
    SendAll(fds.back(), "GET /s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  }
  for (int fd : fds) {
    std::string resp = ReadAll(fd, 10000);
    EXPECT_NE(resp.find("data: {\"i\":19}\n\n"), std::string::npos);
    EXPECT_NE(resp.find("data: [DONE]"), std::string::npos);
    ::close(fd);
  }
  EXPECT_EQ(started.load(), kStreams);
}

TEST_F(HttpServerTest, GracefulShutdownLetsInFlightFinish) {
  std::atomic<bool> release{false};
  StartServer([&](HttpRequest, std::shared_ptr<Responder> out) {
    out->SendEvent("{\"first\":1}");
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    out->SendEvent("{\"last\":1}");
    out->EndStream();
  });
  int port = server_->port();
  int busy = Connect(port);
  SendAll(busy, "GET /s HTTP/1.1\r\nHost: a\r\n\r\n");
  ReadUntil(busy, "first");
  int idle = Connect(port);  // keep-alive connection without a request
  server_->StopAccepting();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(ReadAll(idle, 2000), "");  // closed by the server
  EXPECT_EQ(Connect(port), -1);        // no longer accepting
  EXPECT_FALSE(server_->WaitIdle(std::chrono::steady_clock::now() + std::chrono::milliseconds(100)));
  release = true;
  std::string rest = ReadAll(busy, 5000);
  EXPECT_NE(rest.find("last"), std::string::npos);
  EXPECT_NE(rest.find("data: [DONE]"), std::string::npos);
  EXPECT_TRUE(server_->WaitIdle(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
  ::close(busy);
  ::close(idle);
}

TEST_F(HttpServerTest, RejectsOversizedBodies) {
  HttpServerOptions options;
  options.max_body_bytes = 10;
  StartServer(Echo(), options);
  std::string resp = RoundTrip(server_->port(), "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 20\r\n\r\n"
                                                "01234567890123456789");
  EXPECT_EQ(resp.rfind("HTTP/1.1 413", 0), 0u) << resp;
}

TEST_F(HttpServerTest, AHandlerThatThrowsAnswersOnlyItsOwnRequest) {
  StartServer([](HttpRequest r, std::shared_ptr<Responder> out) {
    if (r.path == "/oom") throw std::bad_alloc();
    if (r.path == "/bug") throw std::runtime_error("boom");
    if (r.path == "/late") {
      out->SendEvent(R"({"a":1})");
      throw std::bad_alloc();
    }
    out->Send(200, "text/plain", "fine");
  });
  auto get = [&](const char* path) {
    return RoundTrip(server_->port(), std::string("GET ") + path + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  };
  std::string oom = get("/oom");
  EXPECT_EQ(oom.rfind("HTTP/1.1 503", 0), 0u) << oom;
  EXPECT_NE(oom.find("ran out of memory"), std::string::npos) << oom;
  std::string bug = get("/bug");
  EXPECT_EQ(bug.rfind("HTTP/1.1 500", 0), 0u) << bug;
  EXPECT_EQ(bug.find("boom"), std::string::npos) << bug;  // internals are logged, not sent
  std::string late = get("/late");
  EXPECT_EQ(late.rfind("HTTP/1.1 200", 0), 0u) << late;
  EXPECT_NE(late.find("ran out of memory"), std::string::npos) << late;
  EXPECT_NE(late.find("data: [DONE]"), std::string::npos) << late;
  std::string ok = get("/fine");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200", 0), 0u) << ok;
}

TEST_F(HttpServerTest, TrickledHeadersAndBodiesTimeOut) {
  HttpServerOptions options;
  options.keep_alive_timeout = std::chrono::milliseconds(300);
  options.body_timeout = std::chrono::milliseconds(300);
  std::atomic<int> handled{0};
  StartServer([&](HttpRequest, std::shared_ptr<Responder> out) {
    ++handled;
    out->Send(200, "text/plain", "ok");
  }, options);
  // Headers that never end, and a body that never completes: both connections are closed by the
  // server (the body one with a 408) and no handler ever runs.
  for (std::string partial : {std::string("POST /x HTTP/1.1\r\nHost: a\r\nX-Slow: "),
                              std::string("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n01")}) {
    int fd = Connect(server_->port());
    ASSERT_GE(fd, 0);
    auto t0 = std::chrono::steady_clock::now();
    SendAll(fd, partial);
    std::string resp = ReadAll(fd, /*timeout_ms=*/10000);  // returns when the server closes
    ::close(fd);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 5.0) << partial;  // closed by the server, long before the read gave up
    if (partial.find("Content-Length") != std::string::npos) {
      EXPECT_EQ(resp.rfind("HTTP/1.1 408", 0), 0u) << resp;
    }
  }
  EXPECT_EQ(handled.load(), 0);
}

TEST_F(HttpServerTest, BindErrorNamesTheAddress) {
  StartServer(Echo());
  HttpServerOptions options;
  options.host = "127.0.0.1";
  options.port = server_->port();
  auto second = HttpServer::Start(options, Echo());
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("cannot bind 127.0.0.1:"), std::string::npos);
}

}  // namespace
}  // namespace gemmad::server
