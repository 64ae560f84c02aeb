// Fuzz target: a Content-Type line, then a multipart/form-data body (server/multipart.h). Must
// never crash, hang or abort; and whatever parses must parse again to the same parts once
// written back out with the same boundary (names, file names, types and bytes survive).
// gemmad-fuzz-libs: gemmad_server gemmad_api
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/multipart.h"

namespace {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string Write(const std::vector<gemmad::api::FormPart>& parts, const std::string& boundary) {
  std::string out;
  for (const auto& p : parts) {
    out += "--" + boundary + "\r\nContent-Disposition: form-data; name=" + Quote(p.name);
    if (p.filename) out += "; filename=" + Quote(*p.filename);
    out += "\r\n";
    if (!p.content_type.empty()) out += "Content-Type: " + p.content_type + "\r\n";
    out += "\r\n" + p.data + "\r\n";
  }
  return out + "--" + boundary + "--\r\n";
}

bool Same(const gemmad::api::FormPart& a, const gemmad::api::FormPart& b) {
  return a.name == b.name && a.filename == b.filename && a.content_type == b.content_type && a.data == b.data;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gemmad;  // NOLINT
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t eol = in.find('\n');
  if (eol == std::string_view::npos) {
    (void)server::MultipartBoundary(in);
    return 0;
  }
  auto boundary = server::MultipartBoundary(in.substr(0, eol));
  if (!boundary.ok()) return 0;
  server::MultipartLimits limits{16, 256};
  auto parts = server::ParseMultipart(in.substr(eol + 1), *boundary, limits);
  if (!parts.ok()) return 0;
  // Written back, the header blocks may grow (escapes, our header names): a roomier limit.
  auto again = server::ParseMultipart(Write(*parts, *boundary), *boundary, {16, 4096});
  if (!again.ok() || again->size() != parts->size()) std::abort();
  for (size_t i = 0; i < parts->size(); ++i) {
    if (!Same((*parts)[i], (*again)[i])) std::abort();
  }
  return 0;
}
