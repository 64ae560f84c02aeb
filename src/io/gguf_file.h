// GGUF v2/v3 container reader (spec gguf.md §1): header, metadata records, tensor infos, alignment
// and the data section. ParseGguf treats the bytes as untrusted: every count and length is checked
// against the bytes that remain before anything is allocated, and after it succeeds every tensor's
// bytes lie inside the file, aligned and without overlap. Errors start with the label (the path):
// "<label>: tensor 'x': offset 3 is not a multiple of the alignment 32".
// Shapes stay in ggml order: ne[0] is the innermost (contiguous) dimension, i.e. a PyTorch shape
// reversed (an nn.Linear weight [out, in] has ne = {in, out}).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "io/gguf_metadata.h"
#include "io/gguf_types.h"
#include "io/mmap_file.h"

namespace gemmad::io {

inline constexpr uint32_t kGgufDefaultAlignment = 32;
inline constexpr uint32_t kGgufMaxDims = 4;
inline constexpr size_t kGgufMaxTensorName = 63;    // GGML_MAX_NAME - 1
inline constexpr uint64_t kGgufMaxElements = 1ull << 30;  // string bytes / array elements (ggml's cap)
inline constexpr int kGgufMaxArrayDepth = 4;        // nested arrays (ggml itself allows none)

struct GgufTensorInfo {
  std::string name;
  std::vector<int64_t> ne;    // ggml order, 1..4 dims: ne[0] innermost
  const GgmlTypeInfo* type = nullptr;
  uint64_t offset = 0;        // relative to the data section; a multiple of the alignment
  uint64_t size_bytes = 0;    // (ne[0] / block) * type_size * ne[1] * ne[2] * ne[3]

  int64_t num_elements() const;
};

struct GgufHeader {
  uint32_t version = 0;        // 2 or 3
  uint32_t alignment = kGgufDefaultAlignment;
  uint64_t data_offset = 0;    // where the data section starts in the file
  GgufMetadata metadata;
  std::vector<GgufTensorInfo> tensors;  // file order
};

// Parses a whole GGUF file held in `file`.
Result<GgufHeader> ParseGguf(std::string_view file, std::string_view label);

// A memory-mapped GGUF file with its parsed header. Movable, not copyable.
class GgufFile {
 public:
  static Result<GgufFile> Open(const std::string& path);

  const std::string& path() const { return file_.path(); }
  const GgufHeader& header() const { return header_; }
  const GgufMetadata& metadata() const { return header_.metadata; }
  const std::vector<GgufTensorInfo>& tensors() const { return header_.tensors; }
  // The tensor with this name, or nullptr.
  const GgufTensorInfo* FindTensor(std::string_view name) const;
  // The bytes of a tensor of this file (inside the mapping by construction).
  std::string_view TensorBytes(const GgufTensorInfo& info) const;

 private:
  GgufFile(MappedFile file, GgufHeader header) : file_(std::move(file)), header_(std::move(header)) {}
  MappedFile file_;
  GgufHeader header_;
};

}  // namespace gemmad::io
