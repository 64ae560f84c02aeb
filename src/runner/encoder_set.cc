// EncoderSet: dispatch by modality.
#include "runner/encoder_set.h"

#include <fmt/format.h>

namespace gemmad::runner {

EncoderSet::EncoderSet(std::vector<std::unique_ptr<MultimodalEncoder>> encoders) : encoders_(std::move(encoders)) {}

bool EncoderSet::Supports(mm::Modality modality) const {
  for (const auto& e : encoders_) {
    if (e->Supports(modality)) return true;
  }
  return false;
}

Result<std::vector<float>> EncoderSet::Encode(const mm::Item& item) {
  for (const auto& e : encoders_) {
    if (e->Supports(item.modality)) return e->Encode(item);
  }
  return InvalidArgumentError(fmt::format("no encoder for {} items", mm::ModalityName(item.modality)));
}

std::unique_ptr<MultimodalEncoder> CombineEncoders(std::vector<std::unique_ptr<MultimodalEncoder>> encoders) {
  std::erase(encoders, nullptr);
  if (encoders.empty()) return nullptr;
  if (encoders.size() == 1) return std::move(encoders.front());
  return std::make_unique<EncoderSet>(std::move(encoders));
}

}  // namespace gemmad::runner
