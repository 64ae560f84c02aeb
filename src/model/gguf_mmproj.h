// GgufMmproj: an mmproj companion GGUF (spec gguf.md §6, llama.cpp's `convert_hf_to_gguf.py
// --mmproj`): Gemma 4's vision encoder (projector type gemma4v) and/or audio encoder (gemma4a),
// read as the Hugging Face vision_config / audio_config and tensors the towers load.
//
// The configuration comes from the clip.* metadata, from tensor shapes where the metadata is
// silent (head_dim from the q norm, KV heads from attn_k, the position table's size, the SSCP
// channels, the depthwise kernel, output_proj's width, whether linears are clipped, whether the
// vision tower standardizes), and for what neither holds, from the values llama.cpp's clip code
// hard-codes for Gemma 4 (vision: axial RoPE theta 100, pooling 3 unless
// clip.vision.projector.scale_factor says otherwise; audio: chunk 12, left context 13, right 0,
// logit cap 50, residual weight 0.5, eps 1e-6 whatever the file says — old converters wrote 1e-5).
// The vision budget default is transformers' (280 soft tokens; --mm-processor-kwargs changes it).
//
// Values the converter changed are restored: the patch embedding (stored as a conv kernel) is
// permuted back, the audio per_dim_scale (stored after softplus) is mapped back through the
// inverse softplus in double precision (the tower's softplus then gives the stored value within
// an ulp), the depthwise kernel gets its middle axis back, clip bounds are 0-d again. F32, F16
// and BF16 tensors are zero-copy views of the mapping; block-quantized ones are dequantized to F32.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/gguf_shards.h"
#include "model/weight_source.h"
#include "tensor/tensor_view.h"

namespace gemmad::model {

struct MmprojTensor {
  std::string hf_name;
  WeightInfo info;
  tensor::TensorView view;
};

struct GgufMmproj {
  std::unique_ptr<GgufShards> file;
  nlohmann::json vision_config;  // null: no vision encoder in the file
  nlohmann::json audio_config;   // null: no audio encoder
  int64_t projection_dim = 0;    // the text model's hidden size the encoders project to
  std::vector<MmprojTensor> tensors;
  std::vector<std::unique_ptr<float[]>> owned;
};

// Errors name the file: not an mmproj (general.architecture other than clip), a projector other
// than Gemma 4's (Gemma 3's is named), no encoder, a missing key or tensor, a tensor a Gemma 4
// mmproj does not have, normalization other than Gemma 4's (mean 0, std 1), two encoders that
// project to different widths, a vision out_scale other than 1.
Result<std::unique_ptr<GgufMmproj>> OpenGgufMmproj(const std::string& path);

}  // namespace gemmad::model
