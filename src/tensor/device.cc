// Device names.
#include "tensor/device.h"

namespace gemmad::tensor {

std::string Device::ToString() const {
  switch (kind) {
    case DeviceKind::kCpu:
      return "cpu:" + std::to_string(index);
  }
  return "?:" + std::to_string(index);
}

}  // namespace gemmad::tensor
