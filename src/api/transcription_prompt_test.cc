// Gemma 4's transcription and translation prompts, and the translation taken out of the
// model's output, whole and streamed.
#include "api/transcription_prompt.h"

#include <gtest/gtest.h>

namespace gemmad::api {
namespace {

constexpr const char* kRules =
    "\n\nFollow these specific instructions for formatting the answer:\n* Only output the transcription, with no "
    "newlines.\n* When transcribing numbers, write the digits, i.e. write 1.7 and not one point seven, and write 3 "
    "instead of three.";

TEST(SpeechInstructionTest, Transcription) {
  EXPECT_EQ(SpeechInstruction(SpeechTask::kTranscribe, "fr", std::nullopt, ""),
            std::string("Transcribe the following speech segment in French into French text.") + kRules);
  EXPECT_EQ(SpeechInstruction(SpeechTask::kTranscribe, std::nullopt, std::nullopt, ""),
            std::string("Transcribe the following speech segment into text.") + kRules);
  EXPECT_EQ(SpeechInstruction(SpeechTask::kTranscribe, "en", std::nullopt, "Names: Ada, Grace."),
            std::string("Transcribe the following speech segment in English into English text.") + kRules +
                "\n\nContext: Names: Ada, Grace.");
}

TEST(SpeechInstructionTest, Translation) {
  EXPECT_EQ(SpeechInstruction(SpeechTask::kTranslate, "de", std::nullopt, ""),
            "Transcribe the following speech segment in German, then translate it into English.\nWhen formatting the "
            "answer, first output the transcription in German, then one newline, then output the string 'English: ', "
            "then the translation in English.");
  EXPECT_EQ(SpeechInstruction(SpeechTask::kTranslate, std::nullopt, "es", "x"),
            "Transcribe the following speech segment, then translate it into Spanish.\nWhen formatting the answer, "
            "first output the transcription, then one newline, then output the string 'Spanish: ', then the "
            "translation in Spanish.\n\nContext: x");
  EXPECT_EQ(TranslationTarget(std::nullopt), "English");
  EXPECT_EQ(TranslationTarget("ja"), "Japanese");
}

TEST(ExtractTranslationTest, AfterTheLastMarkerLine) {
  EXPECT_EQ(ExtractTranslation("Bonjour le monde\nEnglish: Hello world \n", "English"), "Hello world");
  EXPECT_EQ(ExtractTranslation("English: one\nEnglish: two", "English"), "two");
  EXPECT_EQ(ExtractTranslation("English: only", "English"), "only");
  // Not at the start of a line: not the marker.
  EXPECT_EQ(ExtractTranslation("He said English: no\n", "English"), "He said English: no");
  EXPECT_EQ(ExtractTranslation("  no marker at all \n", "English"), "no marker at all");
  EXPECT_EQ(ExtractTranslation("Hola\nGerman: Hallo", "German"), "Hallo");
  EXPECT_EQ(ExtractTranslation("", "English"), "");
}

std::string Stream(const std::vector<std::string>& deltas, std::vector<std::string>* sent = nullptr) {
  TranslationStream s("English");
  std::string out;
  for (const std::string& d : deltas) {
    std::string piece = s.Push(d);
    if (sent && !piece.empty()) sent->push_back(piece);
    out += piece;
  }
  std::string last = s.Finish();
  if (sent && !last.empty()) sent->push_back(last);
  return out + last;
}

TEST(TranslationStreamTest, StreamsAfterTheMarker) {
  std::vector<std::string> sent;
  EXPECT_EQ(Stream({"Bon", "jour\nEng", "lish:", " ", " Hel", "lo ", " ", "world", "\n"}, &sent), "Hello  world");
  EXPECT_EQ(sent, (std::vector<std::string>{"Hel", "lo", "  world"}));
}

TEST(TranslationStreamTest, EqualsTheWholeExtraction) {
  const std::vector<std::string> outputs = {"Bonjour\nEnglish: Hello there.\n", "no marker \n", "English:  x y",
                                            "a English: b\nc", "\n\nEnglish: \n", ""};
  for (const std::string& o : outputs) {
    for (size_t cut = 1; cut <= 3; ++cut) {
      std::vector<std::string> deltas;
      for (size_t i = 0; i < o.size(); i += cut) deltas.push_back(o.substr(i, cut));
      EXPECT_EQ(Stream(deltas), ExtractTranslation(o, "English")) << o << " cut " << cut;
    }
  }
}

}  // namespace
}  // namespace gemmad::api
