// ResponseSink: where an API handler writes its answer, implemented by the HTTP server. A
// handler either sends one JSON body, or streams server-sent events (vLLM framing is the
// sink's job: the handler passes the JSON payload of each `data:` line), or reports an error
// (before the stream: an HTTP error response; during it: an SSE error event then [DONE]).
// Thread-safety: one handler thread writes; client_gone() and the callback may race with it.
#pragma once

#include <functional>
#include <string>

#include "api/api_error.h"

namespace gemmad::api {

class ResponseSink {
 public:
  virtual ~ResponseSink() = default;

  // 200 with an application/json body. Called at most once, and not after SendEvent.
  virtual void SendJson(std::string body) = 0;
  // 200 with another content type (the audio routes' text, srt and vtt answers). Called at most
  // once, and not after SendEvent.
  virtual void SendText(std::string content_type, std::string body) = 0;
  // The error as an HTTP response, or, once events were sent, as an SSE error event followed
  // by `data: [DONE]`. Ends the response.
  virtual void SendError(const ApiError& error) = 0;
  // One SSE event carrying `json` (the first call sends the 200 text/event-stream header).
  // Returns false once the client is gone (the caller should stop generating).
  virtual bool SendEvent(std::string json) = 0;
  // `data: [DONE]` and the end of the response.
  virtual void EndStream() = 0;
  // The Responses API's framing: `event: <type>` before the `data:` line of each event, and
  // the end of the stream without `data: [DONE]`.
  virtual bool SendTypedEvent(std::string type, std::string json) = 0;
  virtual void EndTypedStream() = 0;

  virtual bool client_gone() const = 0;
  // `callback` runs once, on any thread, when the client disconnects before the response
  // ended (immediately if it already has). Used to abort engine requests promptly.
  virtual void OnClientGone(std::function<void()> callback) = 0;
};

}  // namespace gemmad::api
