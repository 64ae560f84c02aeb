// The one object that holds the build's absolute paths (see test_paths.h).
#include "test_paths.h"

namespace gemmad::test_paths {
const char* SourceDir() { return GEMMAD_TEST_PATH_SOURCE; }
const char* SharedDir() { return GEMMAD_TEST_PATH_SHARED; }
const char* BinaryDir() { return GEMMAD_TEST_PATH_BINARY; }
}  // namespace gemmad::test_paths
