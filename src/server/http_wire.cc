// HTTP/1.1 response formatting (see http_wire.h).
#include "server/http_wire.h"

#include <ctime>

#include <fmt/format.h>

namespace gemmad::server {

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Request Entity Too Large";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

static std::string HttpDate() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::string ResponseHead(int status, std::string_view content_type, long long content_length, bool keep_alive,
                         const Headers& extra) {
  std::string h = fmt::format("HTTP/1.1 {} {}\r\ndate: {}\r\nserver: gemmad\r\n", status, ReasonPhrase(status), HttpDate());
  if (content_length >= 0) {
    h += fmt::format("content-length: {}\r\n", content_length);
  } else {
    h += "transfer-encoding: chunked\r\n";
  }
  if (!content_type.empty()) h += fmt::format("content-type: {}\r\n", content_type);
  for (const auto& [name, value] : extra) h += fmt::format("{}: {}\r\n", name, value);
  if (!keep_alive) h += "connection: close\r\n";
  h += "\r\n";
  return h;
}

std::string InvalidRequestResponse() {
  return "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
         "Invalid HTTP request received.";
}

std::string Chunk(std::string_view data) { return fmt::format("{:x}\r\n{}\r\n", data.size(), data); }

std::string LastChunk() { return "0\r\n\r\n"; }

std::string SseEvent(std::string_view payload) { return fmt::format("data: {}\n\n", payload); }
std::string TypedSseEvent(std::string_view type, std::string_view payload) {
  return fmt::format("event: {}\ndata: {}\n\n", type, payload);
}

}  // namespace gemmad::server
