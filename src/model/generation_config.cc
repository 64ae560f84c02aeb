// generation_config.json parsing.
#include "model/generation_config.h"

#include <fmt/format.h>

#include "base/files.h"
#include "io/json_fields.h"

namespace gemmad::model {

Result<GenerationConfig> ParseGenerationConfig(std::string_view json_text, std::string_view label) {
  GEMMAD_ASSIGN_OR_RETURN(nlohmann::json doc, io::ParseJsonText(json_text, label));
  if (!doc.is_object()) return InvalidArgumentError(fmt::format("{}: not a JSON object", label));
  io::JsonFields f(doc, std::string(label));
  GenerationConfig g;
  g.from_file = true;
  GEMMAD_RETURN_IF_ERROR(f.IntOrIntList("eos_token_id", &g.eos_token_ids));
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("bos_token_id", &g.bos_token_id));
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("pad_token_id", &g.pad_token_id));
  if (f.Has("do_sample") && !f.IsNull("do_sample")) {
    bool v = false;
    GEMMAD_RETURN_IF_ERROR(f.Bool("do_sample", &v));
    g.do_sample = v;
  }
  GEMMAD_RETURN_IF_ERROR(f.DoubleOpt("temperature", &g.temperature));
  GEMMAD_RETURN_IF_ERROR(f.DoubleOpt("top_p", &g.top_p));
  GEMMAD_RETURN_IF_ERROR(f.DoubleOpt("min_p", &g.min_p));
  GEMMAD_RETURN_IF_ERROR(f.DoubleOpt("repetition_penalty", &g.repetition_penalty));
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("top_k", &g.top_k));
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("max_new_tokens", &g.max_new_tokens));
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("max_length", &g.max_length));
  if (g.temperature && *g.temperature < 0) return f.Error("temperature", "must not be negative");
  if (g.top_p && !(*g.top_p > 0 && *g.top_p <= 1)) return f.Error("top_p", "must be in (0, 1]");
  if (g.min_p && !(*g.min_p >= 0 && *g.min_p <= 1)) return f.Error("min_p", "must be in [0, 1]");
  if (g.top_k && *g.top_k < 0) return f.Error("top_k", "must not be negative");
  if (g.repetition_penalty && !(*g.repetition_penalty > 0)) return f.Error("repetition_penalty", "must be positive");
  for (int64_t id : g.eos_token_ids) {
    if (id < 0) return f.Error("eos_token_id", fmt::format("{} is not a token id", id));
  }
  return g;
}

Result<GenerationConfig> LoadGenerationConfig(const std::string& model_dir) {
  std::string path = JoinPath(model_dir, "generation_config.json");
  if (!FileExists(path)) return GenerationConfig{};
  GEMMAD_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseGenerationConfig(text, path);
}

}  // namespace gemmad::model
