// GgufShards: a GGUF model as one file or as a split set (spec gguf.md §1.8:
// "name-00001-of-00003.gguf"…, every shard a complete GGUF; the first carries the metadata, each
// `split.no` / `split.count`, the first `split.tensors.count`). Opened from the first shard (or a
// plain file); the tensors of every shard are found by name.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "io/gguf_file.h"
#include "model/weight_source.h"
#include "tensor/tensor_view.h"

namespace gemmad::model {

struct ShardTensor {
  const io::GgufTensorInfo* info = nullptr;
  const io::GgufFile* file = nullptr;
  std::string_view bytes() const { return file->TensorBytes(*info); }
};

// A stored tensor as a WeightSource describes it: the PyTorch-order shape (ggml's ne[] reversed;
// the bytes are not moved), the file's type name, byte size and file; the dtype is the caller's.
WeightInfo StoredWeightInfo(const ShardTensor& t);
// `dims` (at most 4, the reader's bound) as a tensor::Shape.
tensor::Shape ShapeOf(const std::vector<int64_t>& dims);

class GgufShards {
 public:
  // Errors name the file: a later shard given instead of the first, a missing or mismatched shard,
  // a tensor in two shards, a tensor count other than split.tensors.count.
  static Result<GgufShards> Open(const std::string& path);

  const std::string& path() const { return files_.front()->path(); }
  const io::GgufMetadata& metadata() const { return files_.front()->metadata(); }
  std::vector<std::string> paths() const;
  // Every tensor, shard by shard in file order.
  const std::vector<ShardTensor>& tensors() const { return tensors_; }
  const ShardTensor* FindTensor(std::string_view name) const;

 private:
  std::vector<std::unique_ptr<io::GgufFile>> files_;
  std::vector<ShardTensor> tensors_;
  std::map<std::string, size_t, std::less<>> index_;
};

}  // namespace gemmad::model
