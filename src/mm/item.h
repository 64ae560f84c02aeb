// Multimodal items as the engine sees them: one image, audio clip or video frame run of a
// request with its modality, where its placeholder tokens sit in the prompt, a hash of its
// content (part of the prefix-cache block hash) and a handle to its preprocessed data, which
// only the encoder behind the runner reads. Plain data; the handle is shared and immutable.
// Invariant (checked by ValidateItems): items are sorted, disjoint, inside the prompt, and each
// has at least one placeholder token and data.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "base/status.h"

namespace gemmad::mm {

enum class Modality : uint8_t { kImage, kAudio, kVideo };
std::string_view ModalityName(Modality m);

// 128 bits of a content hash (e.g. of the decoded pixels and the processor settings).
struct ContentHash {
  uint64_t hi = 0;
  uint64_t lo = 0;
  friend bool operator==(const ContentHash&, const ContentHash&) = default;
};

// What a modality's preprocessor produced (pixel patches, log-mel frames, ...). The encoder
// that understands the concrete type downcasts; everything between api and the encoder only
// moves the handle.
class ItemData {
 public:
  virtual ~ItemData() = default;
};

struct Item {
  Modality modality = Modality::kImage;
  int64_t placeholder_offset = 0;  // index in the prompt of the first placeholder token
  int64_t placeholder_length = 0;  // placeholder tokens = embedding rows the encoder yields
  ContentHash hash;
  // Gemma 4 26B/31B sliding layers let an image's tokens see each other both ways: such a span
  // is scheduled in one piece (never split across prefill chunks).
  bool bidirectional = false;
  std::shared_ptr<const ItemData> data;

  int64_t placeholder_end() const { return placeholder_offset + placeholder_length; }
};

// Checks the invariant above for a prompt of `prompt_length` tokens; errors are InvalidArgument.
Status ValidateItems(std::span<const Item> items, int64_t prompt_length);

}  // namespace gemmad::mm
