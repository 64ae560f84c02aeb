// TensorStore implementation: single-file and index-driven sharded checkpoints.
#include "io/tensor_store.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/files.h"
#include "io/progress_bar.h"
#include "io/safetensors_index.h"

namespace gemmad::io {

Status TensorStore::AddFile(std::unique_ptr<SafetensorsFile> file) {
  for (const auto& info : file->tensors()) {
    auto [it, inserted] = by_name_.emplace(info.name, StoredTensor{&info, file.get()});
    if (!inserted) {
      return DataLossError(fmt::format("{}: tensor '{}' is also stored in {}", file->path(), info.name,
                                       it->second.file->path()));
    }
  }
  files_.push_back(std::move(file));
  return OkStatus();
}

void TensorStore::Finalize() {
  names_.clear();
  for (const auto& [name, t] : by_name_) names_.emplace_back(name);
  std::sort(names_.begin(), names_.end());
}

Result<TensorStore> TensorStore::OpenFiles(const std::vector<std::string>& paths, bool show_progress) {
  TensorStore store;
  ProgressBar bar("Loading safetensors checkpoint shards", paths.size(), show_progress);
  for (const auto& p : paths) {
    GEMMAD_ASSIGN_OR_RETURN(SafetensorsFile f, SafetensorsFile::Open(p));
    GEMMAD_RETURN_IF_ERROR(store.AddFile(std::make_unique<SafetensorsFile>(std::move(f))));
    bar.Advance(1);
  }
  store.Finalize();
  return store;
}

Result<TensorStore> TensorStore::OpenDirectory(const std::string& dir, bool show_progress) {
  if (!IsDirectory(dir)) return NotFoundError(fmt::format("{}: not a directory", dir));
  std::string single = JoinPath(dir, kSafetensorsSingleName);
  if (FileExists(single)) return OpenFiles({single}, show_progress);
  std::string index_path = JoinPath(dir, kSafetensorsIndexName);
  if (!FileExists(index_path)) {
    return NotFoundError(fmt::format("{}: no {} or {} (not a safetensors checkpoint)", dir, kSafetensorsSingleName,
                                     kSafetensorsIndexName));
  }
  GEMMAD_ASSIGN_OR_RETURN(std::string text, ReadFileToString(index_path));
  GEMMAD_ASSIGN_OR_RETURN(SafetensorsIndex index, ParseSafetensorsIndex(text, index_path));
  for (const auto& shard : index.shards) {
    std::string p = JoinPath(dir, shard);
    if (!FileExists(p)) {
      return NotFoundError(fmt::format("{}: shard named by {} does not exist", p, kSafetensorsIndexName));
    }
  }
  std::vector<std::string> paths;
  for (const auto& shard : index.shards) paths.push_back(JoinPath(dir, shard));
  GEMMAD_ASSIGN_OR_RETURN(TensorStore store, OpenFiles(paths, show_progress));
  store.index_path_ = index_path;
  // The shards must hold exactly what the index says.
  for (const auto& [name, shard] : index.weight_map) {
    const StoredTensor* t = store.Find(name);
    std::string expected = JoinPath(dir, shard);
    if (t == nullptr) {
      return DataLossError(fmt::format("{}: tensor '{}' listed in {} is missing", expected, name, kSafetensorsIndexName));
    }
    if (t->file->path() != expected) {
      return DataLossError(fmt::format("{}: tensor '{}' is stored here but {} assigns it to {}", t->file->path(),
                                       name, kSafetensorsIndexName, shard));
    }
  }
  for (const auto& name : store.names_) {
    if (index.weight_map.count(name) == 0) {
      return DataLossError(fmt::format("{}: tensor '{}' is not listed in {}", store.Find(name)->file->path(), name,
                                       kSafetensorsIndexName));
    }
  }
  return store;
}

const StoredTensor* TensorStore::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second;
}

Result<tensor::TensorView> TensorStore::View(std::string_view name) const {
  const StoredTensor* t = Find(name);
  if (t == nullptr) return NotFoundError(fmt::format("checkpoint has no tensor named '{}'", name));
  return t->file->View(*t->info);
}

uint64_t TensorStore::total_tensor_bytes() const {
  uint64_t total = 0;
  for (const auto& f : files_) total += f->header().data_bytes;
  return total;
}

}  // namespace gemmad::io
