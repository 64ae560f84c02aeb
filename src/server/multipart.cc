// MultipartBoundary, ParseMultipart, ParseHeaderParams (see multipart.h).
#include "server/multipart.h"

#include <fmt/format.h>

#include <cctype>

namespace gemmad::server {
namespace {

constexpr std::string_view kWhitespace = " \t";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && kWhitespace.find(s.front()) != std::string_view::npos) s.remove_prefix(1);
  while (!s.empty() && kWhitespace.find(s.back()) != std::string_view::npos) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// RFC 9110 token characters (header names, parameter names).
bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

Status Malformed(std::string_view what) { return InvalidArgumentError(fmt::format("multipart/form-data body: {}", what)); }

// Reads a quoted-string starting at s[*pos] == '"' (backslash escapes one character).
Result<std::string> QuotedString(std::string_view s, size_t* pos) {
  std::string out;
  for (size_t i = *pos + 1; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out += s[++i];
    } else if (s[i] == '"') {
      *pos = i + 1;
      return out;
    } else {
      out += s[i];
    }
  }
  return InvalidArgumentError("unterminated quoted string");
}

struct PartHeaders {
  bool has_disposition = false;
  HeaderParams disposition;
  std::string content_type;
};

Result<PartHeaders> ParsePartHeaders(std::string_view block) {
  PartHeaders h;
  while (!block.empty()) {
    const size_t eol = block.find("\r\n");
    std::string_view line = block.substr(0, eol);
    block.remove_prefix(eol == std::string_view::npos ? block.size() : eol + 2);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return Malformed(fmt::format("bad part header line {:?}", line.substr(0, 80)));
    }
    for (char c : line.substr(0, colon)) {
      if (!IsTokenChar(c)) return Malformed(fmt::format("bad part header name {:?}", line.substr(0, colon)));
    }
    const std::string name = Lower(line.substr(0, colon));
    const std::string_view value = Trim(line.substr(colon + 1));
    if (name == "content-disposition") {
      if (h.has_disposition) return Malformed("a part has two Content-Disposition headers");
      auto parsed = ParseHeaderParams(value);
      if (!parsed.ok()) return Malformed("bad Content-Disposition: " + parsed.status().message());
      h.disposition = std::move(*parsed);
      h.has_disposition = true;
    } else if (name == "content-type") {
      h.content_type = std::string(value);
    }
  }
  return h;
}

Result<api::FormPart> MakePart(const PartHeaders& h, std::string_view data) {
  if (!h.has_disposition) return Malformed("a part has no Content-Disposition header");
  if (Lower(h.disposition.value) != "form-data") {
    return Malformed(fmt::format("a part's Content-Disposition is {:?}, not form-data", h.disposition.value));
  }
  const std::string* name = h.disposition.Find("name");
  if (name == nullptr) return Malformed("a part's Content-Disposition has no name");
  api::FormPart part;
  part.name = *name;
  if (const std::string* filename = h.disposition.Find("filename")) part.filename = *filename;
  part.content_type = h.content_type;
  part.data = std::string(data);
  return part;
}

}  // namespace

const std::string* HeaderParams::Find(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (k == name) return &v;
  }
  return nullptr;
}

