// The audio routes' form: vLLM's fields, defaults and validation messages; the ISO 639-1 table.
#include "api/transcription_request.h"

#include <gtest/gtest.h>

#include "api/transcription_language.h"

namespace gemmad::api {
namespace {

FormPart Field(std::string name, std::string value) { return {std::move(name), std::nullopt, "", std::move(value)}; }
FormPart File(std::string data = "RIFF....WAVE", std::string name = "clip.wav") {
  return {"file", std::move(name), "audio/wav", std::move(data)};
}

std::optional<ApiError> Parse(std::vector<FormPart> form, TranscriptionRequest* out,
                              SpeechTask task = SpeechTask::kTranscribe) {
  return ParseTranscriptionForm(form, task, out);
}

std::string Message(std::vector<FormPart> form, SpeechTask task = SpeechTask::kTranscribe) {
  TranscriptionRequest r;
  auto e = Parse(std::move(form), &r, task);
  return e ? e->status.message() : "ok";
}

TEST(TranscriptionFormTest, Defaults) {
  TranscriptionRequest r;
  ASSERT_FALSE(Parse({File()}, &r));
  EXPECT_EQ(r.file_bytes, "RIFF....WAVE");
  EXPECT_EQ(r.file_name, "clip.wav");
  EXPECT_EQ(r.response_format, SpeechFormat::kJson);
  EXPECT_EQ(r.sampling.temperature, 0.0);  // vLLM's field default: greedy
  EXPECT_FALSE(r.sampling.top_p);
  EXPECT_FALSE(r.sampling.stream);
  EXPECT_FALSE(r.language);
  EXPECT_EQ(r.prompt, "");
}

TEST(TranscriptionFormTest, AllFields) {
  TranscriptionRequest r;
  ASSERT_FALSE(Parse({Field("model", "m"), Field("language", "fr"), Field("prompt", "names: Ada"),
                      Field("response_format", "verbose_json"), Field("temperature", "0.5"), Field("top_p", "0.9"),
                      Field("top_k", "5"), Field("min_p", "0.1"), Field("seed", "7"), Field("frequency_penalty", "0.2"),
                      Field("presence_penalty", "0.3"), Field("repetition_penalty", "1.1"),
                      Field("max_completion_tokens", "12"), Field("stream", "true"), Field("stream_include_usage", "1"),
                      Field("stream_continuous_usage_stats", "yes"), Field("timestamp_granularities[]", "word"),
                      Field("timestamp_granularities[]", "segment"), File()},
                     &r));
  EXPECT_EQ(r.sampling.model, "m");
  EXPECT_EQ(r.language, "fr");
  EXPECT_EQ(r.prompt, "names: Ada");
  EXPECT_EQ(r.response_format, SpeechFormat::kVerboseJson);
  EXPECT_EQ(r.sampling.temperature, 0.5);
  EXPECT_EQ(r.sampling.top_p, 0.9);
  EXPECT_EQ(r.sampling.top_k, 5);
  EXPECT_EQ(r.sampling.min_p, 0.1);
  EXPECT_EQ(r.sampling.seed, 7);
  EXPECT_EQ(r.sampling.frequency_penalty, 0.2);
  EXPECT_EQ(r.sampling.presence_penalty, 0.3);
  EXPECT_EQ(r.sampling.repetition_penalty, 1.1);
  EXPECT_EQ(r.sampling.max_tokens, 12);
  EXPECT_TRUE(r.sampling.stream && r.sampling.include_usage && r.sampling.continuous_usage_stats);
  EXPECT_EQ(r.timestamp_granularities, (std::vector<std::string>{"word", "segment"}));
}

TEST(TranscriptionFormTest, TranslationReadsVllmsFewerFields) {
  TranscriptionRequest r;
  ASSERT_FALSE(Parse({Field("top_p", "0.5"), Field("top_k", "not a number"), Field("seed", "3"),
                      Field("to_language", "de"), File()},
                     &r, SpeechTask::kTranslate));
  EXPECT_EQ(r.task, SpeechTask::kTranslate);
  EXPECT_FALSE(r.sampling.top_p);  // not a TranslationRequest field: ignored
  EXPECT_EQ(r.sampling.seed, 3);
  EXPECT_EQ(r.to_language, "de");
}

TEST(TranscriptionFormTest, LastValueWins) {
  TranscriptionRequest r;
  ASSERT_FALSE(Parse({Field("language", "de"), File("first"), Field("language", "en"), File("second")}, &r));
  EXPECT_EQ(r.language, "en");
  EXPECT_EQ(r.file_bytes, "second");
}

TEST(TranscriptionFormTest, Errors) {
  EXPECT_EQ(Message({Field("model", "m")}), "body.file: Field required");
  EXPECT_EQ(Message({Field("file", "just text")}), "Expected 'file' to be a file-like object, not 'str'.");
  EXPECT_EQ(Message({File(), Field("response_format", "xml")}),
            "body.response_format: Input should be 'json', 'text', 'srt', 'verbose_json' or 'vtt'");
  EXPECT_EQ(Message({File(), Field("timestamp_granularities[]", "char")}),
            "body.timestamp_granularities[].0: Input should be 'word' or 'segment'");
  EXPECT_EQ(Message({File(), Field("temperature", "hot")}),
            "body.temperature: Input should be a valid number, unable to parse string as a number");
  EXPECT_EQ(Message({File(), Field("stream", "maybe")}), "body.stream: Input should be a valid boolean");
  EXPECT_EQ(Message({File(), Field("stream_include_usage", "true")}),
            "body: Value error, Stream options can only be defined when `stream=True`.");
  EXPECT_EQ(Message({File(), FormPart{"model", "m.txt", "", "m"}}), "body.model: Input should be a valid string");
  EXPECT_EQ(Message({File(), Field("use_beam_search", "true")}), "beam search is not supported by gemmad");
  const std::string lang = Message({File(), Field("language", "english")});
  EXPECT_EQ(lang.rfind("Unsupported language: 'english'.  Must be one of ['aa', 'ab', ", 0), 0u) << lang;
  EXPECT_NE(lang.find("'zu']."), std::string::npos);
  EXPECT_EQ(Message({File(), Field("to_language", "EN")}, SpeechTask::kTranslate).rfind("Unsupported language: 'EN'", 0),
            0u);
}

TEST(TranscriptionFormTest, ErrorsNameTheField) {
  TranscriptionRequest r;
  auto e = Parse({Field("language", "xx"), File()}, &r);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->param, "language");
  EXPECT_FALSE(e->validation);
  e = Parse({Field("model", "m")}, &r);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->param, "file");
  EXPECT_TRUE(e->validation);
}

TEST(LanguageTableTest, Iso6391Names) {
  EXPECT_EQ(LanguageName("en"), "English");
  EXPECT_EQ(LanguageName("fr"), "French");
  EXPECT_EQ(LanguageName("zh"), "Chinese");
  EXPECT_EQ(LanguageName("nb"), "Norwegian Bokmål");
  EXPECT_EQ(LanguageName("zu"), "Zulu");
  EXPECT_FALSE(LanguageName("EN"));
  EXPECT_FALSE(LanguageName("eng"));
  EXPECT_FALSE(LanguageName("haw"));  // in Whisper's table, not ISO 639-1
  EXPECT_FALSE(LanguageName(""));
}

TEST(LanguageTableTest, PyRepr) {
  EXPECT_EQ(PyRepr("xx"), "'xx'");
  EXPECT_EQ(PyRepr("it's"), "\"it's\"");
  EXPECT_EQ(PyRepr("a'\"b"), "'a\\'\"b'");
  EXPECT_EQ(PyRepr("a\\b\n\x01"), "'a\\\\b\\n\\x01'");
}

}  // namespace
}  // namespace gemmad::api
