// /v1/models, /tokenize, /detokenize.
#include "api/misc_serving.h"

#include <fmt/format.h>

#include "api/chat_prepare.h"
#include "api/request_common.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api {

void ServeModels(const ServingContext& ctx, ResponseSink& sink) {
  Json data = Json::array();
  for (const std::string& name : ctx.options.served_model_names) {
    Json perm = Json::object();
    perm["id"] = "modelperm-" + RandomHex(32);
    perm["object"] = "model_permission";
    perm["created"] = ctx.options.created_unix;
    perm["allow_create_engine"] = false;
    perm["allow_sampling"] = true;
    perm["allow_logprobs"] = true;
    perm["allow_search_indices"] = false;
    perm["allow_view"] = true;
    perm["allow_fine_tuning"] = false;
    perm["organization"] = "*";
    perm["group"] = nullptr;
    perm["is_blocking"] = false;
    Json m = Json::object();
    m["id"] = name;
    m["object"] = "model";
    m["created"] = ctx.options.created_unix;
    m["owned_by"] = "vllm";
    m["root"] = ctx.options.model_root;
    m["parent"] = nullptr;
    m["max_model_len"] = ctx.engine->limits().max_model_len;
    m["permission"] = Json::array({std::move(perm)});
    data.push_back(std::move(m));
  }
  sink.SendJson(DumpJson(Json{{"object", "list"}, {"data", std::move(data)}}));
}

void ServeTokenize(const ServingContext& ctx, const ApiCall& call, ResponseSink& sink) {
  Json body;
  if (auto e = DecodeBody(call.body, ctx.limits.max_json_depth, &body)) return sink.SendError(*e);
  if (!body.is_object()) return sink.SendError(ApiError::Validation("body: Input should be a valid dictionary"));
  FieldReader r(body);
  std::optional<std::string> model = r.String("model");
  bool return_strs = r.Bool("return_token_strs").value_or(false);
  std::vector<int32_t> ids;
  if (r.Has("messages")) {
    const Json* messages = r.Raw("messages");
    if (!messages->is_array()) r.Fail("messages", "Input should be a valid list");
    ChatRenderInput in;
    in.messages = messages;
    in.tools = r.Raw("tools");
    in.chat_template_kwargs = r.Object("chat_template_kwargs");
    in.chat_template = r.String("chat_template");
    in.add_generation_prompt = r.Bool("add_generation_prompt").value_or(true);
    in.continue_final_message = r.Bool("continue_final_message").value_or(false);
    in.add_special_tokens = r.Bool("add_special_tokens").value_or(false);
    in.mm_processor_kwargs = r.Object("mm_processor_kwargs");
    in.media_io_kwargs = r.Object("media_io_kwargs");
    in.client_gone = call.client_gone;
    if (in.continue_final_message && in.add_generation_prompt) {
      r.FailValue("Cannot set both `continue_final_message` and `add_generation_prompt` to True.");
    }
    if (!r.ok()) return sink.SendError(r.error());
    if (auto e = CheckModel(ctx, model)) return sink.SendError(*e);
    if (auto e = CheckTools(in.tools, ctx.limits)) return sink.SendError(*e);
    if (in.chat_template && !ctx.options.trust_request_chat_template) {
      return sink.SendError(ApiError::BadRequest(
          "Chat template is passed with request, but --trust-request-chat-template is not set. Refused request "
          "with untrusted chat template."));
    }
    std::string text;
    if (auto e = RenderAndTokenize(ctx, in, &text, &ids)) return sink.SendError(*e);
  } else {
    std::optional<std::string> prompt = r.String("prompt");
    bool add_special = r.Bool("add_special_tokens").value_or(true);
    if (!prompt && r.ok()) r.Fail("prompt", "Field required");
    if (!r.ok()) return sink.SendError(r.error());
    if (auto e = CheckModel(ctx, model)) return sink.SendError(*e);
    ids = ctx.tokenizer->Encode(*prompt, add_special);
  }
  Json out = Json::object();
  out["count"] = ids.size();
  out["max_model_len"] = ctx.engine->limits().max_model_len;
  out["tokens"] = ids;
  if (return_strs) {
    Json strs = Json::array();
    for (int32_t id : ids) strs.push_back(std::string(ctx.tokenizer->IdToToken(id)));
    out["token_strs"] = std::move(strs);
  } else {
    out["token_strs"] = nullptr;
  }
  sink.SendJson(DumpJson(out));
}

void ServeDetokenize(const ServingContext& ctx, const ApiCall& call, ResponseSink& sink) {
  Json body;
  if (auto e = DecodeBody(call.body, ctx.limits.max_json_depth, &body)) return sink.SendError(*e);
  if (!body.is_object()) return sink.SendError(ApiError::Validation("body: Input should be a valid dictionary"));
  FieldReader r(body);
  std::optional<std::string> model = r.String("model");
  r.Require("tokens");
  std::optional<std::vector<int64_t>> tokens = r.IntList("tokens");
  if (!r.ok()) return sink.SendError(r.error());
  if (auto e = CheckModel(ctx, model)) return sink.SendError(*e);
  std::vector<int32_t> ids;
  int32_t vocab = ctx.tokenizer->vocab_size();
  for (int64_t t : *tokens) {
    if (t < 0 || t >= vocab) {
      return sink.SendError(ApiError::BadRequest(fmt::format("Token id {} is out of vocabulary", t), "tokens"));
    }
    ids.push_back(static_cast<int32_t>(t));
  }
  Json out = Json::object();
  out["prompt"] = ctx.tokenizer->Decode(ids, /*skip_special_tokens=*/false);
  sink.SendJson(DumpJson(out));
}

}  // namespace gemmad::api
