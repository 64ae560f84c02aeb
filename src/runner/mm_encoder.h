// MultimodalEncoder: what the runner calls to turn one multimodal item's preprocessed data into
// the input embeddings of its placeholder rows (a vision or audio tower plus its projector, or a
// test double). The runner calls it on the engine thread, at most once per item content hash
// while a sequence holding that item lives (MultimodalInputs shares the result).
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "mm/item.h"

namespace gemmad::runner {

class MultimodalEncoder {
 public:
  virtual ~MultimodalEncoder() = default;
  virtual bool Supports(mm::Modality modality) const = 0;
  // [item.placeholder_length, hidden_size] floats, row-major, not scaled (the model inserts
  // them as they are).
  virtual Result<std::vector<float>> Encode(const mm::Item& item) = 0;
};

}  // namespace gemmad::runner
