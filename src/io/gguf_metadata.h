// GGUF metadata as plain data: every key/value record of a file, in file order, with typed
// accessors. Integer getters accept any integer type whose value fits (llama.cpp writers use
// UINT32 where the spec suggests UINT64, gguf-py writes INT32 arrays); every error names the key
// and the expected and actual types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "io/gguf_types.h"

namespace gemmad::io {

// An array value. Exactly one vector is used, chosen by elem_type: `u` for UINT8/16/32/64 and
// BOOL (0/1), `i` for INT8/16/32/64, `f` for FLOAT32/64, `s` for STRING, `a` for nested ARRAY.
struct GgufArray {
  GgufValueType elem_type = GgufValueType::kUint8;
  std::vector<uint64_t> u;
  std::vector<int64_t> i;
  std::vector<double> f;
  std::vector<std::string> s;
  std::vector<GgufArray> a;

  size_t size() const;
};

// One value: `type` says which member holds it (as in GgufArray; `array` for ARRAY).
struct GgufValue {
  GgufValueType type = GgufValueType::kUint8;
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
  std::string s;
  GgufArray array;
};

struct GgufKeyValue {
  std::string key;
  GgufValue value;
};

class GgufMetadata {
 public:
  // Appends a record; false (and nothing added) when the key is already present.
  bool Add(GgufKeyValue kv);

  const std::vector<GgufKeyValue>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  // The value of `key`, or nullptr when absent.
  const GgufValue* Find(std::string_view key) const;

  // Typed getters: NotFound for a missing key, InvalidArgument for a wrong type or a value out of
  // the result's range ("key 'k': expected UINT32, got STRING").
  Result<std::string> GetString(std::string_view key) const;
  Result<uint32_t> GetU32(std::string_view key) const;
  Result<uint64_t> GetU64(std::string_view key) const;
  Result<int64_t> GetI64(std::string_view key) const;
  Result<double> GetF64(std::string_view key) const;  // FLOAT32 or FLOAT64
  Result<bool> GetBool(std::string_view key) const;
  Result<const GgufArray*> GetArray(std::string_view key) const;
  // An array whose elements are all strings / integers (any integer type that fits int64).
  Result<std::vector<std::string>> GetStringArray(std::string_view key) const;
  Result<std::vector<int64_t>> GetIntArray(std::string_view key) const;

 private:
  Result<const GgufValue*> Get(std::string_view key) const;
  std::vector<GgufKeyValue> entries_;
  std::map<std::string, size_t, std::less<>> index_;
};

// A one-line rendering of a value for listings: scalars in full, arrays as
// "[INT32 x 42: 1, 2, 3, ...]" with at most `max_elements` shown.
std::string FormatGgufValue(const GgufValue& value, size_t max_elements = 8);

}  // namespace gemmad::io
