#include "kernels/stream_params.h"

#include "kernels/stream_params_choice.h"

namespace gemmad::kernels {
namespace {

StreamParams& Params() {
  static StreamParams params = AppliedStreamChoice().params;
  return params;
}

}  // namespace

const StreamParams& ActiveStreamParams() { return Params(); }
void SetStreamParams(const StreamParams& params) { Params() = params; }

}  // namespace gemmad::kernels
