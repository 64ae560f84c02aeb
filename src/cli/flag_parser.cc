// ParseFlags: argparse-compatible parsing over a FlagTable (see flag_parser.h).
#include "cli/flag_parser.h"

#include <fmt/format.h>

#include "base/check.h"
#include "base/strings.h"
#include "cli/flag_values.h"

namespace gemmad::cli {
namespace {

using nlohmann::json;

bool LooksLikeNegativeNumber(std::string_view s) {
  return s.size() >= 2 && s[0] == '-' && ((s[1] >= '0' && s[1] <= '9') || s[1] == '.');
}
// True when argparse would treat `s` as an option string (so it cannot be a value).
bool IsOptionLike(std::string_view s) { return s.size() >= 2 && s[0] == '-' && !LooksLikeNegativeNumber(s); }

const FlagSpec* FindFlag(FlagTable table, std::string_view name) {
  for (const FlagSpec& spec : table) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const FlagSpec* FindAlias(FlagTable table, std::string_view alias) {
  for (const FlagSpec& spec : table) {
    for (const std::string& a : StrSplit(spec.aliases, ' ')) {
      if (!a.empty() && a == alias) return &spec;
    }
  }
  return nullptr;
}

std::string Suggest(FlagTable table, std::string_view name) {
  std::string best;
  size_t best_d = ~size_t{0};
  auto consider = [&](const std::string& candidate) {
    size_t d = EditDistance(candidate, name);
    if (d < best_d) {
      best_d = d;
      best = candidate;
    }
  };
  for (const FlagSpec& spec : table) {
    consider(std::string(spec.name));
    if (spec.type == FlagType::kBool) consider("no-" + std::string(spec.name));
  }
  size_t limit = std::max<size_t>(2, name.size() / 3);
  if (best.empty() || best_d > limit) return "";
  return fmt::format(" (did you mean --{}?)", best);
}

// Sets obj[path[0]][path[1]]... = value, creating objects along the way.
Status SetDotted(json& root, const FlagSpec& spec, const std::vector<std::string>& path, json value) {
  if (root.is_null()) root = json::object();
  json* node = &root;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i].empty()) return InvalidArgumentError(fmt::format("argument --{}: empty sub-key", spec.name));
    if (!node->is_object()) {
      return InvalidArgumentError(fmt::format("argument --{}: '{}' is not an object", spec.name, path[i - 1]));
    }
    node = &(*node)[path[i]];
  }
  *node = std::move(value);
  return OkStatus();
}

class Parser {
 public:
  Parser(const std::vector<std::string>& args, FlagTable table, size_t max_positional)
      : args_(args), table_(table), max_positional_(max_positional) {}

  Result<ParsedFlags> Run() {
    GEMMAD_RETURN_IF_ERROR(ApplyDefaults());
    bool only_positional = false;
    while (i_ < args_.size()) {
      const std::string& arg = args_[i_++];
      if (only_positional || !IsOptionLike(arg)) {
        GEMMAD_RETURN_IF_ERROR(AddPositional(arg));
      } else if (arg == "--") {
        only_positional = true;
      } else if (arg == "-h" || arg == "--help") {
        out_.help_requested = true;
      } else if (arg.rfind("--help=", 0) == 0) {
        out_.help_requested = true;
        out_.help_topic = arg.substr(7);
      } else if (arg.rfind("--", 0) == 0) {
        GEMMAD_RETURN_IF_ERROR(LongOption(std::string_view(arg).substr(2)));
      } else {
        GEMMAD_RETURN_IF_ERROR(ShortOption(arg));
      }
    }
    return std::move(out_);
  }

 private:
  Status ApplyDefaults() {
    for (const FlagSpec& spec : table_) {
      json value = nullptr;
      if (!spec.default_text.empty() && spec.default_text.front() != '(') {
        if (spec.type == FlagType::kStringList) {
          value = json::array();
          for (const std::string& s : StrSplit(spec.default_text, ' ')) value.push_back(s);
        } else {
          auto v = ParseFlagValue(spec, spec.default_text);
          GEMMAD_CHECK(v.ok(), "bad default for --{}: {}", spec.name, v.status().message());
          value = std::move(*v);
        }
      }
      out_.values[std::string(spec.name)] = std::move(value);
    }
    return OkStatus();
  }

  Status AddPositional(const std::string& arg) {
    if (out_.positional.size() >= max_positional_) {
      return InvalidArgumentError(fmt::format("unrecognized arguments: {}", arg));
    }
    out_.positional.push_back(arg);
    return OkStatus();
  }

  Status LongOption(std::string_view body) {
    std::optional<std::string> inline_value;
    size_t eq = body.find('=');
    if (eq != std::string_view::npos) {
      inline_value = std::string(body.substr(eq + 1));
      body = body.substr(0, eq);
    }
    std::string name = CanonicalFlagName(body);
    size_t dot = name.find('.');
    if (dot != std::string::npos) return DottedOption(name.substr(0, dot), name.substr(dot + 1), inline_value);
    if (const FlagSpec* spec = FindFlag(table_, name)) return Assign(*spec, inline_value);
    if (name.rfind("no-", 0) == 0) {
      const FlagSpec* spec = FindFlag(table_, std::string_view(name).substr(3));
      if (spec != nullptr && spec->type == FlagType::kBool) {
        if (inline_value) {
          return InvalidArgumentError(fmt::format("argument --{}: ignored explicit argument '{}'", name, *inline_value));
        }
        return Set(*spec, json(false));
      }
    }
    return InvalidArgumentError(
        fmt::format("unrecognized arguments: --{}{}", std::string(body), Suggest(table_, name)));
  }

