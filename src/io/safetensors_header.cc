// Safetensors header parsing and validation (see safetensors_header.h for the rules enforced).
#include "io/safetensors_header.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "base/json_depth.h"
#include "base/strings.h"

namespace gemmad::io {
namespace {

using nlohmann::json;

constexpr int kMaxJsonDepth = 32;  // real headers nest 3 deep

struct DTypeBits {
  std::string_view name;
  int bits;
};
constexpr DTypeBits kDTypes[] = {
    {"BOOL", 8},    {"F4", 4},       {"F6_E2M3", 6},  {"F6_E3M2", 6}, {"U8", 8},
    {"I8", 8},      {"F8_E5M2", 8},  {"F8_E4M3", 8},  {"F8_E8M0", 8}, {"I16", 16},
    {"U16", 16},    {"F16", 16},     {"BF16", 16},    {"I32", 32},    {"U32", 32},
    {"F32", 32},    {"F64", 64},     {"I64", 64},     {"U64", 64},    {"C64", 64},
};

uint64_t ReadLe64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

// Parses JSON without exceptions, reporting duplicate object keys (which nlohmann would
// silently collapse) as `duplicate`.
json ParseJsonRejectingDuplicates(std::string_view text, std::string* duplicate) {
  std::vector<std::unordered_set<std::string>> keys;
  json::parser_callback_t cb = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys.empty() && parsed.is_string()) {
          const auto& k = parsed.get_ref<const std::string&>();
          if (!keys.back().insert(k).second && duplicate->empty()) *duplicate = k;
        }
        break;
      default:
        break;
    }
    return true;
  };
  return json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/false);
}

bool IsUnsigned(const json& v) { return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0); }

Status TensorError(std::string_view label, std::string_view name, std::string_view problem) {
  return DataLossError(fmt::format("{}: tensor '{}': {}", label, name, problem));
}

Result<SafetensorsTensorInfo> ParseTensorEntry(std::string_view label, const std::string& name,
                                               const json& entry) {
  if (!entry.is_object()) return TensorError(label, name, "entry is not a JSON object");
  SafetensorsTensorInfo info;
  info.name = name;
  auto dt = entry.find("dtype");
  if (dt == entry.end() || !dt->is_string()) return TensorError(label, name, "missing string field 'dtype'");
  info.dtype_name = dt->get<std::string>();
  std::optional<int> bits = SafetensorsDTypeBits(info.dtype_name);
  if (!bits) return TensorError(label, name, fmt::format("unknown dtype '{}'", info.dtype_name));
  info.element_bits = *bits;
  info.dtype = tensor::ParseDType(info.dtype_name);
  auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array()) return TensorError(label, name, "missing array field 'shape'");
  for (const json& d : *shape) {
    if (!IsUnsigned(d) || d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return TensorError(label, name, "shape must be an array of non-negative integers");
    }
    info.shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
  }
  auto off = entry.find("data_offsets");
  if (off == entry.end() || !off->is_array() || off->size() != 2 || !IsUnsigned((*off)[0]) ||
      !IsUnsigned((*off)[1])) {
    return TensorError(label, name, "data_offsets must be an array of two non-negative integers");
  }
  info.data_begin = (*off)[0].get<uint64_t>();
  info.data_end = (*off)[1].get<uint64_t>();
  if (info.data_end < info.data_begin) {
    return TensorError(label, name, fmt::format("data_offsets [{}, {}] are reversed", info.data_begin, info.data_end));
  }
  // Byte size implied by the shape, with overflow checks.
  uint64_t elements = 1;
  for (int64_t d : info.shape) {
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(d), &elements)) {
      return TensorError(label, name, "shape has too many elements");
    }
  }
  uint64_t bit_size = 0;
  if (__builtin_mul_overflow(elements, static_cast<uint64_t>(info.element_bits), &bit_size) ||
      elements > static_cast<uint64_t>(INT64_MAX)) {
    return TensorError(label, name, "shape has too many elements");
  }
  if (bit_size % 8 != 0) {
    return TensorError(label, name,
                       fmt::format("{} elements of {} is not a whole number of bytes", elements, info.dtype_name));
  }
  if (bit_size / 8 != info.size_bytes()) {
    return TensorError(label, name,
                       fmt::format("shape [{}] of {} needs {} bytes but data_offsets [{}, {}] hold {}",
                                   fmt::join(info.shape, ", "), info.dtype_name, bit_size / 8, info.data_begin,
                                   info.data_end, info.size_bytes()));
  }
  return info;
}

Status ParseMetadata(std::string_view label, const json& meta, std::map<std::string, std::string>* out) {
  if (meta.is_null()) return OkStatus();
  if (!meta.is_object()) return DataLossError(fmt::format("{}: __metadata__ is not a JSON object", label));
  for (const auto& [k, v] : meta.items()) {
    if (!v.is_string()) {
      return DataLossError(fmt::format("{}: __metadata__ value of '{}' is not a string", label, k));
    }
    (*out)[k] = v.get<std::string>();
  }
  return OkStatus();
}

