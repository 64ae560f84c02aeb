// The audio routes' response formats: vLLM's json, and OpenAI's text, srt, vtt, verbose_json.
#include "api/transcription_format.h"

#include <gtest/gtest.h>

namespace gemmad::api {
namespace {

SpeechResult Result(SpeechTask task = SpeechTask::kTranscribe) {
  SpeechResult r;
  r.task = task;
  r.text = "Hello, world.";
  r.duration_s = 5.12;
  r.language = "english";
  r.tokens = {10, 11};
  r.avg_logprob = -0.25;
  return r;
}

TEST(SpeechFormatTest, Timestamps) {
  EXPECT_EQ(SubtitleTimestamp(0, ','), "00:00:00,000");
  EXPECT_EQ(SubtitleTimestamp(5.12, ','), "00:00:05,120");
  EXPECT_EQ(SubtitleTimestamp(5.12, '.'), "00:00:05.120");
  EXPECT_EQ(SubtitleTimestamp(3723.0456, ','), "01:02:03,046");
  EXPECT_EQ(SubtitleTimestamp(59.9996, '.'), "00:01:00.000");
  EXPECT_EQ(SubtitleTimestamp(-1, ','), "00:00:00,000");
}

TEST(SpeechFormatTest, JsonAsVllm) {
  EXPECT_EQ(SpeechJson(Result()), R"({"text":"Hello, world.","usage":{"type":"duration","seconds":6}})");
  EXPECT_EQ(SpeechJson(Result(SpeechTask::kTranslate)), R"({"text":"Hello, world."})");
  SpeechResult whole = Result();
  whole.duration_s = 2.0;
  EXPECT_EQ(SpeechJson(whole), R"({"text":"Hello, world.","usage":{"type":"duration","seconds":2}})");
}

TEST(SpeechFormatTest, SubtitlesOneCue) {
  EXPECT_EQ(SpeechSrt(Result()), "1\n00:00:00,000 --> 00:00:05,120\nHello, world.\n\n");
  EXPECT_EQ(SpeechVtt(Result()), "WEBVTT\n\n00:00:00.000 --> 00:00:05.120\nHello, world.\n\n");
  EXPECT_EQ(FormatSpeech(Result(), SpeechFormat::kVtt).content_type, "text/vtt; charset=utf-8");
  EXPECT_EQ(FormatSpeech(Result(), SpeechFormat::kSrt).body, SpeechSrt(Result()));
  EXPECT_EQ(FormatSpeech(Result(), SpeechFormat::kText).body, "Hello, world.");
  EXPECT_EQ(FormatSpeech(Result(), SpeechFormat::kText).content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(FormatSpeech(Result(), SpeechFormat::kJson).body, SpeechJson(Result()));
}

TEST(SpeechFormatTest, VerboseJsonAsOpenAi) {
  const Json j = Json::parse(SpeechVerboseJson(Result()));
  EXPECT_EQ(j["task"], "transcribe");
  EXPECT_EQ(j["language"], "english");
  EXPECT_DOUBLE_EQ(j["duration"].get<double>(), 5.12);
  EXPECT_EQ(j["text"], "Hello, world.");
  ASSERT_EQ(j["segments"].size(), 1u);
  const Json& s = j["segments"][0];
  EXPECT_EQ(s["id"], 0);
  EXPECT_DOUBLE_EQ(s["start"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(s["end"].get<double>(), 5.12);
  EXPECT_EQ(s["text"], "Hello, world.");
  EXPECT_EQ(s["tokens"], Json::array({10, 11}));
  EXPECT_DOUBLE_EQ(s["avg_logprob"].get<double>(), -0.25);
  EXPECT_GT(s["compression_ratio"].get<double>(), 0.0);
  EXPECT_TRUE(s["no_speech_prob"].is_null());
  EXPECT_EQ(j["usage"]["seconds"], 6);
  EXPECT_EQ(Json::parse(SpeechVerboseJson(Result(SpeechTask::kTranslate)))["task"], "translate");
}

TEST(SpeechFormatTest, CompressionRatio) {
  EXPECT_EQ(CompressionRatio(""), 0.0);
  EXPECT_GT(CompressionRatio(std::string(1000, 'a')), 10.0);  // repetitive text compresses well
  EXPECT_LT(CompressionRatio("Hi."), 1.0);                    // zlib's overhead on a short text
}

}  // namespace
}  // namespace gemmad::api
