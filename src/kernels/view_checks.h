// Internal helpers shared by the backends' ops: view validation (the ops.h contracts) and element
// loads of either weight dtype. Not part of the public kernels API.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

#include "base/check.h"
#include "tensor/fp8.h"
#include "tensor/half.h"
#include "tensor/tensor_view.h"

namespace gemmad::kernels::internal {

inline void CheckDType(const tensor::TensorView& v, tensor::DType want, const char* what) {
  GEMMAD_CHECK(v.data != nullptr, "{}: null data", what);
  GEMMAD_CHECK(v.dtype == want, "{}: dtype {} (want {})", what, tensor::DTypeName(v.dtype),
               tensor::DTypeName(want));
}

inline void CheckWeightDType(const tensor::TensorView& v, const char* what) {
  GEMMAD_CHECK(v.data != nullptr, "{}: null data", what);
  GEMMAD_CHECK(v.dtype == tensor::DType::kF32 || v.dtype == tensor::DType::kBF16,
               "{}: dtype {} (want F32 or BF16)", what, tensor::DTypeName(v.dtype));
}

// A paged KV cache: F32, BF16, or FP8 E4M3 (--kv-cache-dtype fp8: stored e4m3(x / s), read back as
// e4m3 · s; s = 1.0, vLLM's default, when the checkpoint brings no scales).
inline void CheckCacheDType(const tensor::TensorView& v, const char* what) {
  GEMMAD_CHECK(v.data != nullptr, "{}: null data", what);
  GEMMAD_CHECK(v.dtype == tensor::DType::kF32 || v.dtype == tensor::DType::kBF16 || v.dtype == tensor::DType::kF8E4M3,
               "{}: dtype {} (want F32, BF16 or F8_E4M3)", what, tensor::DTypeName(v.dtype));
}

// KvScales (ops.h) against the cache they scale: none unless it is FP8; 0, 1 or num_kv_heads each;
// finite and positive.
inline void CheckKvScales(const tensor::TensorView& cache, std::span<const float> k, std::span<const float> v,
                          const char* what) {
  if (k.empty() && v.empty()) return;
  GEMMAD_CHECK(cache.dtype == tensor::DType::kF8E4M3, "{}: KV scales for a {} cache", what,
               tensor::DTypeName(cache.dtype));
  for (std::span<const float> s : {k, v}) {
    GEMMAD_CHECK(s.size() <= 1 || static_cast<int64_t>(s.size()) == cache.shape[2],
                 "{}: {} KV scales for {} KV heads", what, s.size(), cache.shape[2]);
    for (float x : s) GEMMAD_CHECK(x > 0.0f && std::isfinite(x), "{}: KV scale {}", what, x);
  }
}

// KV head h's scale: 1 (none), the one value, or its own.
inline float KvScaleOf(std::span<const float> s, int64_t head) {
  return s.empty() ? 1.0f : s.size() == 1 ? s[0] : s[static_cast<size_t>(head)];
}

// A weight the quantized kernels can also read (Linear, EmbeddingGather, MoE experts).
inline void CheckMatrixDType(const tensor::TensorView& v, const char* what) {
  GEMMAD_CHECK(v.data != nullptr, "{}: null data", what);
  GEMMAD_CHECK(v.dtype == tensor::DType::kF32 || v.dtype == tensor::DType::kBF16 || tensor::IsBlockQuantized(v.dtype),
               "{}: dtype {} (want F32, BF16 or a block-quantized type)", what, tensor::DTypeName(v.dtype));
  GEMMAD_CHECK(!tensor::IsBlockQuantized(v.dtype) ||
                   (v.shape.rank > 0 && v.shape[v.shape.rank - 1] % tensor::BlockElements(v.dtype) == 0),
               "{}: {} rows of {} elements (want a multiple of {})", what, tensor::DTypeName(v.dtype),
               v.shape.rank > 0 ? v.shape[v.shape.rank - 1] : 0, tensor::BlockElements(v.dtype));
}

inline void CheckRank(const tensor::TensorView& v, int rank, const char* what) {
  GEMMAD_CHECK(v.shape.rank == rank, "{}: shape {} (want rank {})", what, v.shape.ToString(), rank);
}

// Copy's contract: equal dtypes, not block-quantized, both with data.
inline void CheckCopyable(const tensor::TensorView& src, const tensor::TensorView& dst, const char* what) {
  GEMMAD_CHECK(src.data != nullptr && dst.data != nullptr, "{}: null data", what);
  GEMMAD_CHECK(src.dtype == dst.dtype && !tensor::IsBlockQuantized(src.dtype), "{}: dtype {} -> {}", what,
               tensor::DTypeName(src.dtype), tensor::DTypeName(dst.dtype));
}

// Element i of an f32 or bf16 buffer as float.
inline float LoadAsFloat(const void* data, tensor::DType dtype, int64_t i) {
  if (dtype == tensor::DType::kBF16) return tensor::Bf16ToFloat(static_cast<const uint16_t*>(data)[i]);
  if (dtype == tensor::DType::kF8E4M3) return tensor::E4M3ToFloat(static_cast<const uint8_t*>(data)[i]);
  return static_cast<const float*>(data)[i];
}

}  // namespace gemmad::kernels::internal
