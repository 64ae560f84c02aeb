#include "model/gemma4/weight_alignment.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "io/huge_page_buffer.h"
#include "io/mmap_file.h"

namespace gemmad::model::gemma4 {
namespace {

constexpr uintptr_t kLine = 64;
constexpr size_t kMatrixAlign = 4096;  // each copy on its own pages, as the quantizer's arena
constexpr uint64_t kMargin = uint64_t{512} << 20;
constexpr size_t kCopyChunk = size_t{4} << 20;

bool IsDense(tensor::DType t) {
  return t == tensor::DType::kBF16 || t == tensor::DType::kF16 || t == tensor::DType::kF32;
}

}  // namespace

std::string AlignmentReport::ToString() const {
  if (num_left > 0) {
    return fmt::format("{} streamed matrices ({:.1f} MiB) stay where the checkpoint stores them, not 64-byte aligned "
                       "(decode reads them slower): only {:.1f} MiB of memory available for aligned copies",
                       num_left, static_cast<double>(bytes_left) / (1 << 20),
                       static_cast<double>(available_bytes) / (1 << 20));
  }
  return fmt::format("{} streamed matrices the checkpoint stores unaligned copied to 64-byte-aligned memory "
                     "({:.1f} MiB, {:.1f} MiB of it on huge pages) in {:.2f} s; {:.1f} MiB of source pages released",
                     num_copied, static_cast<double>(bytes) / (1 << 20),
                     static_cast<double>(huge_page_bytes) / (1 << 20),
                     seconds, static_cast<double>(released_bytes) / (1 << 20));
}

Result<AlignmentReport> AlignStreamedMatrices(const kernels::ExecContext& exec, Weights* w,
                                              std::optional<uint64_t> available_bytes) {
  const auto start = std::chrono::steady_clock::now();
  AlignmentReport report;
  // The ranges to move, in the order a step reads them; a matrix overlapping one already listed
  // moves with it when it lies inside it, else stays (it is read correctly wherever it is).
  struct Planned {
    ByteRange from;
    size_t offset;
  };
  std::vector<Planned> planned;
  size_t arena_bytes = 0;
  for (const tensor::TensorView* v : StreamedMatrices(w)) {
    if (!IsDense(v->dtype) || reinterpret_cast<uintptr_t>(v->data) % kLine == 0 || v->SizeBytes() == 0) continue;
    bool listed = false;
    for (const Planned& p : planned) listed = listed || p.from.Overlaps(ByteRange::Of(*v));
    if (listed) continue;
    planned.push_back({ByteRange::Of(*v), arena_bytes});
    arena_bytes += (v->SizeBytes() + kMatrixAlign - 1) / kMatrixAlign * kMatrixAlign;
  }
  if (planned.empty()) return report;
  if (available_bytes && arena_bytes + kMargin > *available_bytes) {
    report.num_left = static_cast<int64_t>(planned.size());
    report.bytes_left = arena_bytes;
    report.available_bytes = *available_bytes;
    return report;
  }
  report.available_bytes = available_bytes.value_or(0);
  GEMMAD_ASSIGN_OR_RETURN(io::HugePageBuffer arena, io::HugePageBuffer::Allocate(arena_bytes));
  const io::FileMappings files = io::FileMappings::Read();
  std::vector<tensor::TensorView*> views = AllViews(w);
  for (const Planned& p : planned) {
    const size_t bytes = static_cast<size_t>(p.from.end - p.from.begin);
    uint8_t* to = arena.data() + p.offset;
    const int64_t chunks = static_cast<int64_t>((bytes + kCopyChunk - 1) / kCopyChunk);
    kernels::ParallelFor(exec, chunks, 1, [&](int64_t b, int64_t e) {
      const size_t first = static_cast<size_t>(b) * kCopyChunk;
      const size_t last = std::min(bytes, static_cast<size_t>(e) * kCopyChunk);
      std::memcpy(to + first, p.from.begin + first, last - first);
    });
    bool still_read = false;
    for (tensor::TensorView* v : views) {
      const ByteRange r = ByteRange::Of(*v);
      if (p.from.Contains(r)) {
        v->data = to + (static_cast<const uint8_t*>(v->data) - p.from.begin);
      } else if (p.from.Overlaps(r)) {
        still_read = true;  // e.g. the whole embedding beside a -tp rank's slice of it as LM head
      }
    }
    // Static activation scales are found by the weight's address.
    std::vector<std::pair<const void*, Weights::ActScales>> moved;
    for (auto it = w->act_quant.begin(); it != w->act_quant.end();) {
      const auto* key = static_cast<const uint8_t*>(it->first);
      if (key >= p.from.begin && key < p.from.end) {
        moved.emplace_back(to + (key - p.from.begin), it->second);
        it = w->act_quant.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& [key, scales] : moved) w->act_quant[key] = scales;
    // Owned widenings (f16 -> f32) that were the source are not needed any more.
    std::erase_if(w->owned, [&](const std::unique_ptr<std::vector<float>>& o) {
      const auto* b = reinterpret_cast<const uint8_t*>(o->data());
      return !still_read && b == p.from.begin && o->size() * sizeof(float) == bytes;
    });
    if (!still_read) report.released_bytes += io::ReleaseFilePages(p.from.begin, bytes, files);
    report.bytes += bytes;
    ++report.num_copied;
  }
  report.huge_page_bytes = arena.HugePageBytes();
  w->owned_bytes.push_back(std::move(arena));
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace gemmad::model::gemma4
