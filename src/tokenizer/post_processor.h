// Post-processors of tokenizer.json (TemplateProcessing, BertProcessing, RobertaProcessing,
// ByteLevel, Sequence): what "add_special_tokens" adds around a single sequence.
// Invariant: immutable, thread-safe; with add_special_tokens=false the ids are unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"

namespace gemmad::tokenizer {

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  virtual void Process(std::vector<int32_t>* ids, bool add_special_tokens) const = 0;
  // Ids placed before / after the sequence when special tokens are added.
  virtual void Surround(std::vector<int32_t>* before, std::vector<int32_t>* after) const = 0;
};

Result<std::unique_ptr<PostProcessor>> ParsePostProcessor(const nlohmann::json& j);

}  // namespace gemmad::tokenizer
