# Cross compilation for 64-bit ARM Linux with Debian's cross toolchain (g++-aarch64-linux-gnu);
# target programs run under qemu-user (qemu-aarch64 -L /usr/aarch64-linux-gnu), so ctest and
# gtest_discover_tests execute the aarch64 tests on an x86-64 host. Used by the `aarch64`
# preset, a kernels-only build (cmake/GemmadKernelsOnly.cmake) that needs no arm64 libraries.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(GEMMAD_CROSS_TRIPLE aarch64-linux-gnu)
set(GEMMAD_CROSS_SYSROOT /usr/${GEMMAD_CROSS_TRIPLE})
set(CMAKE_C_COMPILER ${GEMMAD_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${GEMMAD_CROSS_TRIPLE}-g++)

# Libraries, headers and packages only from the target's tree; programs from the host.
set(CMAKE_FIND_ROOT_PATH ${GEMMAD_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# qemu-user (Debian package qemu-user; qemu-user-static installs the -static name).
find_program(GEMMAD_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static NO_CMAKE_FIND_ROOT_PATH)
if(GEMMAD_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${GEMMAD_QEMU_AARCH64} -L ${GEMMAD_CROSS_SYSROOT})
endif()
