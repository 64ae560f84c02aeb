// FormPart: one part of a multipart/form-data request body (RFC 7578) as the OpenAI handlers
// see it: a text field, or an uploaded file when `filename` is set. Plain data; the transport
// (server/multipart.h) parses the body into these.
#pragma once

#include <optional>
#include <string>

namespace gemmad::api {

struct FormPart {
  std::string name;                     // Content-Disposition name
  std::optional<std::string> filename;  // set for a file (may be empty: `filename=""`)
  std::string content_type;             // the part's Content-Type ("" when absent)
  std::string data;                     // the value or the file's bytes

  bool is_file() const { return filename.has_value(); }
};

}  // namespace gemmad::api
