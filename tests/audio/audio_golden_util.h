// Shared by the audio golden tests: the golden clips as the tower takes them and loading a golden
// model's tower.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/gemma4/audio_tower.h"
#include "model/gemma4/config.h"
#include "model/safetensors_source.h"
#include "vision_golden.h"
#include "vision_golden_util.h"

namespace gemmad::model::gemma4::testing {

struct GoldenClip {
  int64_t num_frames = 0, num_soft_tokens = 0;
  std::vector<float> features;  // [F, 16]
};

// The clips of inputs.json, in order.
inline Result<std::vector<GoldenClip>> LoadGoldenClips() {
  GEMMAD_ASSIGN_OR_RETURN(golden::GoldenFile f, golden::GoldenFile::Load(golden::AudioGoldenRoot() + "/inputs"));
  std::vector<GoldenClip> out;
  for (size_t i = 0; i < f.ListSize("clips"); ++i) {
    GoldenClip c;
    GEMMAD_ASSIGN_OR_RETURN(c.num_frames, f.ListInt("clips", i, "num_frames"));
    GEMMAD_ASSIGN_OR_RETURN(c.num_soft_tokens, f.ListInt("clips", i, "num_soft_tokens"));
    GEMMAD_ASSIGN_OR_RETURN(golden::VisionArray a, f.Array("clip" + std::to_string(i) + ".features"));
    c.features = std::move(a.values);
    out.push_back(std::move(c));
  }
  return out;
}

// "a", "b" or "b_gguf" (the mmproj GGUF of b: OpenGoldenTowerSource).
inline Result<std::shared_ptr<const WeightSource>> OpenGoldenAudioModel(const std::string& name) {
  return OpenGoldenTowerSource(golden::AudioGoldenRoot(), name);
}

// The AudioTower of golden model `name` ("a", "b"), projecting to its text hidden size.
inline Result<std::unique_ptr<AudioTower>> LoadGoldenAudioTower(const std::string& name) {
  GEMMAD_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSource> src, OpenGoldenAudioModel(name));
  GEMMAD_ASSIGN_OR_RETURN(Config c, ParseConfig(src->config_json(), src->config_label()));
  if (!c.audio) return NotFoundError(name + ": no audio_config");
  return AudioTower::Load(src, *c.audio, c.hidden_size);
}

}  // namespace gemmad::model::gemma4::testing