  Status ShortOption(const std::string& arg) {
    std::string_view alias = arg;
    std::optional<std::string> inline_value;
    size_t eq = alias.find('=');
    if (eq != std::string_view::npos) {
      inline_value = std::string(alias.substr(eq + 1));
      alias = alias.substr(0, eq);
    }
    const FlagSpec* spec = FindAlias(table_, alias);
    if (spec == nullptr) return InvalidArgumentError(fmt::format("unrecognized arguments: {}", arg));
    return Assign(*spec, inline_value);
  }

  Status DottedOption(const std::string& base, const std::string& keys, const std::optional<std::string>& inline_value) {
    const FlagSpec* spec = FindFlag(table_, base);
    if (spec == nullptr) {
      return InvalidArgumentError(fmt::format("unrecognized arguments: --{}.{}{}", base, keys, Suggest(table_, base)));
    }
    if (spec->type != FlagType::kJson && spec->type != FlagType::kMmLimits) {
      return InvalidArgumentError(fmt::format("argument --{}: does not take sub-keys (--{}.{})", base, base, keys));
    }
    json value = true;  // vLLM: a dotted key without a value is a boolean flag
    if (inline_value) {
      value = ParseLooseJson(*inline_value);
    } else if (i_ < args_.size() && !IsOptionLike(args_[i_])) {
      value = ParseLooseJson(args_[i_++]);
    }
    json& slot = out_.values[std::string(spec->name)];
    GEMMAD_RETURN_IF_ERROR(SetDotted(slot, *spec, StrSplit(keys, '.'), std::move(value)));
    out_.explicitly_set.insert(std::string(spec->name));
    return OkStatus();
  }

  Status Assign(const FlagSpec& spec, const std::optional<std::string>& inline_value) {
    if (spec.type == FlagType::kBool) {
      if (!inline_value) return Set(spec, json(true));
      GEMMAD_ASSIGN_OR_RETURN(json v, ParseFlagValue(spec, *inline_value));
      return Set(spec, std::move(v));
    }
    if (spec.type == FlagType::kStringList) {
      json list = json::array();
      if (inline_value) {
        list.push_back(*inline_value);
      } else {
        while (i_ < args_.size() && !IsOptionLike(args_[i_])) list.push_back(args_[i_++]);
      }
      if (list.empty()) return InvalidArgumentError(fmt::format("argument --{}: expected at least one argument", spec.name));
      return Set(spec, std::move(list));
    }
    std::string text;
    if (inline_value) {
      text = *inline_value;
    } else if (i_ < args_.size() && !IsOptionLike(args_[i_])) {
      text = args_[i_++];
    } else {
      return InvalidArgumentError(fmt::format("argument --{}: expected one argument", spec.name));
    }
    GEMMAD_ASSIGN_OR_RETURN(json v, ParseFlagValue(spec, text));
    return Set(spec, std::move(v));
  }

  Status Set(const FlagSpec& spec, json value) {
    out_.values[std::string(spec.name)] = std::move(value);
    out_.explicitly_set.insert(std::string(spec.name));
    return OkStatus();
  }

  const std::vector<std::string>& args_;
  FlagTable table_;
  size_t max_positional_;
  size_t i_ = 0;
  ParsedFlags out_;
};

const json& Lookup(const json& values, std::string_view name) {
  auto it = values.find(std::string(name));
  GEMMAD_CHECK(it != values.end(), "flag --{} is not in the table", name);
  return *it;
}

}  // namespace

std::string CanonicalFlagName(std::string_view typed) {
  while (!typed.empty() && typed.front() == '-') typed.remove_prefix(1);
  std::string out(typed);
  size_t dot = out.find('.');
  for (size_t i = 0; i < out.size() && i < dot; ++i) {
    if (out[i] == '_') out[i] = '-';
  }
  return out;
}

Result<ParsedFlags> ParseFlags(const std::vector<std::string>& args, FlagTable table, size_t max_positional) {
  return Parser(args, table, max_positional).Run();
}

bool ParsedFlags::IsNull(std::string_view name) const { return Lookup(values, name).is_null(); }
bool ParsedFlags::GetBool(std::string_view name) const {
  const json& v = Lookup(values, name);
  return v.is_boolean() && v.get<bool>();
}
int64_t ParsedFlags::GetInt(std::string_view name) const {
  const json& v = Lookup(values, name);
  GEMMAD_CHECK(v.is_number_integer(), "flag --{} has no integer value", name);
  return v.get<int64_t>();
}
double ParsedFlags::GetFloat(std::string_view name) const {
  const json& v = Lookup(values, name);
  GEMMAD_CHECK(v.is_number(), "flag --{} has no numeric value", name);
  return v.get<double>();
}
std::string ParsedFlags::GetString(std::string_view name) const {
  const json& v = Lookup(values, name);
  return v.is_string() ? v.get<std::string>() : std::string();
}
std::vector<std::string> ParsedFlags::GetStringList(std::string_view name) const {
  const json& v = Lookup(values, name);
  std::vector<std::string> out;
  if (v.is_array()) {
    for (const json& s : v) out.push_back(s.get<std::string>());
  }
  return out;
}
const json& ParsedFlags::GetJson(std::string_view name) const { return Lookup(values, name); }

}  // namespace gemmad::cli
