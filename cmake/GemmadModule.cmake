# gemmad_module(NAME [DEPS mod...] [LIBS target...])
#   One static library per module, gemmad_<NAME>, from src/<NAME>/**/*.cc (tests, CUDA sources and
#   other-ISA files excluded). Unit tests beside the code (*_test.cc) become <NAME>_unit_tests,
#   registered with the ctest label `unit` (a test file may add labels with GEMMAD_TEST_LABELS).
#   Files named *_avx2.cc / *_avx512.cc / *_avx512bf16.cc (BF16 and VBMI) / *_avx512vnni.cc get their ISA flags;
#   *_neon.cc builds only on ARM.
# gemmad_test(NAME SOURCES f... [LIBS t...] [LABELS l...])
#   A GoogleTest executable under tests/, discovered into ctest with the given labels.

set(GEMMAD_ISA_FLAGS_avx2 -mavx2 -mfma -mf16c)
set(GEMMAD_ISA_FLAGS_avx512 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma -mf16c)
set(GEMMAD_ISA_FLAGS_avx512bf16 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512bf16 -mavx512vbmi -mfma -mf16c)
set(GEMMAD_ISA_FLAGS_avx512vnni -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma -mf16c)

function(_gemmad_filter_sources out_var)
  set(result "")
  foreach(f IN LISTS ARGN)
    if(f MATCHES "_test\\.cc$" OR f MATCHES "/cuda/" OR f MATCHES "_fuzz\\.cc$")
      continue()
    endif()
    if(f MATCHES "_neon\\.cc$" AND NOT CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
      continue()
    endif()
    if(f MATCHES "_avx(2|512|512bf16|512vnni)\\.cc$" AND NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
      continue()
    endif()
    list(APPEND result ${f})
  endforeach()
  set(${out_var} ${result} PARENT_SCOPE)
endfunction()

function(_gemmad_apply_isa_flags)
  foreach(f IN LISTS ARGN)
    foreach(isa avx512bf16 avx512vnni avx512 avx2)
      if(f MATCHES "_${isa}(_test)?\\.cc$")
        set_source_files_properties(${f} PROPERTIES COMPILE_OPTIONS "${GEMMAD_ISA_FLAGS_${isa}}")
        break()
      endif()
    endforeach()
  endforeach()
endfunction()

# gemmad_test_defs(target): GEMMAD_SOURCE_DIR, GEMMAD_SHARED_DIR and GEMMAD_BINARY_DIR in the
# target's C++ sources, from tests/support/test_paths.h (force-included). The paths are compiled
# into one small library rather than defined on every compile line, so that ccache (CMakeLists.txt)
# hits across clones at different paths.
function(gemmad_test_defs target)
  if(NOT TARGET gemmad_test_paths)
    add_library(gemmad_test_paths STATIC ${GEMMAD_SOURCE_DIR}/tests/support/test_paths.cc)
    target_compile_definitions(gemmad_test_paths PRIVATE
      GEMMAD_TEST_PATH_SOURCE="${GEMMAD_SOURCE_DIR}"
      GEMMAD_TEST_PATH_SHARED="${GEMMAD_SHARED_DIR}"
      GEMMAD_TEST_PATH_BINARY="${CMAKE_BINARY_DIR}")
    target_compile_options(gemmad_test_paths INTERFACE
      "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include ${GEMMAD_SOURCE_DIR}/tests/support/test_paths.h>")
  endif()
  target_link_libraries(${target} PRIVATE gemmad_test_paths)
endfunction()

function(gemmad_module NAME)
  cmake_parse_arguments(M "" "" "DEPS;LIBS" ${ARGN})
  set(dir ${GEMMAD_SOURCE_DIR}/src/${NAME})
  file(GLOB_RECURSE all_sources CONFIGURE_DEPENDS ${dir}/*.cc)
  _gemmad_filter_sources(sources ${all_sources})
  set(target gemmad_${NAME})
  if(sources)
    add_library(${target} STATIC ${sources})
    _gemmad_apply_isa_flags(${sources})
    target_include_directories(${target} PUBLIC ${GEMMAD_SOURCE_DIR}/src)
    target_link_libraries(${target} PRIVATE gemmad_warnings)
    set(scope PUBLIC)
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${GEMMAD_SOURCE_DIR}/src)
    set(scope INTERFACE)
  endif()
  foreach(dep IN LISTS M_DEPS)
    target_link_libraries(${target} ${scope} gemmad_${dep})
  endforeach()
  if(M_LIBS)
    target_link_libraries(${target} ${scope} ${M_LIBS})
  endif()

  if(GEMMAD_BUILD_TESTS)
    file(GLOB_RECURSE test_sources CONFIGURE_DEPENDS ${dir}/*_test.cc)
    set(kept "")
    foreach(f IN LISTS test_sources)
      if(f MATCHES "/cuda/")
        continue()
      endif()
      if(f MATCHES "_neon_test\\.cc$" AND NOT CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
        continue()
      endif()
      list(APPEND kept ${f})
    endforeach()
    if(kept)
      add_executable(${NAME}_unit_tests ${kept})
      _gemmad_apply_isa_flags(${kept})
      target_link_libraries(${NAME}_unit_tests PRIVATE ${target} gemmad_warnings GTest::gmock GTest::gtest_main)
      gemmad_test_defs(${NAME}_unit_tests)
      gtest_discover_tests(${NAME}_unit_tests
        PROPERTIES LABELS unit
        DISCOVERY_TIMEOUT 120
        DISCOVERY_MODE PRE_TEST)
    endif()
  endif()
endfunction()

function(gemmad_test NAME)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  add_executable(${NAME} ${T_SOURCES})
  _gemmad_apply_isa_flags(${T_SOURCES})
  target_link_libraries(${NAME} PRIVATE ${T_LIBS} gemmad_warnings GTest::gmock GTest::gtest_main)
  gemmad_test_defs(${NAME})
  gtest_discover_tests(${NAME}
    PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
    DISCOVERY_TIMEOUT 120
    DISCOVERY_MODE PRE_TEST)
endfunction()

# gemmad_mpi_test(NAME TARGET target LABELS l... TIMEOUT s)
#   ctests NAME_np2 and NAME_np4: the executable under mpirun with 2 and 4 ranks (oversubscribed on
#   small machines; as root too; without the shared-memory single-copy path containers forbid).
function(gemmad_mpi_test NAME)
  cmake_parse_arguments(T "" "TARGET;TIMEOUT" "LABELS" ${ARGN})
  foreach(np 2 4)
    add_test(NAME ${NAME}_np${np}
      COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe
              --mca btl_vader_single_copy_mechanism none -np ${np} $<TARGET_FILE:${T_TARGET}>)
    set_tests_properties(${NAME}_np${np} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT})
  endforeach()
endfunction()
