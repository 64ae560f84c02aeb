// Where tests and benchmarks find the checkout, ../shared and the build tree.
// Force-included (-include) into every test and benchmark translation unit by gemmad_test_defs()
// (cmake/GemmadModule.cmake). The absolute paths live in one object, test_paths.cc, instead of in
// compile definitions on every test: no other compile line then holds the checkout's path, and
// ccache hits across clones at different paths (CI builds a fresh clone).
#pragma once

namespace gemmad::test_paths {
const char* SourceDir();  // the checkout
const char* SharedDir();  // the read-only ../shared
const char* BinaryDir();  // the CMake build tree
}  // namespace gemmad::test_paths

#define GEMMAD_SOURCE_DIR (::gemmad::test_paths::SourceDir())
#define GEMMAD_SHARED_DIR (::gemmad::test_paths::SharedDir())
#define GEMMAD_BINARY_DIR (::gemmad::test_paths::BinaryDir())
