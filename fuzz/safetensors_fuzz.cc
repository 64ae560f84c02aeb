// Fuzz target for the safetensors header parser: any bytes, read as a whole file, must either be
// rejected with a Status or yield a header whose tensors tile the data section inside the file;
// the chunked decoder must agree with the one-shot parse.
// gemmad-fuzz-libs: gemmad_io
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "io/safetensors_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gemmad::io::ParseSafetensorsHeader;
  using gemmad::io::SafetensorsHeaderDecoder;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto r = ParseSafetensorsHeader(in, size, "fuzz");
  if (r.ok()) {
    uint64_t end = 0;
    for (const auto& t : r->tensors) {
      GEMMAD_CHECK(t.data_begin == end && t.data_end >= t.data_begin, "tensors do not tile");
      GEMMAD_CHECK(r->data_offset + t.data_end <= size, "tensor outside the file");
      GEMMAD_CHECK(t.element_bits > 0, "dtype without a width");
      end = t.data_end;
    }
    GEMMAD_CHECK(end == r->data_bytes, "data section not covered");
  } else {
    GEMMAD_CHECK(!r.status().message().empty(), "error without a message");
  }
  SafetensorsHeaderDecoder dec(size, "fuzz");
  size_t chunk = 1 + size % 13;
  for (size_t pos = 0; pos < size; pos += chunk) {
    if (!dec.Feed(in.substr(pos, chunk))) break;
  }
  auto chunked = dec.Finish();
  GEMMAD_CHECK(chunked.ok() == r.ok(), "chunked and one-shot parses disagree");
  if (!r.ok()) GEMMAD_CHECK(chunked.status() == r.status(), "different errors");
  return 0;
}
