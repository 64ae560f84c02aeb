// Whole-file helpers for small files (configs, templates, JSON). Large weights use io/mmap.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace gemmad {

// Reads a file into memory. Errors name the path: "cannot open /x/y: No such file or directory".
Result<std::string> ReadFileToString(const std::string& path);
// Writes atomically (temp file + rename) so readers never see a partial file.
Status WriteStringToFile(const std::string& path, std::string_view contents);
bool FileExists(const std::string& path);
bool IsDirectory(const std::string& path);
// Joins path components with exactly one '/'.
std::string JoinPath(std::string_view a, std::string_view b);

}  // namespace gemmad
