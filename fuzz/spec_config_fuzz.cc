// Fuzz target: `--speculative-config` JSON (spec/speculative_config.h) and a Gemma 4 assistant's
// config.json (model/gemma4/assistant_config.h), from the same bytes. Must never crash, hang or
// abort; an accepted speculative config has 1..64 tokens and, for ngram, 1 <= min <= max; an
// accepted assistant config has a positive backbone size and, with centroid masking, clusters
// that divide the vocabulary.
// gemmad-fuzz-libs: gemmad_spec gemmad_model
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/gemma4/assistant_config.h"
#include "spec/speculative_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) {
    auto c = gemmad::spec::ParseSpeculativeConfig(j);
    if (c.ok()) {
      if (c->num_speculative_tokens < 1 || c->num_speculative_tokens > 64) std::abort();
      if (c->method == gemmad::spec::SpecMethod::kNgram &&
          (c->prompt_lookup_min < 1 || c->prompt_lookup_min > c->prompt_lookup_max)) {
        std::abort();
      }
    }
  }
  auto a = gemmad::model::gemma4::ParseAssistantConfig(text, "config.json");
  if (a.ok()) {
    if (a->backbone_hidden_size <= 0) std::abort();
    if (a->use_ordered_embeddings && (a->num_centroids <= 0 || a->text.vocab_size % a->num_centroids != 0)) std::abort();
  }
  return 0;
}
