// FieldReader: typed access to one JSON object of a request body with pydantic's lax-mode
// coercions (vLLM validates requests with pydantic): floats accept integers and numeric
// strings, integers accept integral floats and numeric strings, booleans accept 0/1 and
// "true"/"false". JSON null counts as "not given". The first type error is kept and reported
// as a validation ApiError "body.<field>: <pydantic message>"; later reads are no-ops.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/api_error.h"

namespace gemmad::api {

using Json = nlohmann::ordered_json;

// Compact JSON as vLLM writes it (raw UTF-8; invalid bytes replaced by U+FFFD).
inline std::string DumpJson(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

class FieldReader {
 public:
  // `object` must outlive the reader. `location` prefixes error paths ("body").
  FieldReader(const Json& object, std::string location = "body");

  // Present and not null.
  bool Has(std::string_view key) const;
  const Json* Raw(std::string_view key) const;  // nullptr when absent or null

  std::optional<double> Float(std::string_view key);
  std::optional<int64_t> Int(std::string_view key);
  std::optional<bool> Bool(std::string_view key);
  std::optional<std::string> String(std::string_view key);
  // A string or a list of strings (`stop`).
  std::optional<std::vector<std::string>> StringOrList(std::string_view key);
  std::optional<std::vector<int64_t>> IntList(std::string_view key);
  std::optional<std::vector<std::string>> StringList(std::string_view key);
  // An object (returned as is).
  const Json* Object(std::string_view key);
  // `key` must be present (and not null) else "Field required".
  bool Require(std::string_view key);

  // Adds a validation error for `key` unless one is already recorded.
  void Fail(std::string_view key, std::string_view message);
  // A model-level ("Value error, ...") validation failure, as pydantic reports validators.
  void FailValue(std::string_view message);

  bool ok() const { return !error_.has_value(); }
  const ApiError& error() const { return *error_; }

 private:
  const Json& object_;
  std::string location_;
  std::optional<ApiError> error_;
};

}  // namespace gemmad::api
