// GGUF container parsing (spec gguf.md §1.1-§1.7).
#include "io/gguf_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

namespace gemmad::io {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as little-endian uint32

// Little-endian reads over the file with bounds checks; errors name the label and the position.
class Cursor {
 public:
  Cursor(std::string_view data, std::string_view label) : data_(data), label_(label) {}

  size_t pos() const { return pos_; }
  uint64_t remaining() const { return data_.size() - pos_; }
  Status Error(std::string_view what) const {
    return DataLossError(fmt::format("{}: {} (at byte {})", label_, what, pos_));
  }

  template <typename T>
  Result<T> Read(std::string_view what) {
    if (remaining() < sizeof(T)) return Error(fmt::format("file truncated reading {}", what));
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));  // host is little-endian (x86/ARM)
    pos_ += sizeof(T);
    return v;
  }

  Result<std::string> ReadString(std::string_view what) {
    GEMMAD_ASSIGN_OR_RETURN(uint64_t n, Read<uint64_t>(what));
    if (n > kGgufMaxElements) return Error(fmt::format("{} length {} exceeds 2^30", what, n));
    if (n > remaining()) return Error(fmt::format("{} length {} runs past the end of the file", what, n));
    std::string s(data_.substr(pos_, n));
    pos_ += n;
    return s;
  }

 private:
  std::string_view data_;
  std::string_view label_;
  size_t pos_ = 0;
};

Status ReadArray(Cursor& c, std::string_view key, int depth, GgufArray& out);

// Reads one scalar (not ARRAY) of `type` into `v`.
Status ReadScalar(Cursor& c, std::string_view key, GgufValueType type, GgufValue& v) {
  v.type = type;
  switch (type) {
    case GgufValueType::kUint8: { GEMMAD_ASSIGN_OR_RETURN(v.u, c.Read<uint8_t>(key)); break; }
    case GgufValueType::kUint16: { GEMMAD_ASSIGN_OR_RETURN(v.u, c.Read<uint16_t>(key)); break; }
    case GgufValueType::kUint32: { GEMMAD_ASSIGN_OR_RETURN(v.u, c.Read<uint32_t>(key)); break; }
    case GgufValueType::kUint64: { GEMMAD_ASSIGN_OR_RETURN(v.u, c.Read<uint64_t>(key)); break; }
    case GgufValueType::kInt8: { GEMMAD_ASSIGN_OR_RETURN(v.i, c.Read<int8_t>(key)); break; }
    case GgufValueType::kInt16: { GEMMAD_ASSIGN_OR_RETURN(v.i, c.Read<int16_t>(key)); break; }
    case GgufValueType::kInt32: { GEMMAD_ASSIGN_OR_RETURN(v.i, c.Read<int32_t>(key)); break; }
    case GgufValueType::kInt64: { GEMMAD_ASSIGN_OR_RETURN(v.i, c.Read<int64_t>(key)); break; }
    case GgufValueType::kFloat32: { GEMMAD_ASSIGN_OR_RETURN(v.f, c.Read<float>(key)); break; }
    case GgufValueType::kFloat64: { GEMMAD_ASSIGN_OR_RETURN(v.f, c.Read<double>(key)); break; }
    case GgufValueType::kBool: {
      GEMMAD_ASSIGN_OR_RETURN(v.u, c.Read<uint8_t>(key));
      if (v.u > 1) return c.Error(fmt::format("key '{}': BOOL value {} is not 0 or 1", key, v.u));
      break;
    }
    case GgufValueType::kString: { GEMMAD_ASSIGN_OR_RETURN(v.s, c.ReadString(key)); break; }
    case GgufValueType::kArray: return c.Error(fmt::format("key '{}': unexpected ARRAY", key));
  }
  return Status::Ok();
}

Result<GgufValueType> ReadType(Cursor& c, std::string_view key) {
  GEMMAD_ASSIGN_OR_RETURN(uint32_t id, c.Read<uint32_t>(key));
  auto type = GgufValueTypeFromId(id);
  if (!type) return c.Error(fmt::format("key '{}': unknown value type {}", key, id));
  return *type;
}

