// Test-only GGUF writer: builds GGUF files in memory, well-formed by default, with knobs to craft
// hostile ones (raw records, explicit offsets, wrong versions). Header-only so that no library
// links it; used by gguf_file_test.cc and to regenerate fuzz/corpus/gguf.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gemmad::io::testing {

inline void PutU32(std::string& out, uint32_t v) {
  for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
}
inline void PutU64(std::string& out, uint64_t v) {
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
}
inline void PutStr(std::string& out, std::string_view s) {
  PutU64(out, s.size());
  out += s;
}
template <typename T>
void PutRaw(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

// The little-endian bytes of `v` as F32 tensor data.
inline std::string F32s(std::initializer_list<float> v) {
  std::string out(v.size() * 4, '\0');
  std::memcpy(out.data(), std::data(v), out.size());
  return out;
}

class GgufTestWriter {
 public:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> ne;
    uint32_t type = 0;
    std::string data;                // written at the tensor's offset
    std::optional<uint64_t> offset;  // default: packed after the previous tensor, aligned
  };

  uint32_t version = 3;
  uint32_t alignment = 32;  // used for padding; add general.alignment yourself to change the reader's
  std::optional<uint64_t> n_kv_override, n_tensors_override;

  // A record with a raw value encoding (type id + payload).
  void AddRaw(std::string_view key, uint32_t type, std::string payload) {
    std::string r;
    PutStr(r, key);
    PutU32(r, type);
    records_.push_back(r + payload);
  }
  void AddU32(std::string_view key, uint32_t v) { std::string p; PutU32(p, v); AddRaw(key, 4, p); }
  void AddString(std::string_view key, std::string_view v) { std::string p; PutStr(p, v); AddRaw(key, 8, p); }
  // An array of fixed-size elements given as raw bytes, or of strings.
  void AddArray(std::string_view key, uint32_t elem_type, uint64_t count, std::string elems) {
    std::string p;
    PutU32(p, elem_type);
    PutU64(p, count);
    AddRaw(key, 9, p + elems);
  }
  void AddTensor(Tensor t) { tensors_.push_back(std::move(t)); }

  std::string Build() const {
    std::string out = "GGUF";
    PutU32(out, version);
    PutU64(out, n_tensors_override.value_or(tensors_.size()));
    PutU64(out, n_kv_override.value_or(records_.size()));
    for (const auto& r : records_) out += r;
    std::vector<uint64_t> offsets;
    uint64_t next = 0;
    for (const auto& t : tensors_) {
      uint64_t off = t.offset.value_or(next);
      offsets.push_back(off);
      next = Pad(off + t.data.size());
      PutStr(out, t.name);
      PutU32(out, static_cast<uint32_t>(t.ne.size()));
      for (uint64_t d : t.ne) PutU64(out, d);
      PutU32(out, t.type);
      PutU64(out, off);
    }
    if (tensors_.empty()) return out;
    out.resize(Pad(out.size()), '\0');
    size_t data = out.size();
    for (size_t k = 0; k < tensors_.size(); ++k) {
      if (tensors_[k].data.empty()) continue;
      size_t at = data + offsets[k];
      if (out.size() < at + tensors_[k].data.size()) out.resize(at + tensors_[k].data.size(), '\0');
      out.replace(at, tensors_[k].data.size(), tensors_[k].data);
    }
    out.resize(Pad(out.size()), '\0');
    return out;
  }

 private:
  uint64_t Pad(uint64_t n) const { return (n + alignment - 1) / alignment * alignment; }
  std::vector<std::string> records_;
  std::vector<Tensor> tensors_;
};

}  // namespace gemmad::io::testing
