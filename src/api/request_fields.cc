// FieldReader implementation (pydantic lax-mode coercions).
#include "api/request_fields.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace gemmad::api {
namespace {

std::optional<double> NumberFromString(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE) return std::nullopt;
  return v;
}

}  // namespace

FieldReader::FieldReader(const Json& object, std::string location)
    : object_(object), location_(std::move(location)) {}

const Json* FieldReader::Raw(std::string_view key) const {
  if (!object_.is_object()) return nullptr;
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool FieldReader::Has(std::string_view key) const { return Raw(key) != nullptr; }

void FieldReader::Fail(std::string_view key, std::string_view message) {
  if (error_) return;
  error_ = ApiError::Validation(fmt::format("{}.{}: {}", location_, key, message), std::string(key));
}

void FieldReader::FailValue(std::string_view message) {
  if (error_) return;
  error_ = ApiError::Validation(fmt::format("{}: Value error, {}", location_, message));
}

bool FieldReader::Require(std::string_view key) {
  if (Has(key)) return true;
  Fail(key, "Field required");
  return false;
}

std::optional<double> FieldReader::Float(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr || error_) return std::nullopt;
  if (v->is_number()) return v->get<double>();
  if (v->is_string()) {
    if (auto d = NumberFromString(v->get<std::string>())) return d;
    Fail(key, "Input should be a valid number, unable to parse string as a number");
    return std::nullopt;
  }
  Fail(key, "Input should be a valid number");
  return std::nullopt;
}

std::optional<int64_t> FieldReader::Int(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr || error_) return std::nullopt;
  if (v->is_number_integer()) {
    if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      Fail(key, "Input should be a valid integer, integer out of range");
      return std::nullopt;
    }
    return v->get<int64_t>();
  }
  std::optional<double> d;
  if (v->is_number_float()) d = v->get<double>();
  if (v->is_string()) d = NumberFromString(v->get<std::string>());
  if (d && std::isfinite(*d) && std::floor(*d) == *d && std::fabs(*d) < 9.2e18) return static_cast<int64_t>(*d);
  if (d) {
    Fail(key, "Input should be a valid integer, got a number with a fractional part");
  } else if (v->is_string()) {
    Fail(key, "Input should be a valid integer, unable to parse string as an integer");
  } else {
    Fail(key, "Input should be a valid integer");
  }
  return std::nullopt;
}

std::optional<bool> FieldReader::Bool(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr || error_) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_number_integer()) {
    int64_t i = v->get<int64_t>();
    if (i == 0 || i == 1) return i == 1;
  }
  if (v->is_string()) {
    std::string s = v->get<std::string>();
    for (const char* t : {"true", "True", "TRUE", "1", "yes", "on", "y", "t"}) {
      if (s == t) return true;
    }
    for (const char* f : {"false", "False", "FALSE", "0", "no", "off", "n", "f"}) {
      if (s == f) return false;
    }
  }
  Fail(key, "Input should be a valid boolean");
  return std::nullopt;
}

std::optional<std::string> FieldReader::String(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr || error_) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  Fail(key, "Input should be a valid string");
  return std::nullopt;
}

std::optional<std::vector<std::string>> FieldReader::StringOrList(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr || error_) return std::nullopt;
  if (v->is_string()) return std::vector<std::string>{v->get<std::string>()};
  return StringList(key);
}

std::optional<std::vector<std::string>> FieldReader::StringList(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr || error_) return std::nullopt;
  if (!v->is_array()) {
    Fail(key, "Input should be a valid list");
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) {
      Fail(fmt::format("{}.{}", key, i), "Input should be a valid string");
      return std::nullopt;
    }
    out.push_back((*v)[i].get<std::string>());
  }
  return out;
}

std::optional<std::vector<int64_t>> FieldReader::IntList(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr || error_) return std::nullopt;
  if (!v->is_array()) {
    Fail(key, "Input should be a valid list");
    return std::nullopt;
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < v->size(); ++i) {
    const Json& e = (*v)[i];
    if (!e.is_number_integer() || (e.is_number_unsigned() && e.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))) {
      Fail(fmt::format("{}.{}", key, i), "Input should be a valid integer");
      return std::nullopt;
    }
    out.push_back(e.get<int64_t>());
  }
  return out;
}

const Json* FieldReader::Object(std::string_view key) {
  const Json* v = Raw(key);
  if (v == nullptr || error_) return nullptr;
  if (!v->is_object()) {
    Fail(key, "Input should be a valid dictionary");
    return nullptr;
  }
  return v;
}

}  // namespace gemmad::api
