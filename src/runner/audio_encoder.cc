// The Gemma 4 audio encoder behind the runner (see audio_encoder.h): mm::AudioFeatures ->
// AudioTower::Encode on the runner's execution context.
#include "runner/audio_encoder.h"

#include <fmt/format.h>

#include "mm/audio_input.h"
#include "model/gemma4/audio_tower.h"
#include "model/gemma4/config.h"

namespace gemmad::runner {
namespace {

class AudioEncoder final : public MultimodalEncoder {
 public:
  AudioEncoder(std::unique_ptr<model::gemma4::AudioTower> tower, kernels::ExecContext exec)
      : tower_(std::move(tower)), exec_(exec) {}

  bool Supports(mm::Modality modality) const override { return modality == mm::Modality::kAudio; }

  Result<std::vector<float>> Encode(const mm::Item& item) override {
    const std::string_view what = mm::ModalityName(item.modality);
    if (!Supports(item.modality)) {
      return InvalidArgumentError(fmt::format("the audio encoder cannot encode {} items", what));
    }
    const auto* feats = dynamic_cast<const mm::AudioFeatures*>(item.data.get());
    if (feats == nullptr) return InvalidArgumentError("audio item: its data are not audio features");
    const int64_t mels = tower_->config().num_mels();
    if (feats->num_mels != mels) {
      return InvalidArgumentError(
          fmt::format("audio item: features of {} mel bins, the audio tower reads {}", feats->num_mels, mels));
    }
    const int64_t n = feats->num_soft_tokens();
    if (item.placeholder_length != n) {
      return InvalidArgumentError(fmt::format("audio item: {} placeholder tokens for {} soft tokens ({} frames)",
                                              item.placeholder_length, n, feats->num_frames));
    }
    std::vector<float> out(static_cast<size_t>(n * tower_->text_hidden()));
    GEMMAD_RETURN_IF_ERROR(tower_->Encode(exec_, feats->num_frames, feats->features, out));
    return out;
  }

 private:
  std::unique_ptr<model::gemma4::AudioTower> tower_;
  kernels::ExecContext exec_;
};

}  // namespace

Result<std::unique_ptr<MultimodalEncoder>> CreateGemma4AudioEncoder(std::shared_ptr<const model::WeightSource> source,
                                                                    kernels::ExecContext exec) {
  if (source == nullptr) return InvalidArgumentError("audio encoder: no weight source");
  GEMMAD_ASSIGN_OR_RETURN(model::gemma4::Config config,
                          model::gemma4::ParseConfig(source->config_json(), source->config_label()));
  if (!config.audio) {
    return NotFoundError(fmt::format("{}: the checkpoint has no audio tower (config.json has no audio_config)",
                                     source->label()));
  }
  GEMMAD_ASSIGN_OR_RETURN(auto tower, model::gemma4::AudioTower::Load(source, *config.audio, config.hidden_size));
  return std::unique_ptr<MultimodalEncoder>(new AudioEncoder(std::move(tower), exec));
}

}  // namespace gemmad::runner
