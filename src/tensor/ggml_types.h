// The ggml tensor types (spec gguf.md §4.1; sizes from ggml-common.h / gguf-py GGML_QUANT_SIZES):
// id, name, elements per block and bytes per block. Types gemmad cannot compute with are still
// listed so that a GGUF file using them parses; ids the format retired or that gemmad does not
// know are absent (FindGgmlType returns nullptr). The table is constexpr so that block layouts
// (tensor/ggml_blocks.h) are checked against it at compile time. io's GGUF reader uses it too.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gemmad::tensor {

// The ggml type ids gemmad names in code (ggml.h `enum ggml_type`).
inline constexpr uint32_t kGgmlF32 = 0;
inline constexpr uint32_t kGgmlF16 = 1;
inline constexpr uint32_t kGgmlQ4_0 = 2;
inline constexpr uint32_t kGgmlQ4_1 = 3;
inline constexpr uint32_t kGgmlQ5_0 = 6;
inline constexpr uint32_t kGgmlQ5_1 = 7;
inline constexpr uint32_t kGgmlQ8_0 = 8;
inline constexpr uint32_t kGgmlQ2_K = 10;
inline constexpr uint32_t kGgmlQ3_K = 11;
inline constexpr uint32_t kGgmlQ4_K = 12;
inline constexpr uint32_t kGgmlQ5_K = 13;
inline constexpr uint32_t kGgmlQ6_K = 14;
inline constexpr uint32_t kGgmlQ8_K = 15;
inline constexpr uint32_t kGgmlIQ4_NL = 20;
inline constexpr uint32_t kGgmlIQ4_XS = 23;
inline constexpr uint32_t kGgmlBF16 = 30;
inline constexpr uint32_t kGgmlMXFP4 = 39;

struct GgmlTypeInfo {
  uint32_t id = 0;
  std::string_view name;    // ggml's spelling: "F32", "Q4_K", ...
  uint32_t block_size = 0;  // elements per block (1 for plain types)
  uint32_t type_size = 0;   // bytes per block
};

inline constexpr std::array<GgmlTypeInfo, 34> kGgmlTypes = {{
    {0, "F32", 1, 4},        {1, "F16", 1, 2},          {2, "Q4_0", 32, 18},
    {3, "Q4_1", 32, 20},     {6, "Q5_0", 32, 22},       {7, "Q5_1", 32, 24},
    {8, "Q8_0", 32, 34},     {9, "Q8_1", 32, 36},       {10, "Q2_K", 256, 84},
    {11, "Q3_K", 256, 110},  {12, "Q4_K", 256, 144},    {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},  {15, "Q8_K", 256, 292},    {16, "IQ2_XXS", 256, 66},
    {17, "IQ2_XS", 256, 74}, {18, "IQ3_XXS", 256, 98},  {19, "IQ1_S", 256, 50},
    {20, "IQ4_NL", 32, 18},  {21, "IQ3_S", 256, 110},   {22, "IQ2_S", 256, 82},
    {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {25, "I16", 1, 2},
    {26, "I32", 1, 4},       {27, "I64", 1, 8},         {28, "F64", 1, 8},
    {29, "IQ1_M", 256, 56},  {30, "BF16", 1, 2},        {34, "TQ1_0", 256, 54},
    {35, "TQ2_0", 256, 66},  {39, "MXFP4", 32, 17},     {40, "NVFP4", 64, 36},
    {41, "Q1_0", 128, 18},
}};

// The ggml type with this id; nullptr for a retired or unknown id.
constexpr const GgmlTypeInfo* FindGgmlType(uint32_t id) {
  for (const GgmlTypeInfo& t : kGgmlTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

// Bytes of a row of `elements` elements of `type`; nullopt when `elements` is not a whole number
// of blocks or the byte count overflows uint64.
std::optional<uint64_t> GgmlRowBytes(const GgmlTypeInfo& type, uint64_t elements);

}  // namespace gemmad::tensor
