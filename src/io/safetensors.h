// SafetensorsFile: one memory-mapped .safetensors file with a validated header and zero-copy
// access to its tensors. Invariant: every tensor listed lies inside the mapping, so views handed
// out stay valid for the object's lifetime (the mapping is read-only: never write through them).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "io/mmap_file.h"
#include "io/safetensors_header.h"
#include "tensor/tensor_view.h"

namespace gemmad::io {

class SafetensorsFile {
 public:
  // Maps and validates `path`. Errors name the file and the problem (missing, truncated, bad
  // header, bad offsets).
  static Result<SafetensorsFile> Open(const std::string& path);

  const std::string& path() const { return file_.path(); }
  const SafetensorsHeader& header() const { return header_; }
  // In file order.
  const std::vector<SafetensorsTensorInfo>& tensors() const { return header_.tensors; }
  const std::map<std::string, std::string>& metadata() const { return header_.metadata; }
  size_t size_bytes() const { return file_.size(); }

  // nullptr when absent.
  const SafetensorsTensorInfo* Find(std::string_view name) const;
  // The tensor's bytes inside the mapping.
  const uint8_t* Data(const SafetensorsTensorInfo& info) const { return file_.data() + header_.data_offset + info.data_begin; }
  // A zero-copy view. Fails (naming file and tensor) when the tensor is absent, its dtype has no
  // tensor::DType, or its rank exceeds tensor::kMaxDims.
  Result<tensor::TensorView> View(std::string_view name) const;
  Result<tensor::TensorView> View(const SafetensorsTensorInfo& info) const;
  const MappedFile& mapped() const { return file_; }

 private:
  SafetensorsFile(MappedFile file, SafetensorsHeader header);
  MappedFile file_;
  SafetensorsHeader header_;
  std::unordered_map<std::string_view, size_t> index_;  // name -> position in header_.tensors
};

}  // namespace gemmad::io
