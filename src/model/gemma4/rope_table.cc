// fp32 inverse-frequency tables.
#include "model/gemma4/rope_table.h"

#include <cmath>

namespace gemmad::model::gemma4 {

Result<std::vector<float>> RopeInvFreq(const RopeParams& p, int64_t head_dim) {
  const int64_t half = head_dim / 2;
  std::vector<float> f(static_cast<size_t>(half), 0.0f);
  const float base = static_cast<float>(p.rope_theta);
  auto freq = [&](int64_t i) {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(head_dim);
    return 1.0f / std::pow(base, exponent);
  };
  if (p.rope_type == "default") {
    for (int64_t i = 0; i < half; ++i) f[i] = freq(i);
  } else if (p.rope_type == "linear") {  // Gemma 3's full layers: every pair, / factor (fp32 division)
    const float factor = static_cast<float>(p.factor);
    for (int64_t i = 0; i < half; ++i) f[i] = freq(i) / factor;
  } else if (p.rope_type == "proportional") {
    const auto rotated = static_cast<int64_t>(std::floor(p.partial_rotary_factor * static_cast<double>(head_dim) / 2.0));
    const float factor = static_cast<float>(p.factor);
    for (int64_t i = 0; i < std::min(rotated, half); ++i) f[i] = freq(i) / factor;
  } else {
    return InvalidArgumentError("config.json: rope_parameters: rope_type '" + p.rope_type +
                                "' is not supported (expected default, linear or proportional)");
  }
  return f;
}

}  // namespace gemmad::model::gemma4