Result<HeaderParams> ParseHeaderParams(std::string_view s) {
  HeaderParams out;
  size_t pos = s.find(';');
  out.value = std::string(Trim(s.substr(0, pos)));
  while (pos != std::string_view::npos && pos < s.size()) {
    ++pos;  // past ';'
    while (pos < s.size() && kWhitespace.find(s[pos]) != std::string_view::npos) ++pos;
    if (pos >= s.size()) break;
    if (s[pos] == ';') continue;
    const size_t eq = s.find_first_of("=;", pos);
    const std::string name = Lower(Trim(s.substr(pos, eq == std::string_view::npos ? s.npos : eq - pos)));
    if (name.empty()) return InvalidArgumentError("a parameter without a name");
    for (char c : name) {
      if (!IsTokenChar(c)) return InvalidArgumentError(fmt::format("bad parameter name {:?}", name));
    }
    if (eq == std::string_view::npos || s[eq] == ';') {
      out.params.emplace_back(name, "");
      pos = eq;
      continue;
    }
    pos = eq + 1;
    while (pos < s.size() && kWhitespace.find(s[pos]) != std::string_view::npos) ++pos;
    std::string value;
    if (pos < s.size() && s[pos] == '"') {
      auto quoted = QuotedString(s, &pos);
      if (!quoted.ok()) return quoted.status();
      value = std::move(*quoted);
      while (pos < s.size() && kWhitespace.find(s[pos]) != std::string_view::npos) ++pos;
      if (pos < s.size() && s[pos] != ';') return InvalidArgumentError("text after a quoted parameter value");
    } else {
      const size_t end = s.find(';', pos);
      value = std::string(Trim(s.substr(pos, end == std::string_view::npos ? s.npos : end - pos)));
      pos = end;
    }
    out.params.emplace_back(name, std::move(value));
  }
  return out;
}

Result<std::string> MultipartBoundary(std::string_view content_type) {
  auto parsed = ParseHeaderParams(content_type);
  if (!parsed.ok()) return InvalidArgumentError("bad Content-Type: " + parsed.status().message());
  if (Lower(parsed->value) != "multipart/form-data") {
    return InvalidArgumentError(fmt::format("Content-Type must be multipart/form-data, got {:?}", content_type));
  }
  const std::string* boundary = parsed->Find("boundary");
  if (boundary == nullptr || boundary->empty()) {
    return InvalidArgumentError("the multipart/form-data Content-Type has no boundary parameter");
  }
  if (boundary->size() > 70) return InvalidArgumentError("the multipart boundary is longer than 70 characters");
  return *boundary;
}

Result<std::vector<api::FormPart>> ParseMultipart(std::string_view body, std::string_view boundary,
                                                  const MultipartLimits& limits) {
  if (boundary.empty()) return Malformed("empty boundary");
  const std::string delimiter = fmt::format("--{}", boundary);
  const std::string next_delimiter = "\r\n" + delimiter;
  size_t pos = 0;
  if (body.substr(0, delimiter.size()) != delimiter) {
    const size_t hit = body.find(next_delimiter);
    if (hit == std::string_view::npos) return Malformed("no boundary delimiter line");
    pos = hit + 2;
  }
  pos += delimiter.size();
  std::vector<api::FormPart> parts;
  for (;;) {
    if (body.substr(pos, 2) == "--") return parts;  // the close delimiter; the epilogue is ignored
    while (pos < body.size() && kWhitespace.find(body[pos]) != std::string_view::npos) ++pos;
    if (body.substr(pos, 2) != "\r\n") return Malformed("a boundary delimiter is not followed by CRLF");
    pos += 2;
    if (parts.size() >= limits.max_parts) return Malformed(fmt::format("more than {} parts", limits.max_parts));
    size_t header_end = pos;  // where the empty line that ends the headers starts
    if (body.substr(pos, 2) != "\r\n") {
      const size_t hit = body.substr(pos, limits.max_header_bytes + 4).find("\r\n\r\n");
      if (hit == std::string_view::npos) {
        return Malformed(body.size() - pos > limits.max_header_bytes
                             ? fmt::format("a part's headers are longer than {} bytes", limits.max_header_bytes)
                             : std::string("a part's headers do not end with an empty line"));
      }
      header_end = pos + hit + 2;
    }
    auto headers = ParsePartHeaders(body.substr(pos, header_end - pos == 0 ? 0 : header_end - pos - 2));
    if (!headers.ok()) return headers.status();
    const size_t data_begin = header_end + 2;
    const size_t data_end = body.find(next_delimiter, data_begin);
    if (data_end == std::string_view::npos) return Malformed("no closing boundary delimiter");
    auto part = MakePart(*headers, body.substr(data_begin, data_end - data_begin));
    if (!part.ok()) return part.status();
    parts.push_back(std::move(*part));
    pos = data_end + next_delimiter.size();
  }
}

}  // namespace gemmad::server
