// PrepareSpeech (see transcription_prepare.h).
#include "api/transcription_prepare.h"

#include <fmt/format.h>

#include <cctype>

#include "api/chat_prepare.h"
#include "api/request_common.h"
#include "api/transcription_language.h"
#include "api/transcription_prompt.h"
#include "io/base64.h"

namespace gemmad::api {
namespace {

std::optional<ApiError> CheckRequest(const ServingContext& ctx, const TranscriptionRequest& r) {
  if (auto e = CheckModel(ctx, r.sampling.model)) return e;
  const SpeechFormat f = r.response_format;
  if (r.sampling.stream && f != SpeechFormat::kJson && f != SpeechFormat::kText) {
    // vLLM's message (it says so for verbose_json; srt and vtt are not streamed either).
    return ApiError::BadRequest(fmt::format("{} format doesn't support streaming case", SpeechFormatName(f)),
                                "response_format");
  }
  if (static_cast<int64_t>(r.file_bytes.size()) > ctx.media.max_audio_clip_bytes) {
    return ApiError::BadRequest("Maximum file size exceeded", "audio_filesize_mb");
  }
  return std::nullopt;
}

// The chat path names the part ("messages[0].content[0]: cannot load the audio: ..."); here the
// client sent a file, so the error names the file.
ApiError NameTheFile(ApiError e, const std::string& file_name) {
  constexpr std::string_view kPart = "messages[0].content[0]: ";
  const std::string& m = e.status.message();
  if (m.rfind(kPart, 0) != 0) return e;
  return ApiError::BadRequest(fmt::format("file {}: {}", PyRepr(file_name), m.substr(kPart.size())), "file");
}

}  // namespace

Json SpeechMessages(const std::string& audio_base64, const std::string& format, const std::string& instruction) {
  Json audio = Json::object();
  audio["type"] = "input_audio";
  audio["input_audio"] = Json{{"data", audio_base64}, {"format", format}};
  Json text = Json{{"type", "text"}, {"text", instruction}};
  Json message = Json{{"role", "user"}, {"content", Json::array({std::move(audio), std::move(text)})}};
  return Json::array({std::move(message)});
}

std::string AudioFormatHint(const std::string& file_name) {
  const size_t dot = file_name.rfind('.');
  if (dot == std::string::npos || file_name.find('/', dot) != std::string::npos) return "";
  std::string ext = file_name.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

std::optional<ApiError> PrepareSpeech(const ServingContext& ctx, ApiCall& call, SpeechTask task, PreparedSpeech* out) {
  TranscriptionRequest& r = out->request;
  if (auto e = ParseTranscriptionForm(call.form, task, &r)) return e;
  if (auto e = CheckRequest(ctx, r)) return e;
  out->created = UnixNow();
  out->request_id = MakeRequestId(task == SpeechTask::kTranscribe ? "transcribe" : "translate", call, std::nullopt);

  const Json messages = SpeechMessages(io::EncodeBase64(r.file_bytes), AudioFormatHint(r.file_name),
                                       SpeechInstruction(task, r.language, r.to_language, r.prompt));
  r.file_bytes = std::string();  // the base64 copy is what is loaded
  const Json kwargs = Json{{"enable_thinking", false}};
  ChatRenderInput in;
  in.messages = &messages;
  in.chat_template_kwargs = &kwargs;
  in.client_gone = call.client_gone;
  std::string prompt_text;
  std::vector<double> seconds;
  if (auto e = RenderAndTokenize(ctx, in, &prompt_text, &out->prompt_ids, &out->mm_items, &seconds)) {
    return NameTheFile(std::move(*e), r.file_name);
  }
  if (seconds.size() != 1) return ApiError::Internal("the audio prompt did not load exactly one clip");
  out->duration_s = seconds.front();

  SamplingInputs s;
  s.request = &r.sampling;
  s.defaults = &ctx.generation_defaults;
  s.limits = &ctx.engine->limits();
  s.tokenizer = ctx.tokenizer;
  s.prompt_ids = &out->prompt_ids;
  s.mm_items = &out->mm_items;
  if (r.response_format == SpeechFormat::kVerboseJson) s.logprobs = 0;  // each token's own, for avg_logprob
  return BuildSampling(s, &out->sampling);
}

}  // namespace gemmad::api
