// <immintrin.h> for the AVX-512 translation units, with GCC 12's warnings about the intrinsics'
// undefined pass-through operands (reported as uninitialised, GCC bug 105593) silenced for the
// header's own lines. Intrinsics only: safe to include from ISA-flagged files.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
