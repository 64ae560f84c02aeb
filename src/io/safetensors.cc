// SafetensorsFile implementation.
#include "io/safetensors.h"

#include <fmt/format.h>

namespace gemmad::io {

SafetensorsFile::SafetensorsFile(MappedFile file, SafetensorsHeader header)
    : file_(std::move(file)), header_(std::move(header)) {
  for (size_t i = 0; i < header_.tensors.size(); ++i) index_.emplace(header_.tensors[i].name, i);
}

Result<SafetensorsFile> SafetensorsFile::Open(const std::string& path) {
  GEMMAD_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  GEMMAD_ASSIGN_OR_RETURN(SafetensorsHeader header, ParseSafetensorsHeader(file.bytes(), file.size(), path));
  return SafetensorsFile(std::move(file), std::move(header));
}

const SafetensorsTensorInfo* SafetensorsFile::Find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &header_.tensors[it->second];
}

Result<tensor::TensorView> SafetensorsFile::View(std::string_view name) const {
  const SafetensorsTensorInfo* info = Find(name);
  if (info == nullptr) return NotFoundError(fmt::format("{}: no tensor named '{}'", path(), name));
  return View(*info);
}

Result<tensor::TensorView> SafetensorsFile::View(const SafetensorsTensorInfo& info) const {
  if (!info.dtype) {
    return UnimplementedError(fmt::format("{}: tensor '{}' has dtype {}, which gemmad cannot compute with", path(),
                                          info.name, info.dtype_name));
  }
  if (info.shape.size() > static_cast<size_t>(tensor::kMaxDims)) {
    return UnimplementedError(fmt::format("{}: tensor '{}' has rank {} (at most {} supported)", path(), info.name,
                                          info.shape.size(), tensor::kMaxDims));
  }
  tensor::TensorView v;
  v.data = const_cast<uint8_t*>(Data(info));  // read-only mapping; TensorView has no const flavour
  v.dtype = *info.dtype;
  v.shape.rank = static_cast<int>(info.shape.size());
  for (size_t i = 0; i < info.shape.size(); ++i) v.shape.dims[i] = info.shape[i];
  return v;
}

}  // namespace gemmad::io
