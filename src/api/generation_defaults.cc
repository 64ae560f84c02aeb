// generation_config.json -> GenerationDefaults (vLLM ModelConfig.get_diff_sampling_param).
#include "api/generation_defaults.h"

#include <fmt/format.h>

#include "base/files.h"

namespace gemmad::api {
namespace {

using OJson = nlohmann::ordered_json;

// transformers GenerationConfig() defaults that to_diff_dict() drops.
bool IsTransformersDefault(const std::string& key, const OJson& v) {
  if (!v.is_number()) return false;
  double d = v.get<double>();
  if (key == "temperature" || key == "top_p" || key == "repetition_penalty") return d == 1.0;
  if (key == "top_k") return d == 50;
  return false;
}

Status ReadNumber(const OJson& config, const std::string& key, std::optional<double>* out) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null() || IsTransformersDefault(key, *it)) return OkStatus();
  if (!it->is_number()) return InvalidArgumentError(fmt::format("generation config: '{}' must be a number", key));
  *out = it->get<double>();
  return OkStatus();
}

Status ReadInt(const OJson& config, const std::string& key, std::optional<int64_t>* out) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null() || IsTransformersDefault(key, *it)) return OkStatus();
  if (!it->is_number_integer()) {
    return InvalidArgumentError(fmt::format("generation config: '{}' must be an integer", key));
  }
  *out = it->get<int64_t>();
  return OkStatus();
}

Status ReadEosIds(const OJson& config, std::vector<int32_t>* out) {
  auto it = config.find("eos_token_id");
  if (it == config.end() || it->is_null()) return OkStatus();
  OJson ids = it->is_array() ? *it : OJson::array({*it});
  for (const OJson& id : ids) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX) {
      return InvalidArgumentError("generation config: 'eos_token_id' must be a token id or a list of them");
    }
    out->push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  return OkStatus();
}

}  // namespace

Result<GenerationDefaults> ParseGenerationDefaults(std::string_view text, bool use_sampling_defaults,
                                                   const OJson& overrides) {
  OJson config = OJson::object();
  if (!text.empty()) {
    config = OJson::parse(text, nullptr, /*allow_exceptions=*/false);
    if (config.is_discarded() || !config.is_object()) {
      return InvalidArgumentError("generation_config.json is not a JSON object");
    }
  }
  GenerationDefaults d;
  GEMMAD_RETURN_IF_ERROR(ReadEosIds(config, &d.eos_token_ids));
  if (!use_sampling_defaults) config = OJson::object();
  if (overrides.is_object()) {
    for (auto it = overrides.begin(); it != overrides.end(); ++it) config[it.key()] = it.value();
  }
  GEMMAD_RETURN_IF_ERROR(ReadNumber(config, "temperature", &d.temperature));
  GEMMAD_RETURN_IF_ERROR(ReadNumber(config, "top_p", &d.top_p));
  GEMMAD_RETURN_IF_ERROR(ReadNumber(config, "min_p", &d.min_p));
  GEMMAD_RETURN_IF_ERROR(ReadNumber(config, "repetition_penalty", &d.repetition_penalty));
  GEMMAD_RETURN_IF_ERROR(ReadInt(config, "top_k", &d.top_k));
  GEMMAD_RETURN_IF_ERROR(ReadInt(config, "max_new_tokens", &d.max_tokens));
  return d;
}

Result<GenerationDefaults> LoadGenerationDefaults(const std::string& model_dir, std::string_view mode,
                                                  const OJson& overrides) {
  std::string model_file = JoinPath(model_dir, "generation_config.json");
  std::string model_text;
  if (FileExists(model_file)) {
    GEMMAD_ASSIGN_OR_RETURN(model_text, ReadFileToString(model_file));
  }
  if (mode == "auto" || mode == "vllm") {
    auto d = ParseGenerationDefaults(model_text, mode == "auto", overrides);
    if (!d.ok()) return d.status().WithPrefix(model_file);
    return d;
  }
  std::string folder(mode);
  if (!IsDirectory(folder)) {
    return InvalidArgumentError(fmt::format("--generation-config {}: expected auto, vllm or a folder", mode));
  }
  std::string file = JoinPath(folder, "generation_config.json");
  std::string text;
  if (FileExists(file)) {
    GEMMAD_ASSIGN_OR_RETURN(text, ReadFileToString(file));
  }
  auto d = ParseGenerationDefaults(text, true, overrides);
  if (!d.ok()) return d.status().WithPrefix(file);
  return d;
}

}  // namespace gemmad::api
