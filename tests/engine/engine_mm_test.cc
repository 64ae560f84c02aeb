// The model-input seam at engine level: multimodal items travel from the EngineRequest through
// the scheduler (block hashes, chunking) to the runner's encoder, with a fake encoder whose rows
// stand in for the placeholder tokens in the FakeRunner's KV.
#include <gtest/gtest.h>

#include <atomic>

#include "engine_test_util.h"
#include "mm/item.h"
#include "runner/mm_encoder.h"
#include "sched/scheduler.h"

namespace gemmad::engine::testing {
namespace {

struct FakeImage : mm::ItemData {
  explicit FakeImage(uint64_t s) : seed(s) {}
  uint64_t seed;
};

class FakeImageEncoder : public runner::MultimodalEncoder {
 public:
  explicit FakeImageEncoder(int64_t hidden) : hidden_(hidden) {}
  bool Supports(mm::Modality m) const override { return m == mm::Modality::kImage; }
  Result<std::vector<float>> Encode(const mm::Item& item) override {
    ++calls;
    const auto* img = dynamic_cast<const FakeImage*>(item.data.get());
    if (img == nullptr) return InvalidArgumentError("not a FakeImage");
    std::vector<float> rows(static_cast<size_t>(item.placeholder_length * hidden_));
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>((img->seed * 131 + i * 7) % 97) / 7.0f;
    return rows;
  }
  std::atomic<int> calls{0};

 private:
  int64_t hidden_;
};

constexpr int32_t kImageToken = 50;

mm::Item Image(uint64_t seed, int64_t offset, int64_t length, bool bidirectional = false) {
  mm::Item it;
  it.modality = mm::Modality::kImage;
  it.placeholder_offset = offset;
  it.placeholder_length = length;
  it.hash = {seed, seed * 7919};
  it.bidirectional = bidirectional;
  it.data = std::make_shared<FakeImage>(seed);
  return it;
}

// 8 text tokens, 12 image placeholders, 6 text tokens.
EngineRequest ImageRequest(uint64_t image_seed) {
  std::vector<int32_t> prompt = Prompt(8, 3);
  prompt.insert(prompt.end(), 12, kImageToken);
  auto tail = Prompt(6, 4);
  prompt.insert(prompt.end(), tail.begin(), tail.end());
  EngineRequest r = Request(prompt, 6);
  r.sampling.temperature = 0.0f;
  r.mm_items.push_back(Image(image_seed, 8, 12));
  return r;
}

TestEngineOptions MmOptions(std::shared_ptr<FakeImageEncoder> encoder) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;  // full-length outputs
  o.encoder = std::move(encoder);
  return o;
}

TEST(EngineMultimodal, TwoImagesWithIdenticalPlaceholdersNeverShareACachedPrefix) {
  auto encoder = std::make_shared<FakeImageEncoder>(4);
  auto engine = MakeEngine(MmOptions(encoder));
  auto a = RunOne(*engine, ImageRequest(1));
  ASSERT_EQ(a[0].tokens.size(), 6u);
  EXPECT_EQ(a[0].num_cached_tokens, 0);
  EXPECT_EQ(encoder->calls, 1);

  // Same tokens, another image: only the blocks before the image (2 of 4 tokens) are shared.
  auto b = RunOne(*engine, ImageRequest(2));
  EXPECT_EQ(b[0].num_cached_tokens, 8);
  EXPECT_NE(b[0].tokens, a[0].tokens) << "the image content must reach the model";
  EXPECT_EQ(encoder->calls, 2);

  // The first image again: every full block is a hit, the image need not be encoded again,
  // and the output is the first one.
  auto c = RunOne(*engine, ImageRequest(1));
  EXPECT_EQ(c[0].num_cached_tokens, 24);
  EXPECT_EQ(c[0].tokens, a[0].tokens);
  EXPECT_EQ(encoder->calls, 2);

  // Without the prefix cache, each image alone gives the same outputs.
  TestEngineOptions alone = MmOptions(std::make_shared<FakeImageEncoder>(4));
  alone.prefix_caching = false;
  EXPECT_EQ(RunAlone(alone, ImageRequest(1))[0].tokens, a[0].tokens);
  EXPECT_EQ(RunAlone(alone, ImageRequest(2))[0].tokens, b[0].tokens);
}

TEST(EngineMultimodal, AdmissionChecksItems) {
  auto engine = MakeEngine(MmOptions(std::make_shared<FakeImageEncoder>(4)));
  EngineRequest audio = ImageRequest(1);
  audio.mm_items[0].modality = mm::Modality::kAudio;
  auto s = engine->Submit(std::move(audio));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "This model does not accept audio input.");

  EngineRequest outside = ImageRequest(1);
  outside.mm_items[0].placeholder_length = 100;
  EXPECT_FALSE(engine->Submit(std::move(outside)).ok());

  EngineRequest overlap = ImageRequest(1);
  overlap.mm_items.push_back(Image(2, 10, 2));
  EXPECT_FALSE(engine->Submit(std::move(overlap)).ok());

  // A bidirectional span must fit one step (--max-num-batched-tokens 64 here).
  EngineRequest big = Request(std::vector<int32_t>(80, kImageToken), 2);
  big.mm_items.push_back(Image(3, 0, 70, /*bidirectional=*/true));
  auto b = engine->Submit(std::move(big));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("--max-num-batched-tokens is 64"), std::string::npos) << b.status().message();

  auto text_only = MakeEngine(TestEngineOptions{});
  EXPECT_FALSE(text_only->Submit(ImageRequest(1)).ok());
}

TEST(EngineMultimodal, BidirectionalSpansAreNeverSplitAcrossChunks) {
  kv::KvCacheConfig kv;
  kv.block_size = 4;
  kv.groups.push_back({"full", kv::KvGroupKind::kFull, 0, 64, 1});
  sched::Scheduler sched({4, 16, 256}, kv);
  sched::SequenceSpec spec;
  spec.id = 1;
  spec.prompt_token_ids = Prompt(30, 5);
  spec.params.max_tokens = 1;
  spec.mm_items.push_back(Image(1, 6, 12, /*bidirectional=*/true));  // [6, 18)
  spec.mm_items.push_back(Image(2, 20, 4));                          // causal: may be split
  sched.Add(spec);
  std::vector<std::pair<int64_t, int64_t>> chunks;
  while (sched.has_work()) {
    auto out = sched.Schedule();
    ASSERT_EQ(out.seqs.size(), 1u);
    const auto& s = out.seqs[0];
    chunks.emplace_back(s.num_computed_tokens, s.num_computed_tokens + s.num_scheduled_tokens);
    std::vector<std::vector<int32_t>> sampled(1);
    if (s.sample) sampled[0] = {7};
    sched.Update(out, sampled);
  }
  // [0, 16) would cut the span: the first chunk stops at 6; the span goes whole; the causal
  // item at [20, 24) is cut at 22 by the budget as plain text would be.
  EXPECT_EQ(chunks, (std::vector<std::pair<int64_t, int64_t>>{{0, 6}, {6, 22}, {22, 30}}));
}

}  // namespace
}  // namespace gemmad::engine::testing
