// Fuzz target for the GGUF container reader: any bytes, read as a whole file, must either be
// rejected with a Status naming the file or yield a header whose tensors are aligned, inside the
// file and pairwise disjoint, with byte sizes that match their shapes and types.
// gemmad-fuzz-libs: gemmad_io
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "base/check.h"
#include "io/gguf_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gemmad::io::GgufTensorInfo;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto r = gemmad::io::ParseGguf(in, "fuzz");
  if (!r.ok()) {
    GEMMAD_CHECK(r.status().message().rfind("fuzz: ", 0) == 0, "error without the file label");
    return 0;
  }
  GEMMAD_CHECK(r->data_offset <= size, "data section starts past the end");
  GEMMAD_CHECK(r->alignment != 0 && (r->alignment & (r->alignment - 1)) == 0, "alignment not a power of two");
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const GgufTensorInfo& t : r->tensors) {
    GEMMAD_CHECK(!t.ne.empty() && t.ne.size() <= 4 && t.type != nullptr, "bad tensor info");
    GEMMAD_CHECK(t.offset % r->alignment == 0, "misaligned tensor");
    GEMMAD_CHECK(t.offset <= size - r->data_offset && t.size_bytes <= size - r->data_offset - t.offset,
                 "tensor outside the file");
    auto row = gemmad::io::GgmlRowBytes(*t.type, static_cast<uint64_t>(t.ne[0]));
    GEMMAD_CHECK(row.has_value(), "row not a whole number of blocks");
    uint64_t rows = static_cast<uint64_t>(t.num_elements()) / std::max<uint64_t>(1, static_cast<uint64_t>(t.ne[0]));
    GEMMAD_CHECK(t.ne[0] == 0 || t.size_bytes == *row * rows, "byte size does not match the shape");
    if (t.size_bytes > 0) spans.emplace_back(t.offset, t.offset + t.size_bytes);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t k = 1; k < spans.size(); ++k) GEMMAD_CHECK(spans[k - 1].second <= spans[k].first, "overlap");
  for (const auto& kv : r->metadata.entries()) {
    GEMMAD_CHECK(r->metadata.Find(kv.key) == &kv.value, "key index out of sync");
    (void)gemmad::io::FormatGgufValue(kv.value);
  }
  return 0;
}
