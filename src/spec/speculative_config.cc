// SpeculativeConfig parsing: vLLM's field validation, method inference and ngram defaults.
#include "spec/speculative_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace gemmad::spec {
namespace {

Status FieldError(std::string_view field, std::string_view what) {
  return InvalidArgumentError(fmt::format("1 validation error for SpeculativeConfig: {}: {}", field, what));
}

// vLLM's MTP model types: every one is a deprecated alias of "mtp".
constexpr std::array<std::string_view, 18> kMtpAliases = {
    "deepseek_mtp",       "mimo_mtp",          "mimo_v2_mtp",   "glm4_moe_mtp", "glm4_moe_lite_mtp",
    "glm_ocr_mtp",        "ernie_mtp",         "nemotron_h_mtp", "exaone_moe_mtp", "exaone4_5_mtp",
    "qwen3_next_mtp",     "qwen3_5_mtp",       "longcat_flash_mtp", "mtp",      "pangu_ultra_moe_mtp",
    "step3p5_mtp",        "hy_v3_mtp",         "gemma4_mtp"};
// Methods vLLM accepts that gemmad does not implement.
constexpr std::array<std::string_view, 11> kOtherMethods = {
    "gumiho", "medusa", "mlp_speculator", "draft_model", "suffix", "custom_class",
    "eagle",  "eagle3", "extract_hidden_states", "dflash", "ngram_gpu"};
// Keys that tune vLLM's GPU implementation; accepted, no effect here.
constexpr std::array<std::string_view, 9> kIgnoredKeys = {
    "enforce_eager", "disable_padded_drafter_batch", "use_local_argmax_reduction", "attention_backend",
    "moe_backend",   "code_revision",                "parallel_drafting",          "draft_load_config",
    "max_model_len"};

template <size_t N>
bool OneOf(const std::array<std::string_view, N>& set, std::string_view v) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

Result<std::optional<int64_t>> OptInt(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<int64_t>();
  if (!it->is_number_integer()) return FieldError(key, "Input should be a valid integer");
  return std::optional<int64_t>(it->get<int64_t>());
}

Result<std::optional<std::string>> OptString(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return FieldError(key, "Input should be a valid string");
  return std::optional<std::string>(it->get<std::string>());
}

}  // namespace

const char* SpecMethodName(SpecMethod m) {
  switch (m) {
    case SpecMethod::kNgram: return "ngram";
    case SpecMethod::kMtp: return "mtp";
    case SpecMethod::kDraftModel: return "draft_model";
  }
  return "?";
}

