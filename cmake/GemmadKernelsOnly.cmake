# Kernels-only build (GEMMAD_KERNELS_ONLY=ON; the `aarch64` cross preset): the base, tensor and
# kernels modules and the kernel parity test (tests/kernels), nothing else. It needs no library
# built for the target beyond its C/C++ runtime, so a cross build works with Debian's amd64
# packages alone: GoogleTest is compiled from Debian's sources (/usr/src/googletest, package
# libgtest-dev) and fmt is used header-only from libfmt-dev's headers (FMT_HEADER_ONLY).
# Included from the top-level CMakeLists.txt, which returns right after.

find_package(Threads REQUIRED)

# fmt, header-only. Only the fmt/ directory is put on the include path (through a link in the
# build tree), never the host's whole /usr/include.
set(GEMMAD_FMT_INCLUDE /usr/include/fmt CACHE PATH "fmt headers (Debian libfmt-dev)")
if(NOT EXISTS ${GEMMAD_FMT_INCLUDE}/format-inl.h)
  message(FATAL_ERROR "GEMMAD_KERNELS_ONLY: no fmt headers at ${GEMMAD_FMT_INCLUDE} (install libfmt-dev)")
endif()
set(fmt_dir ${CMAKE_BINARY_DIR}/fmt-include)
file(MAKE_DIRECTORY ${fmt_dir})
file(CREATE_LINK ${GEMMAD_FMT_INCLUDE} ${fmt_dir}/fmt SYMBOLIC)
add_library(gemmad_fmt_header_only INTERFACE)
target_include_directories(gemmad_fmt_header_only SYSTEM INTERFACE ${fmt_dir})
target_compile_definitions(gemmad_fmt_header_only INTERFACE FMT_HEADER_ONLY=1)
add_library(fmt::fmt ALIAS gemmad_fmt_header_only)

set(GEMMAD_SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
set(GEMMAD_SHARED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/../shared" CACHE PATH "The read-only shared data folder")

# The three modules as in src/CMakeLists.txt, without their unit tests (CI time).
set(GEMMAD_BUILD_TESTS OFF)
gemmad_module(base LIBS fmt::fmt Threads::Threads)
gemmad_module(tensor DEPS base)
gemmad_module(kernels DEPS base tensor)
unset(GEMMAD_BUILD_TESTS)  # the cache option again

# GoogleTest from source (defines GTest::gtest, GTest::gtest_main, GTest::gmock).
set(GEMMAD_GTEST_SOURCE /usr/src/googletest CACHE PATH "GoogleTest sources (Debian libgtest-dev)")
if(NOT EXISTS ${GEMMAD_GTEST_SOURCE}/CMakeLists.txt)
  message(FATAL_ERROR "GEMMAD_KERNELS_ONLY: no GoogleTest sources at ${GEMMAD_GTEST_SOURCE} (install libgtest-dev)")
endif()
set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
add_subdirectory(${GEMMAD_GTEST_SOURCE} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)

enable_testing()
include(GoogleTest)
add_subdirectory(tests/kernels)
