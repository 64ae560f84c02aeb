// OpenWeightSource (see open_weight_source.h).
#include "model/open_weight_source.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "base/files.h"
#include "base/log.h"
#include "io/hf_gguf.h"
#include "model/ct_source.h"
#include "model/gguf_source.h"
#include "model/safetensors_source.h"

namespace gemmad::model {

bool IsGgufPath(const std::string& path) {
  if (IsDirectory(path) || !FileExists(path)) return false;
  if (path.ends_with(".gguf")) return true;
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && std::string_view(magic, 4) == "GGUF";
}

Result<std::string> FindMmproj(const std::string& gguf_path, const MmprojChoice& choice) {
  if (choice.disabled) return std::string();
  if (!choice.path.empty()) {
    if (!FileExists(choice.path) || IsDirectory(choice.path)) return NotFoundError("--mmproj " + choice.path + ": no such file");
    return choice.path;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::path(gguf_path).parent_path();
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) || it->is_symlink(ec)) names.push_back(it->path().filename().string());
  }
  const std::string self = fs::path(gguf_path).filename().string();
  if (auto name = io::PickMmprojName(std::move(names), self)) return (dir / *name).string();
  return std::string();
}

Result<std::unique_ptr<WeightSource>> OpenWeightSource(const std::string& path, bool show_progress,
                                                       const MmprojChoice& mmproj) {
  if (IsGgufPath(path)) {
    GgufSourceOptions options;
    GEMMAD_ASSIGN_OR_RETURN(options.mmproj, FindMmproj(path, mmproj));
    options.mmproj_found = mmproj.path.empty();
    if (options.mmproj_found && !options.mmproj.empty()) {
      GEMMAD_LOG_INFO("{}: reading the encoders of {}, found beside it (--mmproj names another, --no-mmproj none)", path,
                      options.mmproj);
    }
    return OpenGgufSource(path, options);
  }
  if (!mmproj.path.empty()) {
    return InvalidArgumentError(fmt::format("--mmproj {}: only a GGUF model reads an mmproj companion, and {} is not one",
                                            mmproj.path, path));
  }
  if (!IsDirectory(path)) {
    return NotFoundError(path + ": neither a model directory nor a GGUF file");
  }
  GEMMAD_ASSIGN_OR_RETURN(std::unique_ptr<WeightSource> dir, OpenSafetensorsDir(path, show_progress));
  GEMMAD_ASSIGN_OR_RETURN(std::optional<std::string> qc, FindQuantizationConfig(dir->config_json(), dir->config_label()));
  if (!qc) return dir;
  const std::string method = QuantizationMethodOf(*qc);
  if (method != "compressed-tensors") {
    return InvalidArgumentError(fmt::format("{}: quantization method \"{}\" is not supported (gemmad reads "
                                            "compressed-tensors checkpoints and GGUF files)",
                                            dir->config_label(), method));
  }
  return OpenCtSource(std::move(dir), *qc);
}

}  // namespace gemmad::model
