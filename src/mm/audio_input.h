// AudioFeatures: one audio clip after the Gemma 4 feature extractor (multimodal.md §4.1): the
// log-mel frames of its valid samples (16 kHz mono, at most 30 s), which the audio tower reads.
// It is the ItemData of audio items; the runner's audio encoder downcasts to it. Only valid
// frames are kept (vLLM unpads them the same way): the tower's output for a clip does not depend
// on batch padding. Immutable once built.
#pragma once

#include <cstdint>
#include <vector>

#include "mm/item.h"

namespace gemmad::mm {

struct AudioFeatures final : ItemData {
  int64_t num_mels = 0;    // feature_size (128 in the released checkpoints)
  int64_t num_frames = 0;  // F_valid = N >= 161 ? (N - 161) / 160 + 1 : 0 for N samples
  // [num_frames, num_mels] float32, row-major: ln(mel + 0.001) per 10 ms frame.
  std::vector<float> features;

  // Soft tokens = placeholder rows: ceil(F_valid / 4) (two stride-2 convolutions).
  int64_t num_soft_tokens() const { return (num_frames + 3) / 4; }
};

}  // namespace gemmad::mm
