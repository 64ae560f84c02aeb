// HashFloatContent (see content_hash.h).
#include "mm/content_hash.h"

#include <cstdint>
#include <string>

#include "io/sha256.h"

namespace gemmad::mm {
namespace {

uint64_t Load64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

ContentHash HashFloatContent(std::string_view header, std::span<const float> values) {
  const std::string digest = io::Sha256Hex(
      std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  const std::string hex = io::Sha256Hex(std::string(header) + digest);
  unsigned char raw[32];
  for (int i = 0; i < 32; ++i) raw[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return ContentHash{Load64(raw), Load64(raw + 8)};
}

}  // namespace gemmad::mm
