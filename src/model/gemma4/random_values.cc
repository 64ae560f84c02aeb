// RandomValueStream (see random_values.h).
#include "model/gemma4/random_values.h"

#include <string_view>
#include <utility>

#include "model/gemma4/random_checkpoint.h"
#include "model/gemma4/tower_weight_spec.h"

namespace gemmad::model::gemma4 {
namespace {

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

// The name whose values a tensor gets: the vision tower's k_proj and v_proj, gate_proj and up_proj,
// and the audio tower's q_proj, k_proj and v_proj share their clip bounds, as the released
// checkpoints do (multimodal.md §3.1, §8.5).
std::string ValueName(const std::string& name) {
  if (!IsClipBound(name)) return name;
  std::string n = name;
  const bool audio = name.find("audio_tower.") != std::string::npos;
  const std::string_view shared = audio ? ".q_proj." : ".k_proj.";
  for (auto [from, to] : {std::pair<std::string_view, std::string_view>{".v_proj.", shared},
                          {audio ? ".k_proj." : ".up_proj.", audio ? shared : ".gate_proj."}}) {
    if (size_t p = n.find(from); p != std::string::npos) n.replace(p, from.size(), to);
  }
  return n;
}

}  // namespace

RandomValueStream::RandomValueStream(const std::string& name, const std::vector<int64_t>& shape, uint64_t seed)
    : rng_(seed ^ Fnv1a(ValueName(name))) {
  const ValueRecipe r = RecipeFor(name, shape);
  lo_ = static_cast<float>(r.kind == ValueRecipe::kUniform ? r.lo : -r.hi);
  span_ = static_cast<float>(r.hi) - lo_;
}

void RandomValueStream::Next(int64_t m, float* out) {
  for (int64_t i = 0; i < m; i += 2) {
    const uint64_t bits = rng_.Next();
    for (int64_t k = 0; k < 2 && i + k < m; ++k) {
      const float u = static_cast<float>((bits >> (32 * k + 8)) & 0xFFFFFF) * 0x1.0p-24f;  // [0, 1)
      out[i + k] = lo_ + span_ * u;
    }
  }
}

}  // namespace gemmad::model::gemma4
