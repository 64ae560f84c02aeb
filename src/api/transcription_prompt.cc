// SpeechInstruction, ExtractTranslation, TranslationStream (see transcription_prompt.h).
#include "api/transcription_prompt.h"

#include <fmt/format.h>

#include "api/transcription_language.h"

namespace gemmad::api {
namespace {

constexpr std::string_view kSpace = " \t\r\n";

constexpr std::string_view kTranscriptionRules =
    "Follow these specific instructions for formatting the answer:\n"
    "* Only output the transcription, with no newlines.\n"
    "* When transcribing numbers, write the digits, i.e. write 1.7 and not one point seven, and write 3 instead of "
    "three.";

std::string_view Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

// Where the text after a "<marker>" at the start of a line begins, searching from the end
// (`last`) or from `from` onwards.
std::optional<size_t> FindMarker(std::string_view text, std::string_view marker, bool last, size_t from = 0) {
  size_t pos = last ? text.rfind(marker) : text.find(marker, from);
  while (pos != std::string_view::npos) {
    if (pos == 0 || text[pos - 1] == '\n') return pos + marker.size();
    pos = last ? text.rfind(marker, pos - 1) : text.find(marker, pos + 1);
  }
  return std::nullopt;
}

}  // namespace

std::string TranslationTarget(const std::optional<std::string>& to_language) {
  if (!to_language) return "English";
  return std::string(LanguageName(*to_language).value_or("English"));
}

std::string SpeechInstruction(SpeechTask task, const std::optional<std::string>& language,
                              const std::optional<std::string>& to_language, std::string_view prompt) {
  const std::string source = language ? std::string(LanguageName(*language).value_or(*language)) : "";
  std::string text;
  if (task == SpeechTask::kTranscribe) {
    text = source.empty() ? "Transcribe the following speech segment into text."
                          : fmt::format("Transcribe the following speech segment in {0} into {0} text.", source);
    text += fmt::format("\n\n{}", kTranscriptionRules);
  } else {
    const std::string target = TranslationTarget(to_language);
    const std::string in = source.empty() ? "" : " in " + source;
    text = fmt::format(
        "Transcribe the following speech segment{0}, then translate it into {1}.\n"
        "When formatting the answer, first output the transcription{0}, then one newline, then output the string "
        "'{1}: ', then the translation in {1}.",
        in, target);
  }
  if (!prompt.empty()) text += fmt::format("\n\nContext: {}", prompt);
  return text;
}

std::string ExtractTranslation(std::string_view output, std::string_view target) {
  const std::string marker = fmt::format("{}: ", target);
  std::optional<size_t> start = FindMarker(output, marker, /*last=*/true);
  return std::string(Trim(start ? output.substr(*start) : output));
}

TranslationStream::TranslationStream(std::string_view target) : marker_(fmt::format("{}: ", target)) {}

std::string TranslationStream::Push(std::string_view delta) {
  const size_t before = all_.size();
  all_ += delta;
  if (!start_) {
    // A marker may straddle the previous delta: look again from just before it.
    const size_t from = before > marker_.size() ? before - marker_.size() : 0;
    start_ = FindMarker(all_, marker_, /*last=*/false, from);
    if (!start_) return "";
    while (*start_ < all_.size() && kSpace.find(all_[*start_]) != std::string_view::npos) ++*start_;
  }
  // Skip leading whitespace until the first character of the translation arrives.
  if (sent_ == 0) {
    while (*start_ < all_.size() && kSpace.find(all_[*start_]) != std::string_view::npos) ++*start_;
  }
  const std::string_view rest = std::string_view(all_).substr(*start_ + sent_);
  const size_t keep = rest.find_last_not_of(kSpace);
  if (keep == std::string_view::npos) return "";
  sent_ += keep + 1;
  return std::string(rest.substr(0, keep + 1));
}

std::string TranslationStream::Finish() {
  if (start_) return "";
  return std::string(Trim(all_));
}

}  // namespace gemmad::api
