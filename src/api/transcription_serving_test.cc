// The audio routes below HTTP: real tokenizer and chat template, the real audio decoder on a
// generated WAV, a scripted engine. Checks the prompt the engine gets (Gemma 4's instruction after
// the clip's 25 soft tokens, greedy), each response format, the stream, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "api/fake_engine_test_util.h"
#include "api/request_fields.h"
#include "api/serving_test_util.h"
#include "api/transcription_serving.h"
#include "mm/wav_for_tests.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api {
namespace {

using testing::Delta;
using testing::FakeEngine;

using Sink = testing::RecordingSink;
using testing::Tok;

// One second of a 440 Hz tone: mono 16-bit PCM WAV at 16 kHz.
std::string Wav() {
  std::vector<float> tone(16000);
  for (size_t i = 0; i < tone.size(); ++i) tone[i] = static_cast<float>(8000.0 / 32767.0 * std::sin(i * 0.1728));
  const std::vector<uint8_t> wav = mm::MakeWav({}, tone);
  return std::string(wav.begin(), wav.end());
}

class TranscriptionServingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::EngineLimits limits = testing::TestLimits(1024);
    limits.modalities = {mm::Modality::kAudio};
    engine_ = std::make_unique<FakeEngine>(limits);
    ctx_.engine = engine_.get();
    ctx_.tokenizer = &Tok();
    auto t = tmpl::MakeChatTemplate(tmpl::EmbeddedGemma4ToolTemplate(), "test");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    ctx_.chat_template = std::move(*t);
    ctx_.options.served_model_names = {"google/gemma-4-E2B-it"};
    ctx_.generation_defaults.eos_token_ids = {1, 106};
    ctx_.media.audio = ctx_.media.audio_tower = true;
    ctx_.media.model_name = "google/gemma-4-E2B-it";
    Answer("Hello world");
  }
  void Answer(const std::string& text) {
    std::vector<int32_t> ids = Tok().Encode(text, false);
    engine_->set_script([ids](const engine::EngineRequest&) {
      std::vector<int32_t> head(ids.begin(), ids.begin() + 1), tail(ids.begin() + 1, ids.end());
      tail.push_back(106);
      return std::vector<engine::RequestOutput>{Delta(0, head), Delta(0, tail, engine::FinishReason::kStop, 106)};
    });
  }
  Sink Serve(std::vector<FormPart> fields, SpeechTask task = SpeechTask::kTranscribe, bool file = true) {
    if (file) fields.push_back({"file", "clip.wav", "audio/wav", Wav()});
    ApiCall call{"", "", std::chrono::steady_clock::now(), {}, std::move(fields)};
    Sink sink;
    ServeSpeech(ctx_, call, task, sink);
    return sink;
  }
  static FormPart F(std::string name, std::string value) { return {std::move(name), std::nullopt, "", std::move(value)}; }

  std::unique_ptr<FakeEngine> engine_;
  ServingContext ctx_;
};

TEST_F(TranscriptionServingTest, JsonAndThePromptTheEngineGets) {
  Sink s = Serve({F("language", "fr")});
  ASSERT_FALSE(s.error) << s.error->status.message();
  EXPECT_EQ(s.body, R"({"text":"Hello world","usage":{"type":"duration","seconds":1}})");
  const std::vector<engine::EngineRequest> submitted = engine_->submitted();
  ASSERT_EQ(submitted.size(), 1u);
  const engine::EngineRequest& r = submitted[0];
  EXPECT_EQ(r.sampling.temperature, 0.0f);
  const std::string prompt = Tok().Decode(r.prompt_token_ids, false);
  const size_t audio = prompt.find("<|audio>");
  const size_t instruction = prompt.find("Transcribe the following speech segment in French into French text.");
  ASSERT_NE(audio, std::string::npos) << prompt;
  EXPECT_LT(audio, instruction);
  int64_t soft = 0;
  for (int32_t id : r.prompt_token_ids) soft += id == ctx_.media.audio_token_id;
  EXPECT_EQ(soft, 25);  // multimodal.md §4.7: 1 s -> 25 soft tokens
  ASSERT_EQ(r.mm_items.size(), 1u);
  EXPECT_EQ(r.mm_items[0].placeholder_length, 25);
}

