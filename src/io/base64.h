// Base64 (RFC 4648, standard alphabet, padded) decoding for data: URLs and base64 payloads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::io {

// Decodes `text` (length a multiple of 4, '=' padding only at the end). ASCII whitespace is
// ignored, as Python's base64 decoder does without validate=True. Errors are kInvalidArgument.
Result<std::vector<uint8_t>> DecodeBase64(std::string_view text);

// Standard alphabet, padded, no line breaks.
std::string EncodeBase64(std::string_view bytes);

}  // namespace gemmad::io
