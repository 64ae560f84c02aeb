// Fuzz target for the tokenizer: encode/decode never crash, ids stay in range, decode(encode(x))
// == x for normalised text (Gemma 4: text without U+2581; byte-level GPT-2 style: NFC text), and
// the incremental detokenizer gives valid UTF-8 pieces that concatenate to Decode() however the
// ids are chunked (for encoded ids and for arbitrary ids taken from the input).
// Input: byte 0 picks the tokenizer and flags, the rest is the text (also read as ids).
// gemmad-fuzz-libs: gemmad_tokenizer
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "base/check.h"
#include "base/strings.h"
#include "tokenizer/incremental_detokenizer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode_norm.h"

namespace {

using gemmad::tokenizer::Tokenizer;

// The checkout: $GEMMAD_SOURCE_DIR, else the build's own path (tests/support/test_paths.h; not
// __FILE__, which a compiler cache may make relative to the build directory).
std::string SourceDir() {
  if (const char* env = std::getenv("GEMMAD_SOURCE_DIR")) return env;
  return GEMMAD_SOURCE_DIR;
}

struct Entry {
  std::unique_ptr<Tokenizer> tok;
  enum { kGemma, kNfcByteLevel, kNone } round_trip;
};

const std::vector<Entry>& Tokenizers() {
  static const auto* all = [] {
    auto* v = new std::vector<Entry>();
    const std::string root = SourceDir(), golden = root + "/tests/golden/tokenizer/trained/";
    auto add = [&](const std::string& path, decltype(Entry::round_trip) rt) {
      auto tok = Tokenizer::Load(path);
      GEMMAD_CHECK(tok.ok(), "fuzz: {}", tok.status().ToString());
      v->push_back({std::move(tok).value(), rt});
    };
    add(root + "/../shared/data/tokenizers/gemma4", Entry::kGemma);
    add(golden + "bytelevel_gpt2.json", Entry::kNfcByteLevel);
    add(golden + "metaspace_bytefallback.json", Entry::kNone);
    add(golden + "llama2_prepend_strip.json", Entry::kNone);
    add(golden + "split_llama3.json", Entry::kNone);
    add(golden + "split_behaviors.json", Entry::kNone);
    return v;
  }();
  return *all;
}

void CheckStreaming(const Tokenizer& tok, const std::vector<int32_t>& ids, bool skip, uint8_t chunking) {
  const std::string want = tok.Decode(ids, skip);
  gemmad::tokenizer::IncrementalDetokenizer d(tok, skip);
  std::string got;
  size_t i = 0, k = 0;
  while (i < ids.size()) {
    size_t n = 1 + ((chunking >> (k++ % 8)) & 3);
    n = std::min(n, ids.size() - i);
    std::string piece = d.StepMany(ids.data() + i, n);
    GEMMAD_CHECK(gemmad::IsValidUtf8(piece), "detokenizer emitted broken UTF-8");
    got += piece;
    i += n;
  }
  got += d.Flush();
  GEMMAD_CHECK(got == want, "streamed text differs from Decode");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& all = Tokenizers();
  const uint8_t control = data[0];
  const Entry& e = all[control % all.size()];
  const Tokenizer& tok = *e.tok;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const bool add_special = (control & 0x40) != 0, skip = (control & 0x80) != 0;

  std::vector<int32_t> ids = tok.Encode(text, add_special);
  for (int32_t id : ids) GEMMAD_CHECK(id >= 0 && id < tok.vocab_size(), "id {} out of range", id);
  if (gemmad::IsValidUtf8(text) && !add_special) {
    std::string decoded = tok.Decode(ids, false);
    if (e.round_trip == Entry::kGemma && text.find("\xE2\x96\x81") == std::string::npos) {
      GEMMAD_CHECK(decoded == text, "gemma4: decode(encode(x)) != x");
    } else if (e.round_trip == Entry::kNfcByteLevel) {
      using gemmad::tokenizer::unicode::NormalForm;
      if (gemmad::tokenizer::unicode::Normalize(text, NormalForm::kNFC) == text) {
        GEMMAD_CHECK(decoded == text, "byte-level: decode(encode(x)) != x for NFC text");
      }
    }
  }
  CheckStreaming(tok, ids, skip, control);
  // Arbitrary ids (including out-of-range ones, which Decode skips) from the input bytes.
  std::vector<int32_t> raw;
  for (size_t i = 1; i + 3 <= size; i += 3) {
    int32_t id = static_cast<int32_t>((data[i] | (data[i + 1] << 8) | (data[i + 2] << 16)) % (tok.vocab_size() + 8));
    raw.push_back(id);
  }
  std::vector<int32_t> valid;
  for (int32_t id : raw) {
    if (id < tok.vocab_size()) valid.push_back(id);
  }
  (void)tok.Decode(raw, skip);
  CheckStreaming(tok, valid, skip, static_cast<uint8_t>(control * 7));
  return 0;
}