Result<SpeculativeConfig> ParseSpeculativeConfig(const nlohmann::json& j) {
  if (!j.is_object()) return InvalidArgumentError("--speculative-config must be a JSON object");
  static constexpr std::array<std::string_view, 12> kKnown = {
      "num_speculative_tokens", "model",  "method",     "draft_tensor_parallel_size", "tensor_parallel_size",
      "quantization",           "revision", "prompt_lookup_max", "prompt_lookup_min", "rejection_sample_method",
      "draft_sample_method",    "speculative_token_tree"};
  SpeculativeConfig c;
  for (const auto& [key, value] : j.items()) {
    if (OneOf(kIgnoredKeys, key)) {
      c.ignored_keys.push_back(key);
    } else if (!OneOf(kKnown, key)) {
      return FieldError(key, "Unexpected keyword argument");
    }
  }
  if (j.contains("tensor_parallel_size") && !j["tensor_parallel_size"].is_null()) {
    return InvalidArgumentError(
        "'tensor_parallel_size' is not a valid argument in the speculative_config. Please pass "
        "'draft_tensor_parallel_size' instead.");
  }
  GEMMAD_ASSIGN_OR_RETURN(auto num, OptInt(j, "num_speculative_tokens"));
  if (num && *num <= 0) return FieldError("num_speculative_tokens", "Input should be greater than 0");
  if (num && *num > 64) {  // gemmad's bound: every drafted token is a row of logits per step
    return FieldError("num_speculative_tokens", "gemmad accepts at most 64 speculative tokens");
  }
  GEMMAD_ASSIGN_OR_RETURN(auto model, OptString(j, "model"));
  GEMMAD_ASSIGN_OR_RETURN(auto method, OptString(j, "method"));
  GEMMAD_ASSIGN_OR_RETURN(auto draft_tp, OptInt(j, "draft_tensor_parallel_size"));
  if (draft_tp && *draft_tp < 1) return FieldError("draft_tensor_parallel_size", "Input should be greater than or equal to 1");
  if (draft_tp && *draft_tp != 1) {
    return InvalidArgumentError(fmt::format(
        "speculative_draft_tensor_parallel_size={} cannot be other value than 1 or target model "
        "tensor_parallel_size",
        *draft_tp));
  }
  GEMMAD_ASSIGN_OR_RETURN(auto lmin, OptInt(j, "prompt_lookup_min"));
  GEMMAD_ASSIGN_OR_RETURN(auto lmax, OptInt(j, "prompt_lookup_max"));
  if (lmin && *lmin < 1) return FieldError("prompt_lookup_min", "Input should be greater than or equal to 1");
  if (lmax && *lmax < 1) return FieldError("prompt_lookup_max", "Input should be greater than or equal to 1");
  if ((lmin && *lmin > 1024) || (lmax && *lmax > 1024)) {
    return FieldError(lmin && *lmin > 1024 ? "prompt_lookup_min" : "prompt_lookup_max",
                      "gemmad accepts n-grams of at most 1024 tokens");
  }
  GEMMAD_ASSIGN_OR_RETURN(c.revision, OptString(j, "revision"));
  GEMMAD_ASSIGN_OR_RETURN(c.quantization, OptString(j, "quantization"));
  GEMMAD_ASSIGN_OR_RETURN(auto rejection, OptString(j, "rejection_sample_method"));
  if (rejection && *rejection != "standard") {
    if (*rejection == "synthetic") {
      return InvalidArgumentError("rejection_sample_method 'synthetic' is not supported by gemmad (it changes the "
                                  "output distribution); use 'standard'");
    }
    return FieldError("rejection_sample_method", "Input should be 'standard' or 'synthetic'");
  }
  GEMMAD_ASSIGN_OR_RETURN(auto draft_sample, OptString(j, "draft_sample_method"));
  if (draft_sample && *draft_sample != "greedy") {
    if (*draft_sample == "probabilistic") {
      return InvalidArgumentError("draft_sample_method 'probabilistic' is not supported by gemmad; drafts are greedy");
    }
    return FieldError("draft_sample_method", "Input should be 'greedy' or 'probabilistic'");
  }
  if (j.contains("speculative_token_tree") && !j["speculative_token_tree"].is_null()) {
    return InvalidArgumentError("speculative_token_tree is not supported by gemmad");
  }

  // Method inference (vLLM __post_init__).
  std::string m = method.value_or("");
  if (m.empty()) m = model && (*model == "ngram" || *model == "[ngram]") ? "ngram" : "draft_model";
  if (m == "[ngram]") m = "ngram";
  if (OneOf(kMtpAliases, m)) m = "mtp";
  if (m != "ngram" && m != "mtp" && m != "draft_model") {
    if (OneOf(kOtherMethods, m)) {
      return InvalidArgumentError(fmt::format(
          "speculative method '{}' is not supported by gemmad (supported: ngram, mtp with a Gemma 4 assistant model)", m));
    }
    return FieldError("method", fmt::format("Input should be 'ngram', 'mtp', 'draft_model', 'eagle', 'eagle3', "
                                            "'medusa', 'mlp_speculator', 'suffix' or another vLLM method, got '{}'",
                                            m));
  }
  if (!model && num) {
    if (m == "mtp") {
      return InvalidArgumentError("method 'mtp' needs the assistant checkpoint as `model` (a Gemma 4 target has no "
                                  "built-in MTP layers)");
    }
    if (m != "ngram") return InvalidArgumentError("num_speculative_tokens was provided but without speculative model.");
  }
  if (m == "ngram") {
    c.method = SpecMethod::kNgram;
    if (!lmin && !lmax) {
      lmin = 5;
      lmax = 5;
    } else if (!lmin) {
      lmin = lmax;
    } else if (!lmax) {
      lmax = lmin;
    }
    if (*lmin > *lmax) {
      return InvalidArgumentError(
          fmt::format("prompt_lookup_min={} must be <= prompt_lookup_max={}", *lmin, *lmax));
    }
    c.prompt_lookup_min = static_cast<int32_t>(*lmin);
    c.prompt_lookup_max = static_cast<int32_t>(*lmax);
  } else {
    c.method = m == "mtp" ? SpecMethod::kMtp : SpecMethod::kDraftModel;
    c.model = model.value_or("");
    if (c.model.empty()) return InvalidArgumentError(fmt::format("method '{}' needs a draft `model`", m));
    // The Gemma 4 assistant's n_predict (vLLM's hf_config_override); a draft model of any other
    // type is refused when it is opened.
    if (!num) num = 1;
  }
  if (!num) {
    return InvalidArgumentError(
        "num_speculative_tokens must be provided with speculative model unless the draft model config contains an "
        "n_predict parameter.");
  }
  c.num_speculative_tokens = static_cast<int32_t>(*num);
  return c;
}

}  // namespace gemmad::spec
