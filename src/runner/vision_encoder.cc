// VisionEncoder: mm::VisionPatches -> VisionTower::Encode.
#include "runner/vision_encoder.h"

#include <fmt/format.h>

#include "mm/vision_input.h"
#include "model/gemma4/config.h"

namespace gemmad::runner {

VisionEncoder::VisionEncoder(std::unique_ptr<model::gemma4::VisionTower> tower, kernels::ExecContext exec)
    : tower_(std::move(tower)), exec_(exec) {}

bool VisionEncoder::Supports(mm::Modality modality) const {
  return modality == mm::Modality::kImage || modality == mm::Modality::kVideo;
}

Result<std::vector<float>> VisionEncoder::Encode(const mm::Item& item) {
  const std::string_view what = mm::ModalityName(item.modality);
  if (!Supports(item.modality)) {
    return InvalidArgumentError(fmt::format("the vision encoder cannot encode {} items", what));
  }
  const auto* patches = dynamic_cast<const mm::VisionPatches*>(item.data.get());
  if (patches == nullptr) return InvalidArgumentError(fmt::format("{} item: its data are not image patches", what));
  const auto& c = tower_->config();
  if (patches->patch_size != c.patch_size || patches->pooling_kernel != c.pooling_kernel_size) {
    return InvalidArgumentError(fmt::format(
        "{} item: preprocessed with patch size {} and pooling kernel {}, the vision tower uses {} and {}", what,
        patches->patch_size, patches->pooling_kernel, c.patch_size, c.pooling_kernel_size));
  }
  const int64_t n = tower_->NumSoftTokens(patches->grid_h, patches->grid_w);
  if (item.placeholder_length != n) {
    return InvalidArgumentError(fmt::format("{} item: {} placeholder tokens for {} soft tokens ({}x{} patches)", what,
                                            item.placeholder_length, n, patches->grid_h, patches->grid_w));
  }
  std::vector<float> out(static_cast<size_t>(n * tower_->text_hidden()));
  GEMMAD_RETURN_IF_ERROR(
      tower_->Encode(exec_, patches->grid_h, patches->grid_w, patches->pixels, patches->positions, out));
  return out;
}

Result<std::unique_ptr<MultimodalEncoder>> CreateGemma4VisionEncoder(std::shared_ptr<const model::WeightSource> source,
                                                                     kernels::ExecContext exec) {
  if (source == nullptr) return InvalidArgumentError("vision encoder: no weight source");
  GEMMAD_ASSIGN_OR_RETURN(model::gemma4::Config config,
                          model::gemma4::ParseConfig(source->config_json(), source->config_label()));
  if (!config.vision) {
    return NotFoundError(fmt::format("{}: the checkpoint has no vision tower (config.json has no vision_config)",
                                     source->label()));
  }
  GEMMAD_ASSIGN_OR_RETURN(auto tower, model::gemma4::VisionTower::Load(source, *config.vision, config.hidden_size));
  return std::unique_ptr<MultimodalEncoder>(new VisionEncoder(std::move(tower), exec));
}

}  // namespace gemmad::runner
