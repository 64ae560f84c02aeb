// Fuzz target for the mmproj reader (model/gguf_mmproj.h): any bytes, opened as an mmproj GGUF
// file, either fail with a Status naming the file or give encoder configs and tensors that are
// consistent: every tensor viewable, its element count matching its shape, a config for each
// encoder that has tensors. Seeds: fuzz/corpus/gguf_mmproj (written by DISABLED_WriteFuzzCorpus in
// src/model/gguf_mmproj_test.cc).
// gemmad-fuzz-libs: gemmad_model gemmad_io
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/check.h"
#include "model/gguf_mmproj.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("mmproj", 0);
  GEMMAD_CHECK(fd >= 0, "memfd_create failed");
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    GEMMAD_CHECK(n > 0, "write failed");
    done += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  auto r = gemmad::model::OpenGgufMmproj(path);
  if (!r.ok()) {
    GEMMAD_CHECK(r.status().message().find(path) != std::string::npos, "error without the file name");
  } else {
    const gemmad::model::GgufMmproj& m = **r;
    GEMMAD_CHECK(!m.vision_config.is_null() || !m.audio_config.is_null(), "no encoder");
    GEMMAD_CHECK(m.projection_dim > 0, "no projection width");
    for (const auto& t : m.tensors) {
      int64_t n = 1;
      for (int64_t d : t.info.shape) n *= d;
      GEMMAD_CHECK(t.view.data != nullptr && t.view.NumElements() == n, "view does not match the shape");
      GEMMAD_CHECK(t.info.dtype.has_value() && *t.info.dtype == t.view.dtype, "dtype out of sync");
      const bool vision = t.hf_name.find("vision") != std::string::npos;
      GEMMAD_CHECK(vision ? !m.vision_config.is_null() : !m.audio_config.is_null(), "tensor of an undeclared encoder");
    }
  }
  close(fd);
  return 0;
}
