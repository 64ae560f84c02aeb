// GET /v1/responses/{id}?stream=true replay (see responses_replay.h).
#include "api/responses_replay.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "api/request_fields.h"

namespace gemmad::api {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// %XX and '+' decoding (the values here are ASCII words and integers).
std::string Decode(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '+') {
      out += ' ';
    } else if (v[i] == '%' && i + 2 < v.size()) {
      int x = 0;
      auto r = std::from_chars(v.data() + i + 1, v.data() + i + 3, x, 16);
      if (r.ec == std::errc() && r.ptr == v.data() + i + 3) {
        out += static_cast<char>(x);
        i += 2;
      } else {
        out += v[i];
      }
    } else {
      out += v[i];
    }
  }
  return out;
}

}  // namespace

std::optional<ApiError> ParseRetrieveQuery(const std::string& query, RetrieveQuery* out) {
  std::string_view rest = query;
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    size_t eq = pair.find('=');
    std::string key = Decode(pair.substr(0, eq));
    std::string value = eq == std::string_view::npos ? "" : Decode(pair.substr(eq + 1));
    if (key == "stream") {
      std::string v = Lower(value);
      if (v == "true" || v == "1" || v == "yes" || v == "on" || v == "t" || v == "y") {
        out->stream = true;
      } else if (v == "false" || v == "0" || v == "no" || v == "off" || v == "f" || v == "n") {
        out->stream = false;
      } else {
        return ApiError::Validation("Input should be a valid boolean, unable to interpret input", "stream");
      }
    } else if (key == "starting_after") {
      int64_t n = 0;
      auto r = std::from_chars(value.data(), value.data() + value.size(), n);
      if (value.empty() || r.ec != std::errc() || r.ptr != value.data() + value.size()) {
        return ApiError::Validation("Input should be a valid integer, unable to parse string as an integer",
                                    "starting_after");
      }
      out->starting_after = n;
    }
  }
  return std::nullopt;
}

void ReplayEvents(const ResponseEventLog& log, int64_t start, ResponseSink& sink) {
  int64_t next = std::max<int64_t>(start, 0);
  if (next < log.first_sequence_number()) {
    return sink.SendError(ApiError::BadRequest(
        fmt::format("Events before sequence_number {} are no longer kept (GEMMAD_RESPONSES_EVENT_LOG_MAX_BYTES).",
                    log.first_sequence_number()),
        "starting_after"));
  }
  std::vector<LoggedEvent> batch;
  while (true) {
    ResponseEventLog::Read r = log.ReadFrom(&next, &batch, std::chrono::milliseconds(200));
    switch (r) {
      case ResponseEventLog::Read::kEvents:
        for (LoggedEvent& e : batch) {
          bool last = e.type == "response.completed" || e.type == "error";
          if (!sink.SendTypedEvent(e.type, std::move(e.json))) return;
          if (last) return sink.EndTypedStream();
        }
        break;
      case ResponseEventLog::Read::kTimeout:
        if (sink.client_gone()) return;
        break;
      case ResponseEventLog::Read::kGap: {
        Json error = {{"code", "event_log_overflow"},
                      {"message", "Events were dropped from the bounded event log before they were read."},
                      {"param", nullptr},
                      {"sequence_number", next},
                      {"type", "error"}};
        if (sink.SendTypedEvent("error", DumpJson(error))) sink.EndTypedStream();
        return;
      }
      case ResponseEventLog::Read::kClosed:
        // A cancelled run (or a start past its last event): nothing more will come.
        return sink.EndTypedStream();
    }
  }
}

}  // namespace gemmad::api