// Checks that the tensors, in file order, tile the data section exactly.
Status CheckLayout(std::string_view label, const SafetensorsHeader& h) {
  uint64_t end = 0;
  std::string_view prev;
  for (const auto& t : h.tensors) {
    if (t.data_begin != end) {
      if (prev.empty()) {
        return DataLossError(fmt::format("{}: tensor '{}' starts at byte {} of the data section, expected 0 "
                                         "(offsets must be contiguous)", label, t.name, t.data_begin));
      }
      return DataLossError(fmt::format("{}: tensor '{}' starts at byte {} but tensor '{}' ends at byte {} "
                                       "(offsets must be contiguous and non-overlapping)",
                                       label, t.name, t.data_begin, prev, end));
    }
    end = t.data_end;
    prev = t.name;
  }
  if (end > h.data_bytes) {
    return DataLossError(fmt::format("{}: tensors need {} bytes of data but the file holds {} (truncated file?)",
                                     label, end, h.data_bytes));
  }
  if (end < h.data_bytes) {
    return DataLossError(fmt::format("{}: {} unexpected bytes after the last tensor", label, h.data_bytes - end));
  }
  return OkStatus();
}

}  // namespace

int64_t SafetensorsTensorInfo::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::optional<int> SafetensorsDTypeBits(std::string_view dtype_name) {
  for (const auto& d : kDTypes) {
    if (d.name == dtype_name) return d.bits;
  }
  return std::nullopt;
}

Result<SafetensorsHeader> ParseSafetensorsHeader(std::string_view prefix, uint64_t file_size,
                                                 std::string_view label) {
  if (file_size < 8) {
    return DataLossError(fmt::format("{}: file is {} bytes, too short for a safetensors header", label, file_size));
  }
  if (prefix.size() < 8) return DataLossError(fmt::format("{}: truncated before the header length", label));
  SafetensorsHeader h;
  h.header_bytes = ReadLe64(prefix.data());
  if (h.header_bytes > kMaxSafetensorsHeaderBytes) {
    return DataLossError(fmt::format("{}: header length {} exceeds the limit of {} bytes (not a safetensors file?)",
                                     label, h.header_bytes, kMaxSafetensorsHeaderBytes));
  }
  if (h.header_bytes > file_size - 8) {
    return DataLossError(fmt::format("{}: header length {} exceeds the file size {} (truncated file?)", label,
                                     h.header_bytes, file_size));
  }
  h.data_offset = 8 + h.header_bytes;
  h.data_bytes = file_size - h.data_offset;
  if (prefix.size() < h.data_offset) return DataLossError(fmt::format("{}: truncated inside the header", label));
  std::string_view text = prefix.substr(8, h.header_bytes);
  if (text.empty() || text[0] != '{') {
    return DataLossError(fmt::format("{}: header is not JSON (it must start with '{{')", label));
  }
  if (!IsValidUtf8(text)) return DataLossError(fmt::format("{}: header is not valid UTF-8", label));
  if (JsonNestingDepth(text, kMaxJsonDepth) > kMaxJsonDepth) return DataLossError(fmt::format("{}: header JSON is nested too deeply", label));
  std::string duplicate;
  json doc = ParseJsonRejectingDuplicates(text, &duplicate);
  if (doc.is_discarded()) return DataLossError(fmt::format("{}: header is not valid JSON", label));
  if (!doc.is_object()) return DataLossError(fmt::format("{}: header is not a JSON object", label));
  if (!duplicate.empty()) {
    return DataLossError(fmt::format("{}: header has the key '{}' more than once", label, duplicate));
  }
  for (const auto& [name, entry] : doc.items()) {
    if (name == "__metadata__") {
      GEMMAD_RETURN_IF_ERROR(ParseMetadata(label, entry, &h.metadata));
      continue;
    }
    GEMMAD_ASSIGN_OR_RETURN(auto info, ParseTensorEntry(label, name, entry));
    h.tensors.push_back(std::move(info));
  }
  std::sort(h.tensors.begin(), h.tensors.end(), [](const auto& a, const auto& b) {
    return a.data_begin != b.data_begin ? a.data_begin < b.data_begin : a.data_end < b.data_end;
  });
  GEMMAD_RETURN_IF_ERROR(CheckLayout(label, h));
  return h;
}

bool SafetensorsHeaderDecoder::Feed(std::string_view chunk) {
  if (result_) return false;
  buffer_.append(chunk);
  if (buffer_.size() < 8 && buffer_.size() < file_size_) return true;
  uint64_t need = 8;
  if (buffer_.size() >= 8) {
    uint64_t n = ReadLe64(buffer_.data());
    // Oversized or impossible lengths are rejected by the parser without waiting for more bytes.
    if (n <= kMaxSafetensorsHeaderBytes && file_size_ >= 8 && n <= file_size_ - 8) need = 8 + n;
  }
  if (buffer_.size() < need && buffer_.size() < file_size_) return true;
  result_.emplace(ParseSafetensorsHeader(buffer_, file_size_, label_));
  buffer_.clear();
  buffer_.shrink_to_fit();
  return false;
}

Result<SafetensorsHeader> SafetensorsHeaderDecoder::Finish() {
  if (!result_) {
    // Input ended early: the parser reports which part is missing.
    result_.emplace(ParseSafetensorsHeader(buffer_, file_size_, label_));
  }
  return *result_;
}

}  // namespace gemmad::io
