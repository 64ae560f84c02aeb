// OpenWeightSource (see open_weight_source.h).
#include "model/open_weight_source.h"

#include <fmt/format.h>

#include <fstream>

#include "base/files.h"
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

Result<std::unique_ptr<WeightSource>> OpenWeightSource(const std::string& path, bool show_progress) {
  if (IsGgufPath(path)) return OpenGgufSource(path);
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
