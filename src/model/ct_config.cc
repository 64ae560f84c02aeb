// compressed-tensors quantization_config parsing and scheme matching (see ct_config.h).
#include "model/ct_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>

namespace gemmad::model {
namespace {

using json = nlohmann::ordered_json;

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

Result<CtStrategy> ParseStrategy(const std::string& s) {
  static const std::pair<const char*, CtStrategy> kNames[] = {
      {"tensor", CtStrategy::kTensor}, {"channel", CtStrategy::kChannel}, {"group", CtStrategy::kGroup},
      {"block", CtStrategy::kBlock},   {"token", CtStrategy::kToken},     {"tensor_group", CtStrategy::kTensorGroup},
      {"attn_head", CtStrategy::kAttnHead}};
  for (const auto& [name, v] : kNames) {
    if (Lower(s) == name) return v;
  }
  return InvalidArgumentError(fmt::format("unknown strategy \"{}\"", s));
}

// One QuantizationArgs object, validated as compressed-tensors validates it.
Result<CtArgs> ParseArgs(const json& j) {
  if (!j.is_object()) return InvalidArgumentError("is not an object");
  CtArgs a;
  if (j.contains("num_bits") && !j["num_bits"].is_null()) {
    if (!j["num_bits"].is_number_integer()) return InvalidArgumentError("num_bits is not an integer");
    a.num_bits = j["num_bits"].get<int>();
  }
  if (a.num_bits < 1 || a.num_bits > 8) return InvalidArgumentError(fmt::format("num_bits {} is out of 1..8", a.num_bits));
  if (j.contains("type") && !j["type"].is_null()) {
    if (!j["type"].is_string()) return InvalidArgumentError("type is not a string");
    const std::string t = Lower(j["type"].get<std::string>());
    if (t != "int" && t != "float") return InvalidArgumentError(fmt::format("type \"{}\" is neither int nor float", t));
    a.is_float = t == "float";
  }
  if (a.is_float && a.num_bits != 8 && a.num_bits != 4) {
    return InvalidArgumentError(fmt::format("float types have 4 or 8 bits, not {}", a.num_bits));
  }
  if (j.contains("symmetric") && !j["symmetric"].is_null()) {
    if (!j["symmetric"].is_boolean()) return InvalidArgumentError("symmetric is not a boolean");
    a.symmetric = j["symmetric"].get<bool>();
  }
  if (j.contains("group_size") && !j["group_size"].is_null()) {
    if (!j["group_size"].is_number_integer()) return InvalidArgumentError("group_size is not an integer");
    a.group_size = j["group_size"].get<int64_t>();
  }
  std::optional<CtStrategy> strategy;
  if (j.contains("strategy") && !j["strategy"].is_null()) {
    if (!j["strategy"].is_string()) return InvalidArgumentError("strategy is not a string");
    GEMMAD_ASSIGN_OR_RETURN(CtStrategy s, ParseStrategy(j["strategy"].get<std::string>()));
    strategy = s;
  }
  if (a.group_size == -1 && (!strategy || *strategy == CtStrategy::kChannel)) {  // legacy spelling of channel
    strategy = CtStrategy::kChannel;
    a.group_size = 0;
  }
  if (!strategy) strategy = a.group_size > 0 ? CtStrategy::kGroup : CtStrategy::kTensor;
  a.strategy = *strategy;
  const bool grouped = a.strategy == CtStrategy::kGroup || a.strategy == CtStrategy::kTensorGroup;
  if (grouped && a.group_size <= 0) return InvalidArgumentError("strategy group needs a group_size > 0");
  if (!grouped && a.group_size != 0) {
    return InvalidArgumentError(fmt::format("group_size {} with strategy {}", a.group_size, CtStrategyName(a.strategy)));
  }
  if (j.contains("block_structure") && !j["block_structure"].is_null()) {
    const json& b = j["block_structure"];
    if (b.is_array() && b.size() == 2 && b[0].is_number_integer() && b[1].is_number_integer()) {
      a.block_rows = b[0].get<int64_t>();
      a.block_cols = b[1].get<int64_t>();
    } else if (b.is_string()) {
      const std::string s = b.get<std::string>();
      const size_t x = s.find('x');
      if (x == std::string::npos) return InvalidArgumentError(fmt::format("block_structure \"{}\" is not RxC", s));
      a.block_rows = std::atoll(s.substr(0, x).c_str());
      a.block_cols = std::atoll(s.substr(x + 1).c_str());
    }
    if (a.block_rows <= 0 || a.block_cols <= 0) return InvalidArgumentError("block_structure is not two positive sizes");
  }
  if ((a.strategy == CtStrategy::kBlock) != (a.block_rows > 0)) {
    return InvalidArgumentError("strategy block and block_structure go together");
  }
  if (j.contains("dynamic") && !j["dynamic"].is_null()) {
    const json& d = j["dynamic"];
    if (d.is_boolean()) {
      a.dynamic = d.get<bool>();
    } else if (d.is_string() && Lower(d.get<std::string>()) == "local") {
      a.dynamic = true;
    } else {
      return InvalidArgumentError("dynamic is neither a boolean nor \"local\"");
    }
  }
  if (a.strategy == CtStrategy::kToken && !a.dynamic) return InvalidArgumentError("strategy token needs dynamic: true");
  if (j.contains("actorder") && !j["actorder"].is_null()) {
    const json& o = j["actorder"];
    if (o.is_boolean()) {
      a.actorder = o.get<bool>() ? "group" : "";
    } else if (o.is_string()) {
      a.actorder = Lower(o.get<std::string>());
    } else {
      return InvalidArgumentError("actorder is neither a string nor a boolean");
    }
  }
  return a;
}

// A preset scheme name (quant_scheme.py) expanded into its arguments; nullopt when unknown.
std::optional<CtScheme> Preset(std::string_view name) {
  CtArgs fp8_channel{.num_bits = 8, .is_float = true, .strategy = CtStrategy::kChannel};
  CtArgs fp8_token{.num_bits = 8, .is_float = true, .strategy = CtStrategy::kToken, .dynamic = true};
  CtScheme s;
  s.name = std::string(name);
  const std::string n = Lower(name);
  if (n == "fp8_dynamic") {
    s.weights = fp8_channel;
    s.input_activations = fp8_token;
    return s;
  }
  if (n == "fp8") {
    s.weights = CtArgs{.num_bits = 8, .is_float = true, .strategy = CtStrategy::kTensor};
    s.input_activations = CtArgs{.num_bits = 8, .is_float = true, .strategy = CtStrategy::kTensor};
    return s;
  }
  if (n.size() == 5 && n[0] == 'w' && n[1] >= '2' && n[1] <= '8' && n.substr(2) == "a16") {
    s.weights = CtArgs{.num_bits = n[1] - '0', .strategy = CtStrategy::kGroup, .group_size = 128};
    return s;
  }
  if (n == "w4a16_asym") {
    s.weights = CtArgs{.num_bits = 4, .symmetric = false, .strategy = CtStrategy::kGroup, .group_size = 128};
    return s;
  }
  if (n == "w8a8" || n == "int8") {
    s.weights = CtArgs{.num_bits = 8, .strategy = CtStrategy::kChannel};
    s.input_activations = CtArgs{.num_bits = 8, .strategy = CtStrategy::kToken, .dynamic = true};
    return s;
  }
  return std::nullopt;
}

Result<std::vector<std::string>> StringList(const json& j, std::string_view what) {
  std::vector<std::string> out;
  if (j.is_null()) return out;
  if (!j.is_array()) return InvalidArgumentError(fmt::format("{} is not a list of strings", what));
  for (const json& e : j) {
    if (!e.is_string()) return InvalidArgumentError(fmt::format("{} is not a list of strings", what));
    out.push_back(e.get<std::string>());
  }
  return out;
}

// compressed-tensors' `re:` rule: Python re.match, anchored at the start and not at the end.
bool MatchesName(std::string_view target, std::string_view module) {
  if (target.starts_with("re:")) {
    try {
      const std::regex re(std::string(target.substr(3)));
      const std::string m(module);
      return std::regex_search(m, re, std::regex_constants::match_continuous);
    } catch (const std::regex_error&) {
      return false;  // rejected at parse time; unreachable for a parsed config
    }
  }
  return target == module;
}

// The vLLM layer classes a module of each kind becomes (class-name targets match a
// case-insensitive substring of one of them).
bool MatchesClass(std::string_view target, CtModuleKind kind) {
  static constexpr std::string_view kLinear[] = {"QKVParallelLinear", "MergedColumnParallelLinear", "RowParallelLinear",
                                                 "ColumnParallelLinear", "ReplicatedLinear", "LinearBase"};
  static constexpr std::string_view kEmbedding[] = {"VocabParallelEmbedding"};
  static constexpr std::string_view kLmHead[] = {"ParallelLMHead"};
  static constexpr std::string_view kAttention[] = {"Attention", "Gemma4Attention"};
  const std::string t = Lower(target);
  auto any = [&](auto& names) {
    return std::any_of(std::begin(names), std::end(names), [&](std::string_view c) { return Lower(c).find(t) != std::string::npos; });
  };
  switch (kind) {
    case CtModuleKind::kLinear: return any(kLinear);
    case CtModuleKind::kEmbedding: return any(kEmbedding);
    case CtModuleKind::kLmHead: return any(kLmHead);
    case CtModuleKind::kAttention: return any(kAttention);
    case CtModuleKind::kRouter: return false;  // vLLM builds the router without the quant config
  }
  return false;
}

bool IsClassTarget(std::string_view t) {
  return !t.starts_with("re:") && t.find('.') == std::string_view::npos;
}

}  // namespace

std::string_view CtStrategyName(CtStrategy s) {
  switch (s) {
    case CtStrategy::kTensor: return "tensor";
    case CtStrategy::kChannel: return "channel";
    case CtStrategy::kGroup: return "group";
    case CtStrategy::kBlock: return "block";
    case CtStrategy::kToken: return "token";
    case CtStrategy::kTensorGroup: return "tensor_group";
    case CtStrategy::kAttnHead: return "attn_head";
  }
  return "?";
}

std::string CtArgs::ToString() const {
  std::string s = fmt::format("{}{} {}", is_float ? "float" : "int", num_bits, CtStrategyName(strategy));
  if (strategy == CtStrategy::kGroup || strategy == CtStrategy::kTensorGroup) s += fmt::format(" {}", group_size);
  if (strategy == CtStrategy::kBlock) s += fmt::format(" {}x{}", block_rows, block_cols);
  s += symmetric ? " symmetric" : " asymmetric";
  if (dynamic) s += " dynamic";
  return s;
}

CtModuleKind CtKindOf(std::string_view m) {
  if (m.ends_with("embed_tokens") || m.ends_with("embed_tokens_per_layer")) return CtModuleKind::kEmbedding;
  if (m == "lm_head" || m.ends_with(".lm_head")) return CtModuleKind::kLmHead;
  if (m.ends_with("router.proj") || m.ends_with(".router")) return CtModuleKind::kRouter;
  if (m.ends_with("self_attn")) return CtModuleKind::kAttention;
  return CtModuleKind::kLinear;
}

bool CtConfig::Ignored(std::string_view module) const {
  return std::any_of(ignore.begin(), ignore.end(), [&](const std::string& t) { return MatchesName(t, module); });
}

const CtScheme* CtConfig::SchemeFor(std::string_view module, CtModuleKind kind) const {
  if (kind == CtModuleKind::kRouter || Ignored(module)) return nullptr;
  for (const CtScheme& g : groups) {
    for (const std::string& t : g.targets) {
      if (!IsClassTarget(t) && MatchesName(t, module)) return &g;
    }
  }
  for (const CtScheme& g : groups) {
    for (const std::string& t : g.targets) {
      if (IsClassTarget(t) && (t == module || MatchesClass(t, kind))) return &g;
    }
  }
  return nullptr;
}

Result<CtConfig> ParseCtConfig(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgumentError("quantization_config is not a JSON object");
  const std::string method = j.value("quant_method", "");
  if (method != "compressed-tensors") {
    return InvalidArgumentError(fmt::format("quant_method \"{}\" is not compressed-tensors", method));
  }
  CtConfig c;
  if (j.contains("format") && j["format"].is_string()) c.format = j["format"].get<std::string>();
  if (j.contains("quantization_status") && j["quantization_status"].is_string()) {
    c.quantization_status = j["quantization_status"].get<std::string>();
  }
  for (const char* key : {"sparsity_config", "transform_config"}) {
    if (j.contains(key) && !j[key].is_null() && !(j[key].is_object() && j[key].empty())) {
      return InvalidArgumentError(fmt::format("quantization_config.{} is set; gemmad reads neither sparse nor transformed "
                                              "(rotated) checkpoints",
                                              key));
    }
  }
  GEMMAD_ASSIGN_OR_RETURN(c.ignore, StringList(j.value("ignore", json()), "quantization_config.ignore"));
  const json groups = j.value("config_groups", json::object());
  if (!groups.is_object()) return InvalidArgumentError("quantization_config.config_groups is not an object");
  for (const auto& [name, g] : groups.items()) {
    const std::string where = "quantization_config.config_groups." + name;
    CtScheme s;
    if (g.is_array()) {  // preset name -> targets
      auto preset = Preset(name);
      if (!preset) return InvalidArgumentError(fmt::format("{}: unknown preset scheme \"{}\"", where, name));
      s = *preset;
      GEMMAD_ASSIGN_OR_RETURN(s.targets, StringList(g, where));
    } else if (g.is_object()) {
      s.name = name;
      GEMMAD_ASSIGN_OR_RETURN(s.targets, StringList(g.value("targets", json()), where + ".targets"));
      for (const auto& [key, slot] : {std::pair{"weights", &s.weights}, std::pair{"input_activations", &s.input_activations},
                                      std::pair{"output_activations", &s.output_activations}}) {
        if (!g.contains(key) || g[key].is_null()) continue;
        auto a = ParseArgs(g[key]);
        if (!a.ok()) return a.status().WithPrefix(fmt::format("{}.{}", where, key));
        *slot = *a;
      }
      if (g.contains("format") && g["format"].is_string()) s.format = g["format"].get<std::string>();
    } else {
      return InvalidArgumentError(where + " is neither a scheme object nor a list of targets");
    }
    if (s.targets.empty()) return InvalidArgumentError(where + " has no targets");
    for (const std::string& t : s.targets) {
      if (t.size() > 1000) return InvalidArgumentError(where + ": a target longer than 1000 characters");
      if (t.starts_with("re:")) {
        try {
          std::regex re(t.substr(3));
        } catch (const std::regex_error&) {
          return InvalidArgumentError(fmt::format("{}: target \"{}\" is not a valid regular expression", where, t));
        }
      }
    }
    if (s.format.empty()) s.format = c.format;
    if (s.format == "mixed-precision") return InvalidArgumentError(where + ": a group's format cannot be mixed-precision");
    c.groups.push_back(std::move(s));
  }
  for (const std::string& t : c.ignore) {
    if (t.size() > 1000) return InvalidArgumentError("quantization_config.ignore: an entry longer than 1000 characters");
    if (t.starts_with("re:")) {
      try {
        std::regex re(t.substr(3));
      } catch (const std::regex_error&) {
        return InvalidArgumentError(fmt::format("quantization_config.ignore: \"{}\" is not a valid regular expression", t));
      }
    }
  }
  if (j.contains("kv_cache_scheme") && !j["kv_cache_scheme"].is_null()) {
    auto a = ParseArgs(j["kv_cache_scheme"]);
    if (!a.ok()) return a.status().WithPrefix("quantization_config.kv_cache_scheme");
    c.kv_cache_scheme = *a;
  }
  return c;
}

}  // namespace gemmad::model
