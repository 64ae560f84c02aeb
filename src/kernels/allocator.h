// Allocator: where a backend's tensors get their memory (step scratch, KV storage). The host
// allocator serves the CPU and reference backends; a GPU backend brings its own, whose memory its
// views mark with its tensor::Device. DeviceBuffer owns one allocation.
#pragma once

#include <cstddef>

#include "tensor/device.h"

namespace gemmad::kernels {

class Allocator {
 public:
  virtual ~Allocator() = default;
  // The device the memory lives on (what views of it carry).
  virtual tensor::Device device() const = 0;
  // `bytes` zeroed bytes (at least 16-byte aligned), or nullptr when they cannot be had. Host
  // memory is reserved lazily zeroed, so untouched pages cost no resident memory.
  virtual void* Allocate(size_t bytes) = 0;
  // Frees what Allocate returned (nullptr is a no-op).
  virtual void Free(void* p) = 0;
};

// calloc/free on the host; thread-safe, never destroyed.
Allocator& HostAllocator();

// One allocation of an Allocator, freed on destruction; movable, not copyable.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Empty (data() == nullptr) when the allocator refused.
  DeviceBuffer(Allocator& allocator, size_t bytes);
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { Reset(); }

  void* data() const { return data_; }
  size_t size() const { return bytes_; }
  Allocator* allocator() const { return allocator_; }
  tensor::Device device() const { return allocator_ != nullptr ? allocator_->device() : tensor::kHost; }
  void Reset();

 private:
  Allocator* allocator_ = nullptr;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace gemmad::kernels
