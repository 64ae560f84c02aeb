// The decode kernels' streaming parameters (kernels/stream_params.h) change only how far ahead
// and into which cache the weights are prefetched, never a result: bf16, int8 (Q8_R) and int4
// (Q4_0) batch-1 Linear give the same bits under every level, distance and number of row streams,
// including distances that reach far past the end of the matrix (a prefetch never faults).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels/reference/quant.h"
#include "kernels/registry.h"
#include "kernels/stream_params.h"
#include "kernels/stream_params_choice.h"
#include "parity_util.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;

std::vector<StreamParams> Variants() {
  std::vector<StreamParams> out;
  for (const char* spec : {"level=off", "level=l1", "level=l2", "ahead_short=64,ahead_long=64,level=l1",
                           "ahead_short=1024k,ahead_long=1024k,level=l2", "long_row=64,ahead_long=256,level=l1",
                           "long_streams=8,level=off", "long_row=64,long_streams=8,level=l2"}) {
    auto p = ParseStreamParams(spec);
    EXPECT_TRUE(p.ok()) << spec;
    if (p.ok()) out.push_back(*p);
  }
  return out;
}

TEST(StreamParamsParity, ResultsDoNotDependOnTheStreamingParameters) {
  const StreamParams saved = ActiveStreamParams();
  Rng rng(21);
  for (int64_t in : {96, 1536, 4128}) {
    const int64_t out = 37;
    std::vector<float> wf;
    auto wb = testing::RandomBf16(rng, out * in, &wf, 0.05);
    auto x = testing::RandomFloats(rng, in, 1.0);
    testing::Misaligned<int8_t> q(in);
    testing::Misaligned<float> d(in / 32);
    reference::QuantizeActs(x.data(), 1, in, q.data(), d.data());
    const auto q8 = reference::QuantizeRows(wf.data(), out, in, DType::kQ8R);
    const auto q4 = reference::QuantizeRows(wf.data(), out, in, DType::kQ4_0);
    testing::ForEachKernelTable([&](const CpuKernelTable& t) {
      std::vector<float> first_bf16, first_q8, first_q4;
      for (const StreamParams& p : Variants()) {
        SetStreamParams(p);
        std::vector<float> yb(out), y8(out), y4(out);
        t.linear_bf16(x.data(), 1, in, wb.data(), 0, out, yb.data(), out);
        t.linear_q8r(q.data(), d.data(), 1, in, q8.data(), out, 0, out, y8.data(), out);
        t.linear_q4_0(q.data(), d.data(), 1, in, q4.data(), out, 0, out, y4.data(), out);
        if (first_bf16.empty()) {
          first_bf16 = yb, first_q8 = y8, first_q4 = y4;
          continue;
        }
        EXPECT_EQ(yb, first_bf16) << "in=" << in << " " << FormatStreamParams(p);
        EXPECT_EQ(y8, first_q8) << "in=" << in << " " << FormatStreamParams(p);
        EXPECT_EQ(y4, first_q4) << "in=" << in << " " << FormatStreamParams(p);
      }
    });
  }
  SetStreamParams(saved);
}

}  // namespace
}  // namespace gemmad::kernels
