// Safetensors header: the 8-byte little-endian length N, then N bytes of JSON describing every
// tensor (dtype, shape, data_offsets relative to the data section) plus optional `__metadata__`.
// ParseSafetensorsHeader validates everything a reader relies on: N sane against the file size, a
// JSON object without duplicate keys, known dtypes, non-negative shapes whose byte size matches
// the offsets, and offsets that tile the data section exactly (contiguous, non-overlapping, no
// trailing bytes). After it succeeds every tensor's bytes lie inside the file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "tensor/dtype.h"

namespace gemmad::io {

// The largest header accepted (the same bound as the reference safetensors library).
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

struct SafetensorsTensorInfo {
  std::string name;
  std::string dtype_name;                  // the file's spelling: "BF16", "F8_E4M3", ...
  std::optional<tensor::DType> dtype;      // nullopt for types gemmad cannot compute with
  int element_bits = 0;                    // 4 for F4, 6 for F6_*, 8..64 otherwise
  std::vector<int64_t> shape;              // any rank (rank 0 = scalar)
  uint64_t data_begin = 0, data_end = 0;   // byte offsets relative to the data section

  uint64_t size_bytes() const { return data_end - data_begin; }
  int64_t num_elements() const;
};

struct SafetensorsHeader {
  uint64_t header_bytes = 0;  // N (the JSON length, padding included)
  uint64_t data_offset = 0;   // 8 + N: where the data section starts in the file
  uint64_t data_bytes = 0;    // size of the data section
  std::vector<SafetensorsTensorInfo> tensors;  // sorted by data_begin (file order)
  std::map<std::string, std::string> metadata;  // `__metadata__`, empty if absent
};

// Element width in bits of a safetensors dtype spelling; nullopt for an unknown spelling.
std::optional<int> SafetensorsDTypeBits(std::string_view dtype_name);

// Parses and validates the header of a safetensors file whose total size is `file_size`.
// `prefix` holds at least the first min(file_size, 8 + N) bytes of the file. `label` (usually the
// path) starts every error message: "<label>: header is not valid JSON (...)".
Result<SafetensorsHeader> ParseSafetensorsHeader(std::string_view prefix, uint64_t file_size,
                                                 std::string_view label);

// Streaming front end: feed the file's bytes in chunks of any size; once the 8-byte length and the
// JSON have arrived the header is parsed. For any chunking the result equals the one-shot parse.
class SafetensorsHeaderDecoder {
 public:
  SafetensorsHeaderDecoder(uint64_t file_size, std::string label)
      : file_size_(file_size), label_(std::move(label)) {}
  // Consumes bytes; returns false once no more input is needed (header parsed or rejected).
  bool Feed(std::string_view chunk);
  bool done() const { return result_.has_value(); }
  // The parse result; when the input ended before the header did, a DataLoss error.
  Result<SafetensorsHeader> Finish();

 private:
  uint64_t file_size_;
  std::string label_;
  std::string buffer_;
  std::optional<Result<SafetensorsHeader>> result_;
};

}  // namespace gemmad::io
