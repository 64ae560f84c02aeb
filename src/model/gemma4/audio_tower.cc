// AudioTower: loading, the relative position table, and the per-clip forward pass (the blocks live
// in audio_subsample.cc, audio_conformer.cc and audio_output.cc).
#include "model/gemma4/audio_tower.h"

#include <fmt/format.h>

#include <cmath>

#include "kernels/ops.h"
#include "model/gemma4/audio_blocks.h"
#include "model/gemma4/view_helpers.h"

namespace gemmad::model::gemma4 {
namespace {

using tensor::DType;
using tensor::TensorView;

// HF Gemma4AudioRelPositionalEncoding in fp32: inv[i] = exp(−i · ln(10⁴) / max(n − 1, 1)),
// n = Da / 2; row r is position W/2 − r: [sin(p · inv), cos(p · inv)].
std::vector<float> RelativePositionTable(const AudioConfig& c) {
  const int64_t n = c.hidden_size / 2, half = c.context_size() / 2, rows = half + 1;
  const auto inc = static_cast<float>(std::log(10000.0) / static_cast<double>(std::max<int64_t>(n - 1, 1)));
  std::vector<float> pe(static_cast<size_t>(rows * c.hidden_size));
  for (int64_t r = 0; r < rows; ++r) {
    const auto pos = static_cast<float>(half - r);
    for (int64_t i = 0; i < n; ++i) {
      const float x = pos * std::exp(static_cast<float>(i) * -inc);
      pe[static_cast<size_t>(r * c.hidden_size + i)] = std::sin(x);
      pe[static_cast<size_t>(r * c.hidden_size + n + i)] = std::cos(x);
    }
  }
  return pe;
}

}  // namespace

Result<std::unique_ptr<AudioTower>> AudioTower::Load(std::shared_ptr<const WeightSource> source,
                                                     const AudioConfig& config, int64_t text_hidden) {
  if (source == nullptr) return InvalidArgumentError("audio tower: no weight source");
  std::unique_ptr<AudioTower> t(new AudioTower());
  GEMMAD_ASSIGN_OR_RETURN(t->weights_, LoadAudioWeights(*source, config, text_hidden));
  t->rel_pe_ = RelativePositionTable(config);
  t->source_ = std::move(source);
  t->config_ = config;
  t->text_hidden_ = text_hidden;
  return t;
}

Status AudioTower::Encode(const kernels::ExecContext& ctx, int64_t num_frames, std::span<const float> features,
                          std::span<float> out, AudioTrace* trace) const {
  const int64_t f = num_frames, m = config_.num_mels(), t = NumSoftTokens(f);
  if (f < 0 || f > kMaxAudioFrames) {
    return InvalidArgumentError(fmt::format("audio tower: {} feature frames (expected 0 to {}, 30 s)", f,
                                            kMaxAudioFrames));
  }
  if (features.size() != static_cast<size_t>(f * m)) {
    return InvalidArgumentError(fmt::format("audio tower: {} feature values for {} frames of {} mels", features.size(),
                                            f, m));
  }
  if (out.size() != static_cast<size_t>(t * text_hidden_)) {
    return InvalidArgumentError(fmt::format("audio tower: an output of {} floats for {} soft tokens of width {}",
                                            out.size(), t, text_hidden_));
  }
  if (trace != nullptr) *trace = {};
  if (f == 0) return OkStatus();
  const int64_t d = config_.hidden_size, dout = config_.output_proj_dims;
  audio::Buffers b;
  b.Bind(kernels::ScratchAllocatorOf(ctx));
  const TensorView feats = b.features.View({f, m});
  kernels::Copy(ctx, HostView(features.data(), {f, m}), feats);
  const auto rows = static_cast<int64_t>(rel_pe_.size()) / d;
  const TensorView pe = b.pe.View({rows, d});
  kernels::Copy(ctx, HostView(rel_pe_.data(), {rows, d}), pe);

  const TensorView h = b.h.View({t, d});
  audio::Subsample(ctx, config_, weights_, feats, b, h);
  if (trace != nullptr) trace->subsampled = ToHost(ctx, h);
  for (const AudioLayerWeights& lw : weights_.layers) {
    audio::ConformerLayer(ctx, config_, lw, pe, b, h);
    if (trace != nullptr) trace->layers.push_back(ToHost(ctx, h));
  }
  const std::vector<int64_t> zeros_host(static_cast<size_t>(t), 0);
  const TensorView zeros = b.zeros.View({t}, DType::kI64);
  kernels::Copy(ctx, HostView(zeros_host.data(), {t}, DType::kI64), zeros);
  const TensorView y = b.out.View({t, dout});
  audio::OutputProjection(ctx, weights_, h, zeros, b, y);
  if (trace != nullptr) trace->output_proj = ToHost(ctx, y);
  const TensorView emb = b.proj.View({t, text_hidden_});
  audio::Project(ctx, config_, weights_, y, b, emb);
  kernels::Copy(ctx, emb, HostView(out.data(), {t, text_hidden_}));
  return OkStatus();
}

}  // namespace gemmad::model::gemma4