Status ReadArray(Cursor& c, std::string_view key, int depth, GgufArray& out) {
  if (depth > kGgufMaxArrayDepth) return c.Error(fmt::format("key '{}': arrays nested too deeply", key));
  GEMMAD_ASSIGN_OR_RETURN(out.elem_type, ReadType(c, key));
  GEMMAD_ASSIGN_OR_RETURN(uint64_t n, c.Read<uint64_t>(key));
  uint64_t min_bytes = GgufValueFixedBytes(out.elem_type);
  if (out.elem_type == GgufValueType::kString) min_bytes = 8;
  if (out.elem_type == GgufValueType::kArray) min_bytes = 12;
  if (n > kGgufMaxElements || n > c.remaining() / min_bytes) {
    return c.Error(fmt::format("key '{}': array of {} {} does not fit in the file", key, n,
                               GgufValueTypeName(out.elem_type)));
  }
  GgufValue v;
  for (uint64_t k = 0; k < n; ++k) {
    if (out.elem_type == GgufValueType::kArray) {
      out.a.emplace_back();
      GEMMAD_RETURN_IF_ERROR(ReadArray(c, key, depth + 1, out.a.back()));
      continue;
    }
    GEMMAD_RETURN_IF_ERROR(ReadScalar(c, key, out.elem_type, v));
    switch (out.elem_type) {
      case GgufValueType::kInt8: case GgufValueType::kInt16: case GgufValueType::kInt32:
      case GgufValueType::kInt64: out.i.push_back(v.i); break;
      case GgufValueType::kFloat32: case GgufValueType::kFloat64: out.f.push_back(v.f); break;
      case GgufValueType::kString: out.s.push_back(std::move(v.s)); break;
      default: out.u.push_back(v.u); break;
    }
  }
  return Status::Ok();
}

Status ReadMetadata(Cursor& c, uint64_t n_kv, GgufMetadata& md) {
  for (uint64_t k = 0; k < n_kv; ++k) {
    GgufKeyValue kv;
    GEMMAD_ASSIGN_OR_RETURN(kv.key, c.ReadString("metadata key"));
    if (kv.key.empty()) return c.Error("empty metadata key");
    if (kv.key.size() > 65535) return c.Error("metadata key longer than 65535 bytes");
    GEMMAD_ASSIGN_OR_RETURN(GgufValueType type, ReadType(c, kv.key));
    if (type == GgufValueType::kArray) {
      kv.value.type = type;
      GEMMAD_RETURN_IF_ERROR(ReadArray(c, kv.key, 1, kv.value.array));
    } else {
      GEMMAD_RETURN_IF_ERROR(ReadScalar(c, kv.key, type, kv.value));
    }
    std::string key = kv.key;
    if (!md.Add(std::move(kv))) return c.Error(fmt::format("duplicate metadata key '{}'", key));
  }
  return Status::Ok();
}

Status ReadTensorInfo(Cursor& c, GgufTensorInfo& t) {
  GEMMAD_ASSIGN_OR_RETURN(t.name, c.ReadString("tensor name"));
  if (t.name.empty() || t.name.size() > kGgufMaxTensorName) {
    return c.Error(fmt::format("tensor name '{}' is empty or longer than {} bytes", t.name, kGgufMaxTensorName));
  }
  auto err = [&c, &t](std::string_view what) { return c.Error(fmt::format("tensor '{}': {}", t.name, what)); };
  GEMMAD_ASSIGN_OR_RETURN(uint32_t n_dims, c.Read<uint32_t>("n_dims"));
  if (n_dims < 1 || n_dims > kGgufMaxDims) return err(fmt::format("{} dims (1..4 allowed)", n_dims));
  uint64_t elements = 1, rows = 1;
  for (uint32_t d = 0; d < n_dims; ++d) {
    GEMMAD_ASSIGN_OR_RETURN(uint64_t ne, c.Read<uint64_t>("ne"));
    if (ne > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return err("dimension out of range");
    if (ne != 0 && elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / ne) {
      return err("element count overflows");
    }
    elements *= ne;
    if (d > 0) rows *= ne;
    t.ne.push_back(static_cast<int64_t>(ne));
  }
  GEMMAD_ASSIGN_OR_RETURN(uint32_t type_id, c.Read<uint32_t>("tensor type"));
  t.type = FindGgmlType(type_id);
  if (t.type == nullptr) return err(fmt::format("unknown or unsupported ggml type {}", type_id));
  auto row = GgmlRowBytes(*t.type, static_cast<uint64_t>(t.ne[0]));
  if (!row) {
    return err(fmt::format("ne[0] = {} is not a multiple of the {} block size {}", t.ne[0], t.type->name,
                           t.type->block_size));
  }
  if (rows != 0 && *row > std::numeric_limits<uint64_t>::max() / rows) return err("byte size overflows");
  t.size_bytes = *row * rows;
  GEMMAD_ASSIGN_OR_RETURN(t.offset, c.Read<uint64_t>("tensor offset"));
  return Status::Ok();
}

// Checks offsets against the alignment, the data section and each other.
Status CheckTensorSpans(const GgufHeader& h, uint64_t file_size, std::string_view label) {
  uint64_t data_bytes = file_size - h.data_offset;
  std::vector<std::pair<uint64_t, size_t>> order;
  for (size_t k = 0; k < h.tensors.size(); ++k) {
    const GgufTensorInfo& t = h.tensors[k];
    if (t.offset % h.alignment != 0) {
      return DataLossError(fmt::format("{}: tensor '{}': offset {} is not a multiple of the alignment {}", label,
                                       t.name, t.offset, h.alignment));
    }
    if (t.offset > data_bytes || t.size_bytes > data_bytes - t.offset) {
      return DataLossError(fmt::format("{}: tensor '{}': bytes [{}, +{}) lie outside the data section of {} bytes",
                                       label, t.name, t.offset, t.size_bytes, data_bytes));
    }
    if (t.size_bytes > 0) order.emplace_back(t.offset, k);  // empty tensors overlap nothing
  }
  std::sort(order.begin(), order.end());
  for (size_t k = 1; k < order.size(); ++k) {
    const GgufTensorInfo& prev = h.tensors[order[k - 1].second];
    const GgufTensorInfo& cur = h.tensors[order[k].second];
    if (prev.offset + prev.size_bytes > cur.offset) {
      return DataLossError(fmt::format("{}: tensors '{}' and '{}' overlap", label, prev.name, cur.name));
    }
  }
  return Status::Ok();
}

Status CheckVersion(uint32_t version, std::string_view label) {
  if ((version & 0xFFFF) == 0) {
    return DataLossError(fmt::format("{}: big-endian GGUF files are not supported (version field {:#x})", label,
                                     version));
  }
  if (version == 1) return DataLossError(fmt::format("{}: GGUF version 1 is no longer supported", label));
  if (version > 3) return DataLossError(fmt::format("{}: unsupported GGUF version {}", label, version));
  return Status::Ok();
}

Result<uint32_t> Alignment(const GgufMetadata& md, std::string_view label) {
  const GgufValue* a = md.Find("general.alignment");
  if (a == nullptr) return kGgufDefaultAlignment;
  if (a->type != GgufValueType::kUint32) {
    return DataLossError(fmt::format("{}: general.alignment must be UINT32, got {}", label,
                                     GgufValueTypeName(a->type)));
  }
  if (a->u == 0 || (a->u & (a->u - 1)) != 0) {
    return DataLossError(fmt::format("{}: general.alignment {} is not a power of two", label, a->u));
  }
  return static_cast<uint32_t>(a->u);
}

}  // namespace

