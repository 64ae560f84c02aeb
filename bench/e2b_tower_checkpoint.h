// The benches of the E2B towers (vision_bench.cc, audio_bench.cc): the E2B preset with one tower
// kept and a small text part of the E2B hidden size, as a random f32 checkpoint written once
// under $TMPDIR (GEMMAD_BENCH_DIR to choose). Aborts on failure (a bench has no caller to tell).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "base/files.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "model/safetensors_source.h"

namespace gemmad::bench {

struct TowerCheckpoint {
  model::gemma4::Config config;
  std::shared_ptr<const model::WeightSource> source;
};

enum class Tower { kVision, kAudio };

inline TowerCheckpoint E2bTowerCheckpoint(Tower keep, const std::string& dir_name) {
  namespace g4 = model::gemma4;
  auto preset = g4::FindPreset("e2b");
  if (!preset.ok()) std::abort();
  g4::Config c = preset->config;
  c.vocab_size = c.vocab_size_per_layer_input = 512;
  c.num_hidden_layers = 2, c.layer_types = {g4::LayerType::kSliding, g4::LayerType::kFull};
  c.num_kv_shared_layers = 0, c.intermediate_size = 64, c.use_double_wide_mlp = false;
  if (keep == Tower::kVision) c.audio.reset();
  if (keep == Tower::kAudio) c.vision.reset();
  const char* env = std::getenv("GEMMAD_BENCH_DIR");
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = env ? env : std::string(tmp ? tmp : "/tmp") + "/" + dir_name;
  if (!FileExists(dir + "/model.safetensors")) {
    g4::RandomCheckpointOptions o;
    o.dtype = tensor::DType::kF32;
    o.multimodal = true;
    o.seed = 1;
    Status s = g4::WriteRandomCheckpoint(dir, c, o);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      std::abort();
    }
  }
  auto src = model::OpenSafetensorsDir(dir);
  if (!src.ok()) {
    std::fprintf(stderr, "%s\n", src.status().ToString().c_str());
    std::abort();
  }
  return {c, std::shared_ptr<const model::WeightSource>(std::move(src).value())};
}

}  // namespace gemmad::bench
