// ResponsesEventWriter (see responses_stream.h).
#include "api/responses_stream.h"

#include <map>

namespace gemmad::api {

bool ResponsesEventWriter::Emit(const std::string& type, Json fields) {
  if (!ok_) return false;
  Json extra_name;  // vLLM adds `name` to function_call_arguments.done, past the type's fields
  if (type == "response.function_call_arguments.done") {
    extra_name = fields["name"];
    fields.erase("name");
  }
  fields["sequence_number"] = seq_++;
  fields["type"] = type;
  std::map<std::string, Json> sorted;
  for (auto it = fields.begin(); it != fields.end(); ++it) sorted.emplace(it.key(), it.value());
  Json event = Json::object();
  for (auto& [key, value] : sorted) event[key] = std::move(value);
  if (!extra_name.is_null()) event["name"] = std::move(extra_name);
  ok_ = sink_.SendTypedEvent(type, DumpJson(event));
  return ok_;
}

bool ResponsesEventWriter::Start(const Json& response) {
  return Emit("response.created", Json{{"response", response}}) &&
         Emit("response.in_progress", Json{{"response", response}});
}

bool ResponsesEventWriter::Open(State target, const parse::ToolCallDelta* call) {
  state_ = target;
  text_.clear();
  Json head = {{"output_index", output_index_}};
  switch (target) {
    case State::kContent: {
      item_id_ = NewResponsesId("msg");
      ids_.message.push_back(item_id_);
      Json added = head;
      added["item"] = MessageItem(item_id_, std::nullopt, "in_progress");
      if (!Emit("response.output_item.added", std::move(added))) return false;
      Json part = {{"content_index", 0}, {"item_id", item_id_}, {"output_index", output_index_}};
      part["part"] = OutputTextPart("", Json::array());
      return Emit("response.content_part.added", std::move(part));
    }
    case State::kReasoning: {
      item_id_ = NewResponsesId("rs");
      ids_.reasoning.push_back(item_id_);
      Json added = head;
      added["item"] = ReasoningItem(item_id_, std::nullopt, "in_progress");
      if (!Emit("response.output_item.added", std::move(added))) return false;
      Json part = {{"content_index", 0}, {"item_id", item_id_}, {"output_index", output_index_}};
      part["part"] = ReasoningTextPart("");
      return Emit("response.reasoning_part.added", std::move(part));
    }
    case State::kToolCall: {
      item_id_ = NewResponsesId("fc");
      ids_.function_call.push_back(item_id_);
      call_id_ = call->id.value_or("");
      ids_.call_ids.push_back(call_id_);
      call_name_ = call->name.value_or("");
      call_index_ = call->index;
      call_delta_sent_ = false;
      Json added = head;
      added["item"] = FunctionCallItem(item_id_, call_id_, call_name_, "", "in_progress");
      return Emit("response.output_item.added", std::move(added));
    }
    case State::kNone: return true;
  }
  return true;
}

bool ResponsesEventWriter::Close() {
  Json at = {{"item_id", item_id_}, {"output_index", output_index_}};
  bool sent = true;
  switch (state_) {
    case State::kNone: return ok_;
    case State::kContent: {
      Json done = at;
      done["content_index"] = 0;
      done["logprobs"] = Json::array();
      done["text"] = text_;
      Json part = at;
      part["content_index"] = 0;
      part["part"] = OutputTextPart(text_, nullptr);
      Json item = {{"output_index", output_index_}, {"item", MessageItem(item_id_, text_, "completed")}};
      sent = Emit("response.output_text.done", std::move(done)) && Emit("response.content_part.done", std::move(part)) &&
             Emit("response.output_item.done", std::move(item));
      break;
    }
    case State::kReasoning: {
      Json done = at;
      done["content_index"] = 0;
      done["text"] = text_;
      Json part = at;
      part["content_index"] = 0;
      part["part"] = ReasoningTextPart(text_);
      Json item = {{"output_index", output_index_}, {"item", ReasoningItem(item_id_, text_, "completed")}};
      sent = Emit("response.reasoning_text.done", std::move(done)) &&
             Emit("response.reasoning_part.done", std::move(part)) && Emit("response.output_item.done", std::move(item));
      break;
    }
    case State::kToolCall: {
      if (call_delta_sent_) {
        Json done = at;
        done["arguments"] = text_;
        done["name"] = call_name_;
        sent = Emit("response.function_call_arguments.done", std::move(done));
      }
      Json item = {{"output_index", output_index_},
                   {"item", FunctionCallItem(item_id_, call_id_, call_name_, text_, "completed")}};
      sent = sent && Emit("response.output_item.done", std::move(item));
      break;
    }
  }
  ++output_index_;
  state_ = State::kNone;
  return sent;
}

bool ResponsesEventWriter::Delta(const parse::Delta& d, const Json& logprobs) {
  Json at = {{"item_id", item_id_}, {"output_index", output_index_}};
  if (state_ == State::kToolCall) {
    const std::string& args = d.tool_calls.front().arguments;
    if (args.empty()) return ok_;
    text_ += args;
    call_delta_sent_ = true;
    at["delta"] = args;
    return Emit("response.function_call_arguments.delta", std::move(at));
  }
  at["content_index"] = 0;
  if (state_ == State::kReasoning) {
    text_ += *d.reasoning;
    at["delta"] = *d.reasoning;
    return Emit("response.reasoning_text.delta", std::move(at));
  }
  text_ += *d.content;
  at["delta"] = *d.content;
  at["logprobs"] = logprobs;
  return Emit("response.output_text.delta", std::move(at));
}

bool ResponsesEventWriter::Feed(const parse::Delta& d, const Json& logprobs) {
  State target = State::kNone;
  const parse::ToolCallDelta* call = nullptr;
  if (!d.tool_calls.empty()) {
    target = State::kToolCall;
    call = &d.tool_calls.front();
  } else if (d.reasoning && !d.reasoning->empty()) {
    target = State::kReasoning;
  } else if (d.content && !d.content->empty()) {
    target = State::kContent;
  }
  if (target == State::kNone) return ok_;
  bool new_call = target == State::kToolCall && state_ == State::kToolCall && call->index != call_index_;
  if (target != state_ || new_call) {
    if (!Close() || !Open(target, call)) return false;
  }
  return Delta(d, logprobs);
}

void ResponsesEventWriter::Complete(const Json& response) {
  if (Emit("response.completed", Json{{"response", response}})) sink_.EndTypedStream();
}

void ResponsesEventWriter::Fail(const std::string& code, const std::string& message) {
  if (Emit("error", Json{{"code", code}, {"message", message}, {"param", nullptr}})) sink_.EndTypedStream();
}

}  // namespace gemmad::api
