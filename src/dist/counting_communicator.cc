// CountingCommunicator (counting_communicator.h).
#include "dist/counting_communicator.h"

#include <fmt/format.h>

namespace gemmad::dist {
namespace {

std::string Part(const CollectiveCounts& c, const char* what) {
  return fmt::format("{} {} ({:.1f} MiB, {:.3f} s)", c.calls, what, static_cast<double>(c.bytes) / (1 << 20), c.seconds);
}

}  // namespace

std::string CommunicatorStats::ToString() const {
  return Part(all_reduce, "all-reduces") + ", " + Part(gather, "gathers") + ", " + Part(broadcast, "broadcasts");
}

Status CountingCommunicator::AllReduceSum(std::span<float> data) {
  return Count(&stats_.all_reduce, static_cast<int64_t>(data.size_bytes()), [&] { return inner_->AllReduceSum(data); });
}

Status CountingCommunicator::AllGather(std::span<const float> mine, std::span<float> out) {
  return Count(&stats_.gather, static_cast<int64_t>(mine.size_bytes()), [&] { return inner_->AllGather(mine, out); });
}

Status CountingCommunicator::Gather(std::span<const float> mine, std::span<float> out, int root) {
  return Count(&stats_.gather, static_cast<int64_t>(mine.size_bytes()), [&] { return inner_->Gather(mine, out, root); });
}

Status CountingCommunicator::Broadcast(std::vector<uint8_t>* bytes, int root) {
  return Count(&stats_.broadcast, static_cast<int64_t>(bytes->size()), [&] { return inner_->Broadcast(bytes, root); });
}

Status CountingCommunicator::BroadcastIdle(std::vector<uint8_t>* bytes, int root) {
  // A waiting rank's time here is idle time (no step to run), not communication: root only.
  if (rank() != root) return inner_->BroadcastIdle(bytes, root);
  return Count(&stats_.broadcast, static_cast<int64_t>(bytes->size()), [&] { return inner_->BroadcastIdle(bytes, root); });
}

Status CountingCommunicator::Barrier() {
  return Count(&stats_.other, 0, [&] { return inner_->Barrier(); });
}

}  // namespace gemmad::dist
