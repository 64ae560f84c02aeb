// A JSON summary of a GGUF file for `gemmad inspect FILE.gguf`: header fields, every metadata key
// with its type and value (arrays cut to their first elements), and the tensor table.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "io/gguf_file.h"

namespace gemmad::io {

// The summary as indented JSON text. Shape: {"file", "version", "alignment", "data_offset",
// "metadata": {key: {"type", "value"} or {"type": "ARRAY", "elem_type", "count", "head"}},
// "tensors": [{"name", "type", "ne", "offset", "bytes"}], "dtypes": {type: count}}.
// Invalid UTF-8 in strings is replaced, never thrown on.
std::string GgufSummaryJson(const GgufHeader& header, std::string_view path, size_t max_array_elements = 8);

}  // namespace gemmad::io
