// LocalCommunicator: the one-rank group, where gathering is a checked copy.
#include "dist/communicator.h"

#include <fmt/format.h>

#include <algorithm>

namespace gemmad::dist {
namespace {

Status CopyChecked(const char* op, std::span<const float> mine, std::span<float> out) {
  if (out.size() != mine.size()) {
    return InvalidArgumentError(fmt::format(
        "{}: out has {} floats, want size() * mine.size() = {}", op, out.size(), mine.size()));
  }
  std::copy(mine.begin(), mine.end(), out.begin());
  return OkStatus();
}

}  // namespace

Status LocalCommunicator::AllGather(std::span<const float> mine, std::span<float> out) {
  return CopyChecked("AllGather", mine, out);
}

Status LocalCommunicator::Gather(std::span<const float> mine, std::span<float> out, int root) {
  if (root != 0) return InvalidArgumentError(fmt::format("Gather: root {} outside [0, 1)", root));
  return CopyChecked("Gather", mine, out);
}

}  // namespace gemmad::dist
