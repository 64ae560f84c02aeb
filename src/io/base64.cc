// DecodeBase64 over OpenSSL's EVP_DecodeBlock (the project already links libcrypto).
#include "io/base64.h"

#include <openssl/evp.h>

#include <string>

namespace gemmad::io {

Result<std::vector<uint8_t>> DecodeBase64(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    clean.push_back(c);
  }
  if (clean.size() % 4 != 0) return InvalidArgumentError("invalid base64: length is not a multiple of 4");
  size_t padding = 0;
  while (padding < 2 && padding < clean.size() && clean[clean.size() - 1 - padding] == '=') ++padding;
  if (clean.find('=') < clean.size() - padding) return InvalidArgumentError("invalid base64: '=' inside the data");
  std::vector<uint8_t> out(clean.size() / 4 * 3);
  if (clean.empty()) return out;
  int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(clean.data()),
                          static_cast<int>(clean.size()));
  if (n < 0) return InvalidArgumentError("invalid base64: a character outside the alphabet");
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

std::string EncodeBase64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace gemmad::io
