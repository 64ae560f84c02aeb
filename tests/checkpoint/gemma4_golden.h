// Test-side access to the Gemma 4 goldens written by scripts/golden/make_gemma4_goldens.py
// (tests/golden/gemma4/<model>/golden_<dtype>.{json,bin}; format in docs/checkpoints-and-goldens.md)
// and the Gemma 3 golden G1 of scripts/golden/make_gemma3_goldens.py (tests/golden/gemma3/g1, the
// same format).
// Link `gemma4_golden`. Arrays come back as f32 (bf16 goldens are widened exactly).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::golden {

struct GoldenArray {
  std::vector<int64_t> shape;
  std::vector<float> values;  // row-major
  int64_t rows() const { return shape.empty() ? 0 : shape[0]; }
};

struct GoldenPrompt {
  std::string name;                 // "p24", "p61"
  std::vector<int64_t> token_ids;   // the prompt
  std::vector<int64_t> greedy_ids;  // 32 greedy tokens after the prompt
  bool has_hidden_states = false;
  bool greedy_matches_generate = true;  // false only for some bf16 near-ties
  std::vector<double> greedy_margins;   // top-1 minus top-2 logit before each greedy token
};

// The generator (make_gemma4_goldens.py, check_greedy) refuses degenerate greedy continuations; the
// tests check the committed ones the same way: at least kMinDistinctGreedyIds distinct ids of 32,
// and no cycle of length <= 2 in the last 16.
inline constexpr int kMinDistinctGreedyIds = 16;
int DistinctIds(const std::vector<int64_t>& ids);
// The shortest period p in 1..max_period with which the last `tail` ids repeat, else 0.
int ShortestTailCycle(const std::vector<int64_t>& ids, int tail = 16, int max_period = 2);

class Gemma4Golden {
 public:
  // model: "t1" | "t2" | "t3" (Gemma 4) or "g1" (Gemma 3); dtype: "f32" | "bf16".
  static Result<Gemma4Golden> Load(std::string_view model, std::string_view dtype);

  const std::string& model() const { return model_; }
  const std::string& dtype() const { return dtype_; }
  const std::vector<GoldenPrompt>& prompts() const { return prompts_; }
  int64_t num_hidden_layers() const { return num_hidden_layers_; }
  int64_t hidden_size() const { return hidden_size_; }
  int64_t vocab_size() const { return vocab_size_; }

  // "<prompt>.prefill_logits" [T, V]; "<prompt>.decode_logits" [T, V] (prefill 5, then one token
  // per step); "<prompt>.hidden_states" [L + 1, T, H] (HF output_hidden_states; entry L final-normed).
  Result<GoldenArray> Array(std::string_view key) const;
  std::vector<std::string> ArrayKeys() const;

  // The HF checkpoint the goldens were computed from. f32: GoldenModelDir(model); bf16: the
  // committed <model>/bf16 if present, else rebuilt once under the build directory from the f32
  // checkpoint and checked against the sha256 of the transformers-saved files.
  Result<std::string> CheckpointDir() const;

 private:
  bool MatchesRecordedHashes(const std::string& dir) const;
  struct ArrayInfo {
    std::string dtype;
    std::vector<int64_t> shape;
    uint64_t offset = 0, bytes = 0;
  };
  std::string model_, dtype_, data_path_;
  std::vector<GoldenPrompt> prompts_;
  std::map<std::string, ArrayInfo, std::less<>> arrays_;
  std::map<std::string, std::string> bf16_sha256_;
  bool bf16_committed_ = false;
  int64_t num_hidden_layers_ = 0, hidden_size_ = 0, vocab_size_ = 0;
};

// <source>/tests/golden/gemma4.
std::string Gemma4GoldenRoot();
// <source>/tests/golden/gemma3.
std::string Gemma3GoldenRoot();
// The directory of a golden model: Gemma3GoldenRoot()/g1 for "g1", else Gemma4GoldenRoot()/<model>.
std::string GoldenModelDir(std::string_view model);

// Writes a bf16 copy of the f32 HF checkpoint `src_dir` into `dst_dir` exactly as transformers'
// `.to(torch.bfloat16)` + save_pretrained would (round-to-nearest-even, same file layout, config
// dtype "bfloat16").
Status ConvertCheckpointToBf16(const std::string& src_dir, const std::string& dst_dir);

}  // namespace gemmad::golden
