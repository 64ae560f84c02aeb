// Multimodal item names and validation.
#include "mm/item.h"

#include <fmt/format.h>

namespace gemmad::mm {

std::string_view ModalityName(Modality m) {
  switch (m) {
    case Modality::kImage: return "image";
    case Modality::kAudio: return "audio";
    case Modality::kVideo: return "video";
  }
  return "unknown";
}

Status ValidateItems(std::span<const Item> items, int64_t prompt_length) {
  int64_t prev_end = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    if (it.placeholder_length < 1 || it.placeholder_offset < prev_end || it.placeholder_end() > prompt_length) {
      return InvalidArgumentError(fmt::format(
          "{} item {} has placeholder tokens [{}, {}), which are empty, overlap the previous item or lie "
          "outside the prompt of {} tokens", ModalityName(it.modality), i, it.placeholder_offset, it.placeholder_end(),
          prompt_length));
    }
    if (!it.data) return InvalidArgumentError(fmt::format("{} item {} has no data", ModalityName(it.modality), i));
    prev_end = it.placeholder_end();
  }
  return OkStatus();
}

}  // namespace gemmad::mm
