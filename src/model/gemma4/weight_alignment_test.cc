// AlignStreamedMatrices: unaligned dense matrices move to 64-byte-aligned memory with the same bytes,
// and every view inside them (a tied embedding) and every address-keyed scale moves with them; what
// is aligned, not dense, or only partly inside stays; nothing moves without the memory for it.
#include "model/gemma4/weight_alignment.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "io/mmap_file.h"
#include "kernels/thread_pool.h"

namespace gemmad::model::gemma4 {
namespace {

using tensor::DType;
using tensor::Shape;
using tensor::TensorView;

bool Aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

// A buffer whose data() is 64-byte aligned, so offsets decide the alignment of the views.
struct Buffer {
  explicit Buffer(size_t bytes) : raw(bytes + 64) {
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i * 131 + 7);
    const auto p = reinterpret_cast<uintptr_t>(raw.data());
    base = raw.data() + (64 - p % 64) % 64;
  }
  std::vector<uint8_t> raw;
  uint8_t* base;
};

std::vector<uint8_t> BytesOf(const TensorView& v) {
  const auto* p = static_cast<const uint8_t*>(v.data);
  return {p, p + v.SizeBytes()};
}

TEST(AlignStreamedMatrices, MovesUnalignedDenseMatricesWithTheViewsInsideThem) {
  Buffer buf(1 << 20);
  Weights w;
  w.layers.resize(1);
  LayerWeights& l = w.layers[0];
  l.q_proj = {buf.base + 8, DType::kBF16, Shape{64, 96}};             // unaligned bf16: moves
  l.k_proj = {buf.base + 16384, DType::kBF16, Shape{32, 96}};         // aligned: stays
  l.o_proj = {buf.base + 32768 + 24, DType::kF32, Shape{96, 64}};     // unaligned f32: moves
  l.gate_proj = {buf.base + 65536 + 8, DType::kQ8R, Shape{16, 64}};   // not dense: stays
  w.embed = {buf.base + 131072 + 40, DType::kBF16, Shape{512, 96}};   // tied head: moves with it
  w.lm_head = w.embed;
  w.final_norm = {buf.base + 262144 + 8, DType::kBF16, Shape{96}};   // not streamed: stays
  w.act_quant[l.o_proj.data] = {0.5f, 2.0f};
  const auto q = BytesOf(l.q_proj), o = BytesOf(l.o_proj), head = BytesOf(w.lm_head);
  const void* k_at = l.k_proj.data;
  const void* gate_at = l.gate_proj.data;
  const void* norm_at = w.final_norm.data;

  kernels::ThreadPool pool(2);
  auto r = AlignStreamedMatrices(kernels::ExecContext{&pool}, &w, std::nullopt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_copied, 3);
  EXPECT_EQ(r->bytes, q.size() + o.size() + head.size());
  EXPECT_EQ(r->num_left, 0);
  EXPECT_EQ(r->released_bytes, 0u);  // heap memory is never released
  EXPECT_TRUE(Aligned(l.q_proj.data));
  EXPECT_TRUE(Aligned(l.o_proj.data));
  EXPECT_TRUE(Aligned(w.lm_head.data));
  EXPECT_EQ(w.embed.data, w.lm_head.data);
  EXPECT_EQ(BytesOf(l.q_proj), q);
  EXPECT_EQ(BytesOf(l.o_proj), o);
  EXPECT_EQ(BytesOf(w.lm_head), head);
  EXPECT_EQ(l.k_proj.data, k_at);
  EXPECT_EQ(l.gate_proj.data, gate_at);
  EXPECT_EQ(w.final_norm.data, norm_at);
  ASSERT_EQ(w.act_quant.size(), 1u);
  ASSERT_TRUE(w.act_quant.contains(l.o_proj.data));
  EXPECT_EQ(w.act_quant.at(l.o_proj.data).output, 2.0f);
  EXPECT_EQ(w.owned_bytes.size(), 1u);

  auto again = AlignStreamedMatrices(kernels::ExecContext{}, &w, std::nullopt);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->num_copied, 0);  // nothing left unaligned
}

TEST(AlignStreamedMatrices, AVocabularySliceMovesAndTheWholeEmbeddingStays) {
  Buffer buf(1 << 20);
  Weights w;
  w.embed = {buf.base + 8, DType::kBF16, Shape{1024, 64}};
  w.lm_head = {buf.base + 8 + 512 * 64 * 2, DType::kBF16, Shape{512, 64}};  // a -tp rank's half
  const auto head = BytesOf(w.lm_head);
  const void* embed_at = w.embed.data;
  auto r = AlignStreamedMatrices(kernels::ExecContext{}, &w, std::nullopt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->num_copied, 1);
  EXPECT_TRUE(Aligned(w.lm_head.data));
  EXPECT_EQ(BytesOf(w.lm_head), head);
  EXPECT_EQ(w.embed.data, embed_at);
}

TEST(AlignStreamedMatrices, NothingMovesWithoutTheMemoryForIt) {
  Buffer buf(1 << 20);
  Weights w;
  w.layers.resize(1);
  w.layers[0].down_proj = {buf.base + 8, DType::kBF16, Shape{256, 256}};
  const void* at = w.layers[0].down_proj.data;
  auto r = AlignStreamedMatrices(kernels::ExecContext{}, &w, uint64_t{256} << 20);  // under the 512 MiB margin
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->num_copied, 0);
  EXPECT_EQ(r->num_left, 1);
  EXPECT_EQ(r->bytes_left, 256u * 256u * 2u);
  EXPECT_EQ(w.layers[0].down_proj.data, at);
  EXPECT_TRUE(w.owned_bytes.empty());
  EXPECT_NE(r->ToString().find("not 64-byte aligned"), std::string::npos);
}

TEST(AlignStreamedMatrices, ReleasesTheMappedSourcePages) {
  // A file whose one matrix starts 8 bytes in, as a safetensors header leaves it.
  const std::string path = ::testing::TempDir() + "/align_" + std::to_string(::getpid()) + ".bin";
  const size_t bytes = size_t{4} << 20;
  {
    std::vector<uint8_t> data(bytes + 8);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 29 + 3);
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(data.data(), 1, data.size(), f), data.size());
    std::fclose(f);
  }
  auto file = io::MappedFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  Weights w;
  w.layers.resize(1);
  w.layers[0].up_proj = {const_cast<uint8_t*>(file->data()) + 8, DType::kBF16,
                         Shape{static_cast<int64_t>(bytes / 2048), 1024}};
  const auto want = BytesOf(w.layers[0].up_proj);  // also faults the pages in
  auto r = AlignStreamedMatrices(kernels::ExecContext{}, &w, std::nullopt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->num_copied, 1);
  EXPECT_GE(r->released_bytes, bytes - 2 * 4096);  // the whole pages inside the matrix
  EXPECT_EQ(BytesOf(w.layers[0].up_proj), want);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace gemmad::model::gemma4
