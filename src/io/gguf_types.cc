// The ggml type table (spec gguf.md §4.1; sizes from ggml-common.h / gguf-py GGML_QUANT_SIZES).
#include "io/gguf_types.h"

#include <array>
#include <cstdint>

namespace gemmad::io {
namespace {

constexpr std::array<GgmlTypeInfo, 34> kGgmlTypes = {{
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

constexpr std::array<std::string_view, 13> kValueTypeNames = {
    "UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32",
    "BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64"};
constexpr std::array<uint32_t, 13> kValueTypeBytes = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

}  // namespace

const GgmlTypeInfo* FindGgmlType(uint32_t id) {
  for (const auto& t : kGgmlTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

std::optional<uint64_t> GgmlRowBytes(const GgmlTypeInfo& type, uint64_t elements) {
  if (elements % type.block_size != 0) return std::nullopt;
  uint64_t blocks = elements / type.block_size;
  if (blocks > UINT64_MAX / type.type_size) return std::nullopt;
  return blocks * type.type_size;
}

std::optional<GgufValueType> GgufValueTypeFromId(uint32_t id) {
  if (id >= kValueTypeNames.size()) return std::nullopt;
  return static_cast<GgufValueType>(id);
}

std::string_view GgufValueTypeName(GgufValueType type) {
  auto i = static_cast<uint32_t>(type);
  return i < kValueTypeNames.size() ? kValueTypeNames[i] : "UNKNOWN";
}

uint32_t GgufValueFixedBytes(GgufValueType type) {
  auto i = static_cast<uint32_t>(type);
  return i < kValueTypeBytes.size() ? kValueTypeBytes[i] : 0;
}

}  // namespace gemmad::io
