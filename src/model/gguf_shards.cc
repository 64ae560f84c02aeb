// GgufShards (see gguf_shards.h).
#include "model/gguf_shards.h"

#include <fmt/format.h>

#include <cstdlib>

namespace gemmad::model {
namespace {

// "<stem>-00001-of-00003.gguf" -> stem; nullopt when the name is not a first shard's.
std::optional<std::string> FirstShardStem(const std::string& path, int64_t count) {
  const std::string tail = fmt::format("-00001-of-{:05d}.gguf", count);
  if (!path.ends_with(tail)) return std::nullopt;
  return path.substr(0, path.size() - tail.size());
}

Result<int64_t> SplitKey(const io::GgufFile& f, std::string_view key) {
  auto v = f.metadata().GetI64(key);
  if (!v.ok()) return v.status().WithPrefix(f.path());
  return *v;
}

}  // namespace

Result<GgufShards> GgufShards::Open(const std::string& path) {
  GgufShards s;
  GEMMAD_ASSIGN_OR_RETURN(io::GgufFile first, io::GgufFile::Open(path));
  s.files_.push_back(std::make_unique<io::GgufFile>(std::move(first)));
  const io::GgufFile& f0 = *s.files_.front();
  if (f0.metadata().Has("split.count")) {
    GEMMAD_ASSIGN_OR_RETURN(int64_t count, SplitKey(f0, "split.count"));
    GEMMAD_ASSIGN_OR_RETURN(int64_t no, SplitKey(f0, "split.no"));
    if (count < 1 || count > 9999) {
      return InvalidArgumentError(fmt::format("{}: split.count {} is out of range", path, count));
    }
    if (no != 0) {
      return InvalidArgumentError(fmt::format("{}: shard {} of {} of a split GGUF; give the first shard "
                                              "(-00001-of-{:05d}.gguf)", path, no + 1, count, count));
    }
    if (count > 1) {
      const std::optional<std::string> stem = FirstShardStem(path, count);
      if (!stem) {
        return InvalidArgumentError(fmt::format("{}: the first of {} shards, but not named "
                                                "<name>-00001-of-{:05d}.gguf, so its siblings cannot be found",
                                                path, count, count));
      }
      for (int64_t k = 2; k <= count; ++k) {
        const std::string next = fmt::format("{}-{:05d}-of-{:05d}.gguf", *stem, k, count);
        GEMMAD_ASSIGN_OR_RETURN(io::GgufFile shard, io::GgufFile::Open(next));
        GEMMAD_ASSIGN_OR_RETURN(int64_t c, SplitKey(shard, "split.count"));
        GEMMAD_ASSIGN_OR_RETURN(int64_t n, SplitKey(shard, "split.no"));
        if (c != count || n != k - 1) {
          return DataLossError(fmt::format("{}: split.no {} of split.count {}, expected {} of {}", next, n, c, k - 1,
                                           count));
        }
        s.files_.push_back(std::make_unique<io::GgufFile>(std::move(shard)));
      }
    }
  }
  for (const auto& file : s.files_) {
    for (const io::GgufTensorInfo& t : file->tensors()) {
      if (!s.index_.emplace(t.name, s.tensors_.size()).second) {
        return DataLossError(fmt::format("{}: tensor '{}' is also in an earlier shard", file->path(), t.name));
      }
      s.tensors_.push_back({&t, file.get()});
    }
  }
  if (f0.metadata().Has("split.tensors.count")) {
    GEMMAD_ASSIGN_OR_RETURN(int64_t total, SplitKey(f0, "split.tensors.count"));
    if (total != static_cast<int64_t>(s.tensors_.size())) {
      return DataLossError(fmt::format("{}: split.tensors.count is {}, the shards hold {}", path, total,
                                       s.tensors_.size()));
    }
  }
  return s;
}

std::vector<std::string> GgufShards::paths() const {
  std::vector<std::string> out;
  for (const auto& f : files_) out.push_back(f->path());
  return out;
}

const ShardTensor* GgufShards::FindTensor(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

WeightInfo StoredWeightInfo(const ShardTensor& t) {
  WeightInfo info;
  info.shape.assign(t.info->ne.rbegin(), t.info->ne.rend());
  info.dtype_name = std::string(t.info->type->name);
  info.size_bytes = t.info->size_bytes;
  info.origin = t.file->path();
  return info;
}

tensor::Shape ShapeOf(const std::vector<int64_t>& dims) {
  tensor::Shape s;
  for (int64_t d : dims) s.dims[s.rank++] = d;
  return s;
}

}  // namespace gemmad::model
