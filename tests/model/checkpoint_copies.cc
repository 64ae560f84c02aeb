// Sharded and hub-cache copies of a checkpoint for loader tests.
#include "checkpoint_copies.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "io/safetensors_writer.h"

namespace gemmad::model::testing {
namespace fs = std::filesystem;

Status WriteShardedCopy(const std::string& src, const std::string& dst, int num_shards) {
  fs::create_directories(dst);
  for (const char* f : {"config.json", "generation_config.json"}) {
    if (fs::exists(fs::path(src) / f)) fs::copy_file(fs::path(src) / f, fs::path(dst) / f, fs::copy_options::overwrite_existing);
  }
  GEMMAD_ASSIGN_OR_RETURN(io::SafetensorsFile file, io::SafetensorsFile::Open((fs::path(src) / "model.safetensors").string()));
  std::vector<io::SafetensorsWriter> shards(static_cast<size_t>(num_shards));
  nlohmann::json weight_map = nlohmann::json::object();
  uint64_t total = 0;
  const auto& tensors = file.tensors();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    const size_t s = i * static_cast<size_t>(num_shards) / tensors.size();
    const char* p = reinterpret_cast<const char*>(file.Data(t));
    shards[s].AddBytes(t.name, t.dtype_name, t.shape, std::string(p, p + t.size_bytes()));
    char name[64];
    std::snprintf(name, sizeof(name), "model-%05zu-of-%05d.safetensors", s + 1, num_shards);
    weight_map[t.name] = name;
    total += t.size_bytes();
  }
  for (int s = 0; s < num_shards; ++s) {
    char name[64];
    std::snprintf(name, sizeof(name), "model-%05d-of-%05d.safetensors", s + 1, num_shards);
    GEMMAD_RETURN_IF_ERROR(shards[s].WriteFile((fs::path(dst) / name).string()));
  }
  nlohmann::json index = {{"metadata", {{"total_size", total}}}, {"weight_map", weight_map}};
  std::ofstream(fs::path(dst) / "model.safetensors.index.json") << index.dump(2);
  return OkStatus();
}

std::string WriteHubCacheCopy(const std::string& src, const std::string& hub, const std::string& org,
                              const std::string& name) {
  const std::string commit = "0123456789abcdef0123456789abcdef01234567";
  const fs::path repo = fs::path(hub) / ("models--" + org + "--" + name);
  fs::create_directories(repo / "blobs");
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "snapshots" / commit);
  int n = 0;
  for (const auto& e : fs::directory_iterator(src)) {
    if (!e.is_regular_file()) continue;
    const std::string blob = "blob" + std::to_string(n++);
    fs::copy_file(e.path(), repo / "blobs" / blob, fs::copy_options::overwrite_existing);
    fs::create_symlink(fs::path("..") / ".." / "blobs" / blob, repo / "snapshots" / commit / e.path().filename());
  }
  std::ofstream(repo / "refs" / "main") << commit;
  return commit;
}

}  // namespace gemmad::model::testing
