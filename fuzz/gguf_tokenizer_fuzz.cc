// Fuzz target for the GGUF tokenizer: any bytes, read as a GGUF file, either fail (the container
// or the tokenizer metadata, with a Status naming the origin) or give a tokenizer that encodes and
// decodes a fixed text with ids in range. Seeds: fuzz/corpus/gguf_tokenizer (written by
// DISABLED_WriteFuzzCorpus in src/tokenizer/gguf_tokenizer_test.cc).
// gemmad-fuzz-libs: gemmad_tokenizer gemmad_io
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "io/gguf_file.h"
#include "tokenizer/gguf_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto header = gemmad::io::ParseGguf(in, "fuzz");
  if (!header.ok()) return 0;
  (void)gemmad::tokenizer::GgufChatTemplate(header->metadata);
  auto tok = gemmad::tokenizer::TokenizerFromGguf(header->metadata, "fuzz");
  if (!tok.ok()) {
    GEMMAD_CHECK(tok.status().message().rfind("fuzz: ", 0) == 0, "error without the origin");
    return 0;
  }
  const auto& t = **tok;
  for (bool special : {false, true}) {
    const auto ids = t.Encode("ab a\n\n<bos><|turn>\xC3\xA9 \xE2\x96\x81\xE2\x96\x81", special);
    for (int32_t id : ids) GEMMAD_CHECK(id >= 0 && id < t.vocab_size(), "id out of range");
    (void)t.Decode(ids, special);
  }
  return 0;
}
