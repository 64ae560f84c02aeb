// Unicode normalization forms NFC, NFD, NFKC, NFKD (UAX #15) over the generated tables, matching
// the normalizers of HF `tokenizers` (see scripts/golden/tokenizer/gen_unicode_tables.py).
#pragma once

#include <string>
#include <string_view>

namespace gemmad::tokenizer::unicode {

enum class NormalForm { kNFC, kNFD, kNFKC, kNFKD };

// `s` must be valid UTF-8 (invalid bytes are read as U+FFFD).
std::string Normalize(std::string_view s, NormalForm form);

}  // namespace gemmad::tokenizer::unicode
