// Gemma 4's own speech prompts (the model card's audio best practices) for the audio routes,
// and the translation route's answer taken out of the model's "transcription, newline,
// '<Target>: ' translation" output (whole, or as a stream of deltas).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/transcription_request.h"

namespace gemmad::api {

// The English name of the translation target: `to_language` when given, else "English".
// `to_language` must already be a valid code.
std::string TranslationTarget(const std::optional<std::string>& to_language);

// The user message text that follows the audio. `language` (a valid code or unset) names the
// spoken language; without it the prompt leaves the language out. A non-empty `prompt` is
// appended as "\n\nContext: <prompt>".
std::string SpeechInstruction(SpeechTask task, const std::optional<std::string>& language,
                              const std::optional<std::string>& to_language, std::string_view prompt);

// The translation in `output`: the text after the last line that starts with "<target>: ",
// trimmed; the whole output trimmed when there is no such line.
std::string ExtractTranslation(std::string_view output, std::string_view target);

// ExtractTranslation for a stream: Push returns the text that may be sent now (nothing until
// a "<target>: " line starts, then what follows it, holding back trailing whitespace); Finish
// returns the rest (the whole trimmed output when no such line came). A stream cannot take text
// back, so it follows the first such line where ExtractTranslation takes the last.
class TranslationStream {
 public:
  explicit TranslationStream(std::string_view target);
  std::string Push(std::string_view delta);
  std::string Finish();

 private:
  std::string marker_;
  std::string all_;
  std::optional<size_t> start_;  // where the translation begins in all_, once the marker came
  size_t sent_ = 0;              // bytes of all_ sent (from *start_)
};

}  // namespace gemmad::api
