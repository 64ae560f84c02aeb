// Device: where a tensor's memory lives. Today every backend computes in host memory (the CPU
// backend and the scalar reference backend), so kCpu is the only kind; a GPU backend adds its kind
// here and views of its memory carry it, so that an op handed memory of another device fails its
// check (kernels/ops.cc) instead of reading garbage.
#pragma once

#include <cstdint>
#include <string>

namespace gemmad::tensor {

enum class DeviceKind : uint8_t { kCpu };

struct Device {
  DeviceKind kind = DeviceKind::kCpu;
  int16_t index = 0;  // which device of its kind (0 for the host)

  bool operator==(const Device&) const = default;
  // "cpu:0".
  std::string ToString() const;
};

inline constexpr Device kHost{};

}  // namespace gemmad::tensor