TEST_F(TranscriptionServingTest, Formats) {
  EXPECT_EQ(Serve({F("response_format", "text")}).body, "Hello world");
  Sink srt = Serve({F("response_format", "srt")});
  EXPECT_EQ(srt.body, "1\n00:00:00,000 --> 00:00:01,000\nHello world\n\n");
  EXPECT_EQ(Serve({F("response_format", "vtt")}).type, "text/vtt; charset=utf-8");
  const Json v = Json::parse(Serve({F("response_format", "verbose_json")}).body);
  EXPECT_EQ(v["language"], "unknown");
  EXPECT_EQ(v["segments"][0]["tokens"], Tok().Encode("Hello world", false));  // without the turn end
}

TEST_F(TranscriptionServingTest, TranslationReturnsTheTranslation) {
  Answer("Hallo Welt\nEnglish: Hello world");
  Sink s = Serve({F("language", "de")}, SpeechTask::kTranslate);
  EXPECT_EQ(s.body, R"({"text":"Hello world"})");
  Sink stream = Serve({F("stream", "true")}, SpeechTask::kTranslate);
  std::string text;
  for (const Json& e : stream.events) {
    EXPECT_EQ(e["object"], "translation.chunk");
    text += e["choices"][0]["delta"]["content"].get<std::string>();
  }
  EXPECT_EQ(text, "Hello world");
  EXPECT_TRUE(stream.done);
}

TEST_F(TranscriptionServingTest, StreamAsVllm) {
  Sink s = Serve({F("stream", "true"), F("stream_include_usage", "true")});
  // The engine double's outputs are read as one delta.
  ASSERT_EQ(s.events.size(), 2u) << Json(s.events).dump();
  EXPECT_EQ(s.events[0]["object"], "transcription.chunk");
  EXPECT_EQ(s.events[0]["id"].get<std::string>().rfind("transcribe-", 0), 0u);
  EXPECT_EQ(s.events[0]["choices"][0].dump(),
            R"({"delta":{"content":"Hello world"},"finish_reason":"stop","stop_reason":106})");
  EXPECT_FALSE(s.events[0].contains("usage"));
  EXPECT_EQ(s.events[1]["choices"], Json::array());
  EXPECT_EQ(s.events[1]["usage"]["completion_tokens"], 3);
  EXPECT_EQ(s.events[1]["usage"]["total_tokens"], s.events[1]["usage"]["prompt_tokens"].get<int64_t>() + 3);
  EXPECT_TRUE(s.done);
}

TEST_F(TranscriptionServingTest, Errors) {
  EXPECT_EQ(Serve({}, SpeechTask::kTranscribe, false).error->status.message(), "body.file: Field required");
  EXPECT_EQ(Serve({F("model", "other")}).error->status.message(), "The model `other` does not exist.");
  EXPECT_EQ(Serve({F("stream", "1"), F("response_format", "srt")}).error->status.message(),
            "srt format doesn't support streaming case");
  ctx_.media.max_audio_clip_bytes = 100;
  EXPECT_EQ(Serve({}).error->status.message(), "Maximum file size exceeded");
  ctx_.media.max_audio_clip_bytes = int64_t{25} << 20;
  std::vector<FormPart> bad = {{"file", "noise.mp3", "audio/mpeg", "not audio at all"}};
  auto e = Serve(bad, SpeechTask::kTranscribe, false).error;
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status.message().rfind("file 'noise.mp3': ", 0), 0u) << e->status.message();
  EXPECT_EQ(e->param, "file");
  ctx_.media.audio_tower = false;
  EXPECT_NE(Serve({}).error->status.message().find("does not have an audio tower"), std::string::npos);
  EXPECT_TRUE(engine_->submitted().empty());
}

}  // namespace
}  // namespace gemmad::api
