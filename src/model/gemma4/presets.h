// Named model shapes for `gemmad make-test-model`: the tiny reference configs T1-T3
// (text-model.md §14), the tiny Gemma 3 (gemma3_text) G1 of tests/golden/gemma3, the end-to-end test model (full 262,144-token vocabulary, tiny layers, a
// tiny vision tower, the released media token ids) and the real E2B/E4B/26B-A4B/31B text shapes
// (text-model.md §10) with their real vision towers (multimodal.md §0).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/gemma4/config.h"
#include "model/gemma4/config_writer.h"

namespace gemmad::model::gemma4 {

struct Preset {
  std::string name;
  Config config;
  bool multimodal = false;      // default layout: released multimodal (true) or text-only save
  bool unused_kv_tensors = false;  // also write KV-shared layers' unused k/v/k_norm, as released files do
  bool with_tokenizer = false;  // copy the Gemma 4 tokenizer files (e2e)
  bool too_large = false;       // refuse without --force (26b, 31b)
  GenerationDefaults generation;
};

// "t1", "t2", "t3", "g1", "e2e", "e2b", "e4b", "26b", "31b".
Result<Preset> FindPreset(std::string_view name);
std::vector<std::string> PresetNames();

}  // namespace gemmad::model::gemma4
