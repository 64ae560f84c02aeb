// MtpDrafter: the donor K/V views from the step's block tables, then the draft steps.
#include "runner/mtp_drafter.h"

#include <fmt/format.h>

#include "model/gemma4/kv_scales.h"

namespace gemmad::runner {

MtpDrafter::MtpDrafter(std::unique_ptr<model::gemma4::Assistant> assistant, const model::gemma4::Model& target,
                       int32_t num_tokens)
    : assistant_(std::move(assistant)), target_(target), num_tokens_(num_tokens) {
  const auto& c = target.config();
  for (int64_t l = c.first_kv_shared_layer() - 1; l >= 0; --l) {
    int64_t& donor = c.is_sliding(l) ? donor_sliding_ : donor_full_;
    if (donor < 0) donor = l;
  }
}

Result<std::vector<int32_t>> MtpDrafter::Propose(const kernels::ExecContext& exec, const sched::ScheduledSeq& s,
                                                 int32_t offset, std::span<const float> hidden, int32_t token,
                                                 const model::KvCache& cache) const {
  const int64_t p = s.num_computed_tokens + offset + 1;  // tau's position; keys [0, p) are the accepted sequence
  const auto& spec = cache.spec();
  std::vector<int32_t> tables[2];
  model::gemma4::DonorKv donors[2];
  const int64_t layers[2] = {donor_sliding_, donor_full_};
  for (int t = 0; t < 2; ++t) {
    if (layers[t] < 0) continue;  // the assistant has no layer of that type (CheckAssistantFitsTarget)
    const int group = spec.layer_group[static_cast<size_t>(layers[t])];
    for (kv::BlockId b : s.block_tables[static_cast<size_t>(group)]) tables[t].push_back(b == kv::kNullBlock ? -1 : b - 1);
    donors[t].k_cache = cache.k(layers[t]);
    donors[t].v_cache = cache.v(layers[t]);
    donors[t].scales = model::gemma4::KvScalesFor(target_.weights(), spec, layers[t], cache.k(layers[t]).dtype);
    donors[t].block_table = tables[t].data();
    donors[t].block_table_size = static_cast<int64_t>(tables[t].size());
    donors[t].last_key = p - 1;
    donors[t].window = t == 0 ? target_.config().sliding_window + 1 : 0;
  }
  const int64_t H = target_.config().hidden_size;
  std::vector<float> embedding(static_cast<size_t>(H));
  std::vector<float> backbone(hidden.begin(), hidden.end());
  std::vector<int32_t> drafts;
  model::gemma4::DraftStepResult step;
  for (int32_t k = 0; k < num_tokens_; ++k) {
    target_.EmbedToken(exec, token, embedding);
    GEMMAD_RETURN_IF_ERROR(assistant_->DraftStep(exec, embedding, backbone, p, donors[0], donors[1], &step));
    drafts.push_back(step.token);
    token = step.token;
    backbone.swap(step.backbone);
  }
  return drafts;
}

}  // namespace gemmad::runner
