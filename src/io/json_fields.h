// JsonFields: typed, error-reporting access to the fields of one JSON object (config files).
// Every error names the file and the dotted field path: "config.json: text_config.hidden_size:
// expected an integer, got string". Absent fields leave the output untouched; JSON null is
// reported to the caller (IsNull) so it can mean "not used" where the reference allows None.
// Include only from .cc files: it exposes nlohmann::json.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::io {

// Parses JSON text without exceptions; errors name `label`.
Result<nlohmann::json> ParseJsonText(std::string_view text, std::string_view label);

class JsonFields {
 public:
  // `obj` must outlive this; `label` is the file ("config.json"), `path` the object's dotted path
  // ("" for the top level, "text_config" for a nested object).
  JsonFields(const nlohmann::json& obj, std::string label, std::string path = "");

  bool Has(std::string_view key) const;
  bool IsNull(std::string_view key) const;  // present and null
  const nlohmann::json* Get(std::string_view key) const;  // nullptr when absent
  std::string Where(std::string_view key) const;           // "config.json: text_config.key"
  Status Error(std::string_view key, std::string_view problem) const;

  // Absent -> untouched. Null -> error unless the *Opt form is used (then nullopt).
  Status Int(std::string_view key, int64_t* out) const;
  Status Double(std::string_view key, double* out) const;
  Status Bool(std::string_view key, bool* out) const;
  Status String(std::string_view key, std::string* out) const;
  Status IntOpt(std::string_view key, std::optional<int64_t>* out) const;
  Status DoubleOpt(std::string_view key, std::optional<double>* out) const;
  Status StringOpt(std::string_view key, std::optional<std::string>* out) const;
  // An integer or a list of integers (e.g. eos_token_id); null -> empty list.
  Status IntOrIntList(std::string_view key, std::vector<int64_t>* out) const;
  Status StringList(std::string_view key, std::vector<std::string>* out) const;
  // A nested object (nullptr result when absent or null); error when another type.
  Status Object(std::string_view key, const nlohmann::json** out) const;

  const nlohmann::json& node() const { return obj_; }
  const std::string& label() const { return label_; }
  std::string ChildPath(std::string_view key) const;

 private:
  const nlohmann::json& obj_;
  std::string label_, path_;
};

// "string", "integer", ... for error messages.
std::string_view JsonTypeName(const nlohmann::json& v);

}  // namespace gemmad::io
