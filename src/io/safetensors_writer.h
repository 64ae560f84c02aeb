// SafetensorsWriter: writes one .safetensors file in the layout the reference Python library
// produces (tensors ordered by dtype width then name, `__metadata__` first, header padded with
// spaces to a multiple of 8 so every tensor is aligned). Tensor bytes are streamed from callbacks,
// so a multi-GB file never has to be held in memory. The file appears atomically (temp + rename).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::io {

// Destination of a tensor's bytes; Write may be called any number of times.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Status Write(std::string_view bytes) = 0;
};

// Produces exactly the tensor's byte size into the sink.
using TensorFill = std::function<Status(ByteSink& sink)>;

struct TensorToWrite {
  std::string name;
  std::string dtype_name;       // safetensors spelling, e.g. "BF16"
  std::vector<int64_t> shape;
  TensorFill fill;

  uint64_t size_bytes() const;  // from shape and dtype (whole bytes)
};

class SafetensorsWriter {
 public:
  void SetMetadata(std::string key, std::string value) { metadata_[std::move(key)] = std::move(value); }
  // Adds a tensor; names must be unique and dtypes known (checked by Write*).
  void Add(TensorToWrite t) { tensors_.push_back(std::move(t)); }
  // Convenience: a tensor whose bytes are already in memory.
  void AddBytes(std::string name, std::string dtype_name, std::vector<int64_t> shape, std::string bytes);

  // The header JSON (unpadded) and the tensor order the file will use.
  Result<std::string> HeaderJson() const;
  // Writes the file atomically; `on_bytes` (optional) is told how many tensor bytes were written.
  Status WriteFile(const std::string& path, const std::function<void(uint64_t)>& on_bytes = {}) const;
  // The whole file in memory (tests, fuzz seeds).
  Result<std::string> WriteToString() const;
  uint64_t total_tensor_bytes() const;

 private:
  Result<std::vector<const TensorToWrite*>> Ordered() const;
  Status WriteTo(ByteSink& sink, const std::function<void(uint64_t)>& on_bytes) const;

  std::map<std::string, std::string> metadata_;
  std::vector<TensorToWrite> tensors_;
};

}  // namespace gemmad::io
