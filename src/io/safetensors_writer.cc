// SafetensorsWriter implementation.
#include "io/safetensors_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <memory>
#include <set>

#include "io/safetensors_header.h"

namespace gemmad::io {
namespace {

// The reference library orders tensors by its dtype enum (descending), then by name; this is
// that enum's order, which also keeps wider types first so every tensor stays aligned.
constexpr std::string_view kDTypeOrder[] = {"BOOL", "F4",  "F6_E2M3", "F6_E3M2", "U8",  "I8",  "F8_E5M2",
                                            "F8_E4M3", "F8_E8M0", "I16", "U16", "F16", "BF16", "I32",
                                            "U32", "F32", "F64", "I64", "U64", "C64"};

int DTypeRank(std::string_view name) {
  for (size_t i = 0; i < std::size(kDTypeOrder); ++i) {
    if (kDTypeOrder[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::string JsonString(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

class StringSink : public ByteSink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  Status Write(std::string_view bytes) override {
    out_->append(bytes);
    return OkStatus();
  }

 private:
  std::string* out_;
};

// Buffered file sink over a raw descriptor.
class FdSink : public ByteSink {
 public:
  FdSink(int fd, std::string path) : fd_(fd), path_(std::move(path)) { buf_.reserve(kBufBytes); }
  Status Write(std::string_view bytes) override {
    if (buf_.size() + bytes.size() > kBufBytes) GEMMAD_RETURN_IF_ERROR(Flush());
    if (bytes.size() >= kBufBytes) return WriteAll(bytes);
    buf_.append(bytes);
    return OkStatus();
  }
  Status Flush() {
    Status s = WriteAll(buf_);
    buf_.clear();
    return s;
  }

 private:
  static constexpr size_t kBufBytes = 8 << 20;
  Status WriteAll(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return IoError(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return OkStatus();
  }
  int fd_;
  std::string path_;
  std::string buf_;
};

// Counts what a fill callback writes so a wrong size is caught.
class CountingSink : public ByteSink {
 public:
  CountingSink(ByteSink& inner, const std::function<void(uint64_t)>& on_bytes) : inner_(inner), on_bytes_(on_bytes) {}
  Status Write(std::string_view bytes) override {
    count_ += bytes.size();
    if (on_bytes_) on_bytes_(bytes.size());
    return inner_.Write(bytes);
  }
  uint64_t count() const { return count_; }

 private:
  ByteSink& inner_;
  const std::function<void(uint64_t)>& on_bytes_;
  uint64_t count_ = 0;
};

}  // namespace

uint64_t TensorToWrite::size_bytes() const {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n * static_cast<uint64_t>(SafetensorsDTypeBits(dtype_name).value_or(0)) / 8;
}

void SafetensorsWriter::AddBytes(std::string name, std::string dtype_name, std::vector<int64_t> shape,
                                 std::string bytes) {
  auto shared = std::make_shared<std::string>(std::move(bytes));
  Add({std::move(name), std::move(dtype_name), std::move(shape),
       [shared](ByteSink& sink) { return sink.Write(*shared); }});
}

uint64_t SafetensorsWriter::total_tensor_bytes() const {
  uint64_t total = 0;
  for (const auto& t : tensors_) total += t.size_bytes();
  return total;
}

Result<std::vector<const TensorToWrite*>> SafetensorsWriter::Ordered() const {
  std::vector<const TensorToWrite*> order;
  std::set<std::string_view> names;
  for (const auto& t : tensors_) {
    if (DTypeRank(t.dtype_name) < 0) {
      return InvalidArgumentError(fmt::format("tensor '{}': unknown dtype '{}'", t.name, t.dtype_name));
    }
    if (t.name == "__metadata__" || !names.insert(t.name).second) {
      return InvalidArgumentError(fmt::format("tensor name '{}' is reserved or used twice", t.name));
    }
    for (int64_t d : t.shape) {
      if (d < 0) return InvalidArgumentError(fmt::format("tensor '{}': negative dimension", t.name));
    }
    order.push_back(&t);
  }
  std::stable_sort(order.begin(), order.end(), [](const TensorToWrite* a, const TensorToWrite* b) {
    int ra = DTypeRank(a->dtype_name), rb = DTypeRank(b->dtype_name);
    return ra != rb ? ra > rb : a->name < b->name;
  });
  return order;
}

Result<std::string> SafetensorsWriter::HeaderJson() const {
  GEMMAD_ASSIGN_OR_RETURN(auto order, Ordered());
  std::string out = "{";
  if (!metadata_.empty()) {
    out += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata_) {
      out += fmt::format("{}{}:{}", first ? "" : ",", JsonString(k), JsonString(v));
      first = false;
    }
    out += "}";
  }
  uint64_t offset = 0;
  for (const TensorToWrite* t : order) {
    uint64_t end = offset + t->size_bytes();
    out += fmt::format("{}{}:{{\"dtype\":\"{}\",\"shape\":[{}],\"data_offsets\":[{},{}]}}", out.size() > 1 ? "," : "",
                       JsonString(t->name), t->dtype_name, fmt::join(t->shape, ","), offset, end);
    offset = end;
  }
  out += "}";
  return out;
}

Status SafetensorsWriter::WriteTo(ByteSink& sink, const std::function<void(uint64_t)>& on_bytes) const {
  GEMMAD_ASSIGN_OR_RETURN(std::string header, HeaderJson());
  header.append((8 - header.size() % 8) % 8, ' ');
  char len[8];
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  GEMMAD_RETURN_IF_ERROR(sink.Write(std::string_view(len, 8)));
  GEMMAD_RETURN_IF_ERROR(sink.Write(header));
  GEMMAD_ASSIGN_OR_RETURN(auto order, Ordered());
  for (const TensorToWrite* t : order) {
    CountingSink counting(sink, on_bytes);
    if (t->fill) GEMMAD_RETURN_IF_ERROR(t->fill(counting));
    if (counting.count() != t->size_bytes()) {
      return InternalError(fmt::format("tensor '{}': wrote {} bytes, expected {}", t->name, counting.count(),
                                       t->size_bytes()));
    }
  }
  return OkStatus();
}

Result<std::string> SafetensorsWriter::WriteToString() const {
  std::string out;
  StringSink sink(&out);
  GEMMAD_RETURN_IF_ERROR(WriteTo(sink, {}));
  return out;
}

Status SafetensorsWriter::WriteFile(const std::string& path, const std::function<void(uint64_t)>& on_bytes) const {
  std::string tmp = fmt::format("{}.tmp{}", path, ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(fmt::format("cannot create {}: {}", tmp, std::strerror(errno)));
  FdSink sink(fd, tmp);
  Status s = WriteTo(sink, on_bytes);
  if (s.ok()) s = sink.Flush();
  if (::close(fd) != 0 && s.ok()) s = IoError(fmt::format("cannot close {}: {}", tmp, std::strerror(errno)));
  if (s.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    s = IoError(fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(errno)));
  }
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

}  // namespace gemmad::io
