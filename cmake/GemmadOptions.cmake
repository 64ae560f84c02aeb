# Compiler warnings and sanitizer switches shared by every target.
add_library(gemmad_warnings INTERFACE)
target_compile_options(gemmad_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${GEMMAD_WERROR}>>:-Werror>)

set(GEMMAD_SANITIZE "" CACHE STRING "Sanitizers: '', 'address,undefined' or 'thread'")
if(GEMMAD_SANITIZE)
  add_compile_options(-fsanitize=${GEMMAD_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${GEMMAD_SANITIZE})
endif()

# GEMMAD_ASSERTIONS keeps GEMMAD_DCHECK active in optimised builds (the CI build).
option(GEMMAD_ASSERTIONS "Enable GEMMAD_DCHECK in optimised builds" OFF)
if(GEMMAD_ASSERTIONS)
  add_compile_definitions(GEMMAD_ENABLE_DCHECK=1)
endif()
