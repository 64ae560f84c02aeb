// ResponsesEventWriter: the typed SSE events of a streamed /v1/responses, as vLLM's
// SimpleStreamingEventProcessor writes them: response.created, response.in_progress, then per
// output item output_item.added, its part added / deltas / done events and output_item.done,
// then response.completed; each event carries its sequence_number (0, 1, ...), is sent with an
// `event: <type>` line, and the stream ends without `data: [DONE]`.
#pragma once

#include <cstdint>
#include <string>

#include "api/request_fields.h"
#include "api/response_sink.h"
#include "api/responses_output.h"
#include "parse/delta.h"

namespace gemmad::api {

class ResponsesEventWriter {
 public:
  explicit ResponsesEventWriter(ResponseSink& sink) : sink_(sink) {}

  // response.created then response.in_progress, both carrying `response` (status in_progress).
  bool Start(const Json& response);
  // One parser delta with one member set (reasoning, content or a tool-call entry). A change of
  // kind (or of tool call) closes the open item and opens the next one; empty text is skipped.
  // `logprobs` (an array) goes on an output_text.delta (vLLM: the step's tokens).
  bool Feed(const parse::Delta& delta, const Json& logprobs = Json::array());
  // Closes the open item, if any.
  bool Close();
  // response.completed with the final response object, then the end of the stream.
  void Complete(const Json& response);
  // An engine failure after the stream started: the typed `error` event (the openai client's
  // ResponseErrorEvent: code, message, param, sequence_number) then the end of the stream, with
  // no response.completed (vLLM ends its stream at the error too).
  void Fail(const std::string& code, const std::string& message);

  // The ids of the items streamed so far, per kind (the final response repeats them).
  const ItemIds& ids() const { return ids_; }
  int64_t sequence_number() const { return seq_; }

 private:
  enum class State { kNone, kContent, kReasoning, kToolCall };
  // Sends {fields..., "sequence_number", "type"} with keys in the client types' (sorted) order.
  bool Emit(const std::string& type, Json fields);
  bool Open(State target, const parse::ToolCallDelta* call);
  bool Delta(const parse::Delta& delta, const Json& logprobs);

  ResponseSink& sink_;
  int64_t seq_ = 0;
  bool ok_ = true;
  State state_ = State::kNone;
  int64_t output_index_ = 0;
  std::string item_id_;
  std::string text_;  // the open item's text (or arguments) so far
  std::string call_id_, call_name_;
  int call_index_ = -1;
  bool call_delta_sent_ = false;
  ItemIds ids_;
};

}  // namespace gemmad::api
