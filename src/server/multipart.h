// multipart/form-data (RFC 7578 over RFC 2046 §5.1) for the audio routes: the boundary from the
// request's Content-Type, and the body cut into api::FormParts. The whole body is in hand (the
// transport bounds its size); the parser bounds the number of parts and each part's header
// block, and a malformed body is a kInvalidArgument Status saying what is wrong, never a crash.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/form_part.h"
#include "base/result.h"

namespace gemmad::server {

struct MultipartLimits {
  size_t max_parts = 1000;          // Starlette's max_fields / max_files default
  size_t max_header_bytes = 16384;  // one part's header block
};

// The boundary of a `multipart/form-data; boundary=...` Content-Type (quoted or a token,
// 1 to 70 characters). Errors: another media type, no boundary, a bad parameter list.
Result<std::string> MultipartBoundary(std::string_view content_type);

// The parts of `body`, in order. A preamble before the first delimiter and an epilogue after
// the closing one are ignored. Each part needs `Content-Disposition: form-data; name=...`.
Result<std::vector<api::FormPart>> ParseMultipart(std::string_view body, std::string_view boundary,
                                                  const MultipartLimits& limits = {});

// A header value's first item and its `; name=value` parameters (names lowercased, quoted
// values unescaped): `form-data; name="file"; filename="a.wav"`.
struct HeaderParams {
  std::string value;
  std::vector<std::pair<std::string, std::string>> params;
  const std::string* Find(std::string_view name) const;
};
Result<HeaderParams> ParseHeaderParams(std::string_view header_value);

}  // namespace gemmad::server
