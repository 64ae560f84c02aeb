// Test-side access to the Gemma 4 vision and audio goldens (tests/golden/gemma4_{vision,audio},
// written by scripts/golden/make_gemma4_{vision,audio}_goldens.py; format "gemmad-golden-v1", documented in
// docs/checkpoints-and-goldens.md): a JSON index plus one raw little-endian data file.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::golden {

struct VisionArray {
  std::vector<int64_t> shape;
  std::vector<float> values;  // f32 / bf16 arrays (bf16 widened exactly)
  std::vector<int64_t> ints;  // i64 arrays
  int64_t rows() const { return shape.empty() ? 0 : shape[0]; }
  int64_t cols() const { return shape.size() < 2 ? 1 : shape.back(); }
};

// One golden index + data file.
class GoldenFile {
 public:
  // `stem_path` without extension: <stem>.json names its data file.
  static Result<GoldenFile> Load(const std::string& stem_path);

  bool Has(std::string_view key) const { return arrays_.count(std::string(key)) != 0; }
  Result<VisionArray> Array(std::string_view key) const;
  // A top-level field of the index as JSON text ("null" when absent).
  std::string Field(std::string_view key) const;
  // Integer fields of images[i] in inputs.json (grid_h, grid_w, num_soft_tokens, num_patches).
  Result<int64_t> ImageInt(size_t image, std::string_view key) const { return ListInt("images", image, key); }
  size_t num_images() const { return ListSize("images"); }
  // The same for any top-level list of objects (the audio goldens' "clips").
  Result<int64_t> ListInt(std::string_view list, size_t i, std::string_view key) const;
  size_t ListSize(std::string_view list) const;

 private:
  struct Info {
    std::string dtype;
    std::vector<int64_t> shape;
    uint64_t offset = 0, bytes = 0;
  };
  std::string data_path_;
  std::map<std::string, Info, std::less<>> arrays_;
  std::shared_ptr<const std::string> index_text_;
};

// <source>/tests/golden/gemma4_vision and <source>/tests/golden/gemma4_audio.
std::string VisionGoldenRoot();
std::string AudioGoldenRoot();

}  // namespace gemmad::golden
