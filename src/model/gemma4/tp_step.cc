// Encoding of the tensor-parallel step message (tp_step.h): little-endian host layout (every
// rank runs the same binary on the same architecture), each vector length-prefixed.
#include "model/gemma4/tp_step.h"

#include <cstring>
#include <type_traits>

namespace gemmad::model::gemma4 {
namespace {

constexpr uint32_t kMagic = 0x47545031;  // "GTP1"

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out.insert(out.end(), p, p + sizeof(T));
  }
  template <typename T>
  void PutVec(const T* data, size_t n) {
    Put<uint64_t>(n);
    const auto* p = reinterpret_cast<const uint8_t*>(data);
    out.insert(out.end(), p, p + n * sizeof(T));
  }
  template <typename T>
  void PutVec(const std::vector<T>& v) { PutVec(v.data(), v.size()); }
  std::vector<uint8_t> out;
};

class Reader {
 public:
  explicit Reader(const std::vector<uint8_t>& b) : b_(b) {}
  template <typename T>
  bool Get(T* v) {
    if (b_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  template <typename T>
  bool GetVec(std::vector<T>* v) {
    uint64_t n = 0;
    if (!Get(&n) || n > (b_.size() - pos_) / sizeof(T)) return false;
    v->resize(n);
    if (n > 0) std::memcpy(v->data(), b_.data() + pos_, n * sizeof(T));  // an empty vector's data() may be null
    pos_ += n * sizeof(T);
    return true;
  }
  bool done() const { return pos_ == b_.size(); }
  // Whether `n` items of at least `min_bytes` each can still follow (bounds a count before it
  // sizes a vector).
  bool Fits(uint64_t n, size_t min_bytes) const { return n <= (b_.size() - pos_) / min_bytes; }

 private:
  const std::vector<uint8_t>& b_;
  size_t pos_ = 0;
};

Status Truncated() { return InvalidArgumentError("tensor parallel: truncated or malformed step message"); }

}  // namespace

std::vector<uint8_t> EncodeTpStep(const TpStep& step, int64_t hidden_size) {
  return EncodeTpStep(step, step.batch, hidden_size);
}

std::vector<uint8_t> EncodeTpStep(const TpStep& step, const ForwardBatch& b, int64_t hidden_size) {
  Writer w;
  w.Put(kMagic);
  w.Put<uint8_t>(step.stop ? 1 : 0);
  if (step.stop) return w.out;
  w.Put(step.block_size);
  w.Put(static_cast<uint8_t>(step.kv_dtype));
  w.Put<uint8_t>(step.record_hidden ? 1 : 0);
  w.PutVec(step.num_blocks);
  w.PutVec(b.token_ids);
  w.PutVec(b.positions);
  w.Put<uint64_t>(b.sequences.size());
  for (const SequenceInBatch& s : b.sequences) {
    w.Put(s.token_begin);
    w.Put(s.num_tokens);
    w.Put(s.num_computed_tokens);
    w.PutVec(s.logit_offsets);
    w.Put<uint64_t>(s.block_tables.size());
    for (const auto& t : s.block_tables) w.PutVec(t);
    w.PutVec(s.bidirectional_spans);
  }
  w.Put<uint64_t>(b.embedding_overrides.size());
  for (const EmbeddingOverride& o : b.embedding_overrides) {
    w.Put(o.row);
    w.Put(o.num_rows);
    w.PutVec(o.data, static_cast<size_t>(o.num_rows * hidden_size));
  }
  return w.out;
}

std::vector<uint8_t> EncodeTpStop() {
  TpStep s;
  s.stop = true;
  return EncodeTpStep(s, 0);
}

Result<TpStep> DecodeTpStep(const std::vector<uint8_t>& bytes, int64_t hidden_size) {
  Reader r(bytes);
  uint32_t magic = 0;
  uint8_t stop = 0, dtype = 0, record = 0;
  if (!r.Get(&magic) || magic != kMagic || !r.Get(&stop) || stop > 1) return Truncated();
  TpStep s;
  s.stop = stop != 0;
  if (s.stop) return r.done() ? Result<TpStep>(std::move(s)) : Truncated();
  if (!r.Get(&s.block_size) || !r.Get(&dtype) || !r.Get(&record) || record > 1 ||
      dtype > static_cast<uint8_t>(tensor::DType::kF8R) || !r.GetVec(&s.num_blocks)) {
    return Truncated();
  }
  s.kv_dtype = static_cast<tensor::DType>(dtype);
  s.record_hidden = record != 0;
  ForwardBatch& b = s.batch;
  uint64_t num_seqs = 0;
  // A sequence takes at least 48 bytes, a block table 8, an override 24.
  if (!r.GetVec(&b.token_ids) || !r.GetVec(&b.positions) || !r.Get(&num_seqs) || !r.Fits(num_seqs, 48)) {
    return Truncated();
  }
  b.sequences.resize(num_seqs);
  for (SequenceInBatch& q : b.sequences) {
    uint64_t tables = 0;
    if (!r.Get(&q.token_begin) || !r.Get(&q.num_tokens) || !r.Get(&q.num_computed_tokens) ||
        !r.GetVec(&q.logit_offsets) || !r.Get(&tables) || !r.Fits(tables, 8)) {
      return Truncated();
    }
    q.block_tables.resize(tables);
    for (auto& t : q.block_tables) {
      if (!r.GetVec(&t)) return Truncated();
    }
    if (!r.GetVec(&q.bidirectional_spans)) return Truncated();
  }
  uint64_t num_overrides = 0;
  if (!r.Get(&num_overrides) || !r.Fits(num_overrides, 24)) return Truncated();
  std::vector<std::vector<float>> parts(num_overrides);
  b.embedding_overrides.resize(num_overrides);
  for (size_t i = 0; i < num_overrides; ++i) {
    EmbeddingOverride& o = b.embedding_overrides[i];
    if (!r.Get(&o.row) || !r.Get(&o.num_rows) || !r.GetVec(&parts[i]) ||
        o.num_rows < 0 || hidden_size <= 0 ||
        parts[i].size() % static_cast<size_t>(hidden_size) != 0 ||
        parts[i].size() / static_cast<size_t>(hidden_size) != static_cast<size_t>(o.num_rows)) {
      return Truncated();
    }
  }
  if (!r.done()) return Truncated();
  for (const auto& p : parts) s.override_data.insert(s.override_data.end(), p.begin(), p.end());
  size_t at = 0;
  for (size_t i = 0; i < num_overrides; ++i) {
    b.embedding_overrides[i].data = s.override_data.data() + at;
    at += parts[i].size();
  }
  return s;
}

}  // namespace gemmad::model::gemma4
