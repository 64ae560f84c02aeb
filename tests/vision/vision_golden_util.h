// Shared by the vision golden tests: the golden inputs as the tower takes them, loading a golden
// model's tower, and the row-relative error measure.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/gemma4/config.h"
#include "model/gemma4/vision_tower.h"
#include "model/gguf_source.h"
#include "model/safetensors_source.h"
#include "vision_golden.h"

namespace gemmad::model::gemma4::testing {

// Tolerances of the golden comparisons, as row-relative errors (RowRelativeError). Measured with
// the transformers 5.25.0 goldens: per layer up to 1.0e-5 (CPU backend, AVX-512 table; its
// attention accumulates P·V over the keys in fp32) / 8.6e-6 (reference backend, double), both at
// model a's second layer; final outputs (pooled, standardized, projected) up to 4.1e-6 / 2.6e-6.
// That is the size of transformers' own fp32 rounding: its fp32 run differs from the same model
// in fp64 by up to 7.1e-6 per layer and 2.9e-6 at the end. A wrong block lands far outside (x and
// y swapped in the 2-D RoPE, a missing output clamp or attention scale 1/sqrt(dh) instead of 1
// each fail every model they touch).
inline constexpr double kVisionLayerTol = 3e-5;
inline constexpr double kVisionFinalTol = 2e-5;

struct GoldenImage {
  int64_t grid_h = 0, grid_w = 0, num_soft_tokens = 0;
  std::vector<float> pixels;      // [P, 3 p²]
  std::vector<int32_t> positions;  // [P, 2]
  int64_t num_patches() const { return grid_h * grid_w; }
};

// The images of inputs.json, in order.
inline Result<std::vector<GoldenImage>> LoadGoldenImages() {
  GEMMAD_ASSIGN_OR_RETURN(golden::GoldenFile f, golden::GoldenFile::Load(golden::VisionGoldenRoot() + "/inputs"));
  std::vector<GoldenImage> out;
  for (size_t i = 0; i < f.num_images(); ++i) {
    GoldenImage im;
    GEMMAD_ASSIGN_OR_RETURN(im.grid_h, f.ImageInt(i, "grid_h"));
    GEMMAD_ASSIGN_OR_RETURN(im.grid_w, f.ImageInt(i, "grid_w"));
    GEMMAD_ASSIGN_OR_RETURN(im.num_soft_tokens, f.ImageInt(i, "num_soft_tokens"));
    const std::string p = "img" + std::to_string(i) + ".";
    GEMMAD_ASSIGN_OR_RETURN(golden::VisionArray px, f.Array(p + "pixel_values"));
    GEMMAD_ASSIGN_OR_RETURN(golden::VisionArray pos, f.Array(p + "position_ids"));
    im.pixels = std::move(px.values);
    im.positions.assign(pos.ints.begin(), pos.ints.end());
    out.push_back(std::move(im));
  }
  return out;
}

// A golden tower's test name: its checkpoint's ("a") or, with "_gguf" ("a_gguf"), the same tower as
// the mmproj GGUF llama.cpp's converter made of it (tests/golden/gguf_mmproj,
// scripts/golden/make_gguf_mmproj_goldens.py), read beside the 64-wide text GGUF there.
inline constexpr std::string_view kGgufSuffix = "_gguf";
inline std::string GoldenModelDir(const std::string& name) {
  return name.ends_with(kGgufSuffix) ? name.substr(0, name.size() - kGgufSuffix.size()) : name;
}

// The weight source of golden tower `name` under `root` (see GoldenModelDir).
inline Result<std::shared_ptr<const WeightSource>> OpenGoldenTowerSource(const std::string& root,
                                                                         const std::string& name) {
  if (!name.ends_with(kGgufSuffix)) {
    GEMMAD_ASSIGN_OR_RETURN(std::unique_ptr<WeightSource> src, OpenSafetensorsDir(root + "/" + name));
    return std::shared_ptr<const WeightSource>(std::move(src));
  }
  const std::string dir = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gguf_mmproj/";
  GgufSourceOptions options;
  // Vision a and audio b share one mmproj; vision c has its own.
  options.mmproj = dir + (GoldenModelDir(name) == "c" ? "mmproj-gemma4_vision_c-f32.gguf" : "mmproj-gemma4_towers-f32.gguf");
  GEMMAD_ASSIGN_OR_RETURN(std::unique_ptr<WeightSource> src, OpenGgufSource(dir + "gemma4_mm_f32.gguf", options));
  return std::shared_ptr<const WeightSource>(std::move(src));
}

// The VisionTower of golden model `name` ("a", "b", "c", "a_gguf", "c_gguf"), projecting to its
// text hidden size.
inline Result<std::unique_ptr<VisionTower>> LoadGoldenTower(const std::string& name) {
  GEMMAD_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSource> shared,
                          OpenGoldenTowerSource(golden::VisionGoldenRoot(), name));
  GEMMAD_ASSIGN_OR_RETURN(Config c, ParseConfig(shared->config_json(), shared->config_label()));
  if (!c.vision) return NotFoundError(name + ": no vision_config");
  return VisionTower::Load(shared, *c.vision, c.hidden_size);
}

// max over rows of (max |got − want| in the row) / (max |want| in the row); +inf on a size
// mismatch or a NaN.
inline double RowRelativeError(const std::vector<float>& got, const std::vector<float>& want, int64_t cols) {
  if (got.size() != want.size() || cols <= 0 || want.size() % static_cast<size_t>(cols) != 0) return INFINITY;
  double worst = 0;
  for (size_t r = 0; r < want.size() / static_cast<size_t>(cols); ++r) {
    double err = 0, scale = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const size_t i = r * static_cast<size_t>(cols) + static_cast<size_t>(c);
      const double d = std::fabs(static_cast<double>(got[i]) - want[i]);
      if (std::isnan(d)) return INFINITY;
      err = std::max(err, d);
      scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
    }
    worst = std::max(worst, err / std::max(scale, 1e-30));
  }
  return worst;
}

}  // namespace gemmad::model::gemma4::testing
