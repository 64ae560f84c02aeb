// EncoderSet: items go to the encoder of their modality; none: an error.
#include "runner/encoder_set.h"

#include <gtest/gtest.h>

namespace gemmad::runner {
namespace {

class TaggedEncoder : public MultimodalEncoder {
 public:
  TaggedEncoder(mm::Modality m, float tag) : modality_(m), tag_(tag) {}
  bool Supports(mm::Modality m) const override { return m == modality_; }
  Result<std::vector<float>> Encode(const mm::Item& item) override {
    return std::vector<float>(static_cast<size_t>(item.placeholder_length), tag_);
  }

 private:
  mm::Modality modality_;
  float tag_;
};

mm::Item ItemOf(mm::Modality m) {
  mm::Item item;
  item.modality = m;
  item.placeholder_length = 2;
  return item;
}

TEST(EncoderSetTest, DispatchesByModality) {
  std::vector<std::unique_ptr<MultimodalEncoder>> v;
  v.push_back(std::make_unique<TaggedEncoder>(mm::Modality::kImage, 1.0f));
  v.push_back(std::make_unique<TaggedEncoder>(mm::Modality::kAudio, 3.0f));
  auto set = CombineEncoders(std::move(v));
  ASSERT_NE(set, nullptr);
  EXPECT_TRUE(set->Supports(mm::Modality::kImage));
  EXPECT_TRUE(set->Supports(mm::Modality::kAudio));
  EXPECT_FALSE(set->Supports(mm::Modality::kVideo));
  auto a = set->Encode(ItemOf(mm::Modality::kAudio));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, (std::vector<float>{3.0f, 3.0f}));
  auto i = set->Encode(ItemOf(mm::Modality::kImage));
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(*i, (std::vector<float>{1.0f, 1.0f}));
  auto none = set->Encode(ItemOf(mm::Modality::kVideo));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no encoder for video"), std::string::npos);
}

TEST(EncoderSetTest, CombineKeepsASingleEncoderAndDropsNulls) {
  std::vector<std::unique_ptr<MultimodalEncoder>> none;
  none.push_back(nullptr);
  EXPECT_EQ(CombineEncoders(std::move(none)), nullptr);
  std::vector<std::unique_ptr<MultimodalEncoder>> one;
  auto* raw = new TaggedEncoder(mm::Modality::kAudio, 2.0f);
  one.emplace_back(raw);
  one.push_back(nullptr);
  auto got = CombineEncoders(std::move(one));
  EXPECT_EQ(got.get(), raw);
}

}  // namespace
}  // namespace gemmad::runner
