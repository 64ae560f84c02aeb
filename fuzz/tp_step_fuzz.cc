// Fuzz target: the tensor-parallel step message (model/gemma4/tp_step.h) a worker rank decodes.
// Must never crash, hang or allocate beyond the input's size; a message that decodes re-encodes to
// the same bytes.
// gemmad-fuzz-libs: gemmad_model
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "model/gemma4/tp_step.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  for (int64_t hidden : {1, 4}) {
    auto step = gemmad::model::gemma4::DecodeTpStep(bytes, hidden);
    if (!step.ok()) continue;
    const std::vector<uint8_t> again = step->stop ? gemmad::model::gemma4::EncodeTpStop()
                                                  : gemmad::model::gemma4::EncodeTpStep(*step, hidden);
    if (again != bytes) std::abort();
  }
  return 0;
}