int64_t GgufTensorInfo::num_elements() const {
  int64_t n = 1;
  for (int64_t d : ne) n *= d;  // cannot overflow: checked by the parser
  return n;
}

Result<GgufHeader> ParseGguf(std::string_view file, std::string_view label) {
  Cursor c(file, label);
  GgufHeader h;
  GEMMAD_ASSIGN_OR_RETURN(uint32_t magic, c.Read<uint32_t>("magic"));
  if (magic != kMagic) return DataLossError(fmt::format("{}: not a GGUF file (bad magic)", label));
  GEMMAD_ASSIGN_OR_RETURN(h.version, c.Read<uint32_t>("version"));
  GEMMAD_RETURN_IF_ERROR(CheckVersion(h.version, label));
  GEMMAD_ASSIGN_OR_RETURN(uint64_t n_tensors, c.Read<uint64_t>("tensor count"));
  GEMMAD_ASSIGN_OR_RETURN(uint64_t n_kv, c.Read<uint64_t>("metadata count"));
  GEMMAD_RETURN_IF_ERROR(ReadMetadata(c, n_kv, h.metadata));
  GEMMAD_ASSIGN_OR_RETURN(h.alignment, Alignment(h.metadata, label));
  // A tensor-info record takes at least 8 + 1 + 4 + 8 + 4 + 8 bytes.
  if (n_tensors > c.remaining() / 33) return c.Error(fmt::format("tensor count {} does not fit in the file", n_tensors));
  std::set<std::string, std::less<>> names;
  h.tensors.reserve(n_tensors);
  for (uint64_t k = 0; k < n_tensors; ++k) {
    GgufTensorInfo t;
    GEMMAD_RETURN_IF_ERROR(ReadTensorInfo(c, t));
    if (!names.insert(t.name).second) return c.Error(fmt::format("duplicate tensor name '{}'", t.name));
    h.tensors.push_back(std::move(t));
  }
  h.data_offset = c.pos();
  if (n_tensors > 0) {
    uint64_t padded = (h.data_offset + h.alignment - 1) / h.alignment * h.alignment;
    if (padded > file.size()) return c.Error("file ends inside the padding before the data section");
    h.data_offset = padded;
  }
  GEMMAD_RETURN_IF_ERROR(CheckTensorSpans(h, file.size(), label));
  return h;
}

Result<GgufFile> GgufFile::Open(const std::string& path) {
  GEMMAD_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  GEMMAD_ASSIGN_OR_RETURN(GgufHeader header, ParseGguf(file.bytes(), path));
  return GgufFile(std::move(file), std::move(header));
}

const GgufTensorInfo* GgufFile::FindTensor(std::string_view name) const {
  for (const auto& t : header_.tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string_view GgufFile::TensorBytes(const GgufTensorInfo& info) const {
  return file_.bytes().substr(header_.data_offset + info.offset, info.size_bytes);
}

}  // namespace gemmad::io
