// The host allocator and DeviceBuffer.
#include "kernels/allocator.h"

#include <cstdlib>
#include <utility>

namespace gemmad::kernels {
namespace {

class Host final : public Allocator {
 public:
  tensor::Device device() const override { return tensor::kHost; }
  void* Allocate(size_t bytes) override { return std::calloc(bytes == 0 ? 1 : bytes, 1); }
  void Free(void* p) override { std::free(p); }
};

}  // namespace

Allocator& HostAllocator() {
  static Host* host = new Host();  // never destroyed: buffers may outlive static destruction order
  return *host;
}

DeviceBuffer::DeviceBuffer(Allocator& allocator, size_t bytes) : allocator_(&allocator) {
  data_ = allocator.Allocate(bytes);
  bytes_ = data_ != nullptr ? bytes : 0;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : allocator_(std::exchange(o.allocator_, nullptr)),
      data_(std::exchange(o.data_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    Reset();
    allocator_ = std::exchange(o.allocator_, nullptr);
    data_ = std::exchange(o.data_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::Reset() {
  if (data_ != nullptr) allocator_->Free(data_);
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace gemmad::kernels
