// Test-only helpers for server/ (header-only, included by *_test.cc): a recording Responder and
// a tiny blocking HTTP client over POSIX sockets (raw bytes, so tests see the exact wire format).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/error_map.h"
#include "server/http_types.h"

namespace gemmad::server::testing {

// Records what a route wrote.
class RecordingResponder final : public Responder {
 public:
  void Send(int status, std::string_view content_type, std::string body, const Headers& extra) override;
  void AddHeader(std::string name, std::string value) override { headers.emplace_back(name, value); }
  void SendJson(std::string body) override { Send(200, "application/json", std::move(body), {}); }
  void SendText(std::string type, std::string body) override { Send(200, type, std::move(body), {}); }
  void SendError(const api::ApiError& error) override;
  bool SendEvent(std::string json) override {
    events.push_back(std::move(json));
    return true;
  }
  void EndStream() override { done = true; }
  bool SendTypedEvent(std::string type, std::string json) override {
    events.push_back("event: " + type + "\n" + json);
    return true;
  }
  void EndTypedStream() override { done = true; }
  bool client_gone() const override { return false; }
  void OnClientGone(std::function<void()>) override {}

  int status = 0;
  std::string content_type;
  std::string body;
  Headers headers;
  std::vector<std::string> events;
  bool done = false;
};

// Connects to 127.0.0.1:port (-1 on failure); SendAll; ReadAll reads until the peer closes or
// `timeout_ms` passes without data; ReadUntil stops once `marker` was read; RoundTrip sends one
// request and returns the raw response.



inline void RecordingResponder::Send(int s, std::string_view ct, std::string b, const Headers& extra) {
  status = s;
  content_type = std::string(ct);
  body = std::move(b);
  headers.insert(headers.end(), extra.begin(), extra.end());
}

inline void RecordingResponder::SendError(const api::ApiError& error) {
  ErrorResponse r = MapError(error);
  Send(r.status, "application/json", r.body, {});
}

inline int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

inline void SendAll(int fd, const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

inline std::string ReadImpl(int fd, const std::string* marker, int timeout_ms) {
  std::string out;
  char buf[4096];
  while (marker == nullptr || out.find(*marker) == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) break;
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

inline std::string ReadAll(int fd, int timeout_ms = 2000) { return ReadImpl(fd, nullptr, timeout_ms); }
inline std::string ReadUntil(int fd, const std::string& marker, int timeout_ms = 5000) { return ReadImpl(fd, &marker, timeout_ms); }

inline std::string RoundTrip(int port, const std::string& request) {
  int fd = Connect(port);
  if (fd < 0) return "";
  SendAll(fd, request);
  std::string out = ReadAll(fd);
  ::close(fd);
  return out;
}

}  // namespace gemmad::server::testing
