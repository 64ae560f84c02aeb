// OpenWeightSource (see open_weight_source.h).
#include "model/open_weight_source.h"

#include <fstream>

#include "base/files.h"
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

Result<std::unique_ptr<WeightSource>> OpenWeightSource(const std::string& path, bool show_progress) {
  if (IsGgufPath(path)) return OpenGgufSource(path);
  if (!IsDirectory(path)) {
    return NotFoundError(path + ": neither a model directory nor a GGUF file");
  }
  return OpenSafetensorsDir(path, show_progress);
}

}  // namespace gemmad::model
