// TensorStore: every tensor of a (possibly sharded) safetensors checkpoint, by name, each a
// zero-copy view into a memory-mapped file. Invariant: names are unique across all files and, for
// a sharded checkpoint, the shards hold exactly the tensors the index assigns to them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "io/safetensors.h"

namespace gemmad::io {

struct StoredTensor {
  const SafetensorsTensorInfo* info = nullptr;
  const SafetensorsFile* file = nullptr;
};

class TensorStore {
 public:
  // Opens <dir>/model.safetensors if present, else <dir>/model.safetensors.index.json and every
  // shard it names. `show_progress` draws a bar over the shards on stderr.
  static Result<TensorStore> OpenDirectory(const std::string& dir, bool show_progress = false);
  // Opens the given files as one checkpoint (no index).
  static Result<TensorStore> OpenFiles(const std::vector<std::string>& paths, bool show_progress = false);

  // nullptr when absent.
  const StoredTensor* Find(std::string_view name) const;
  Result<tensor::TensorView> View(std::string_view name) const;
  // All tensor names, sorted.
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<std::unique_ptr<SafetensorsFile>>& files() const { return files_; }
  uint64_t total_tensor_bytes() const;
  // The index file used, or empty for a single-file checkpoint.
  const std::string& index_path() const { return index_path_; }

 private:
  Status AddFile(std::unique_ptr<SafetensorsFile> file);
  void Finalize();

  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::unordered_map<std::string_view, StoredTensor> by_name_;
  std::vector<std::string> names_;
  std::string index_path_;
};

}  // namespace gemmad::io
