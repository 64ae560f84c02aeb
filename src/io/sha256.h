// SHA-256 of files and strings (OpenSSL libcrypto), hex-encoded lower case.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace gemmad::io {

std::string Sha256Hex(std::string_view data);
Result<std::string> Sha256FileHex(const std::string& path);

}  // namespace gemmad::io
