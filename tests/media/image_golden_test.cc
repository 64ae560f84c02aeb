// DecodeImage against tests/golden/media_images: every file must decode to exactly the RGB bytes
// Pillow 12 + vLLM's ImageMediaIO conversion produce (scripts/golden/make_image_goldens.py). All
// formats are byte-exact, JPEG and lossy WebP included (same libjpeg-turbo and libwebp algorithms
// and settings on both sides), so the tolerance is zero.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <ostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "mm/image_decode.h"

namespace gemmad::mm {
namespace {

const std::string kDir = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/media_images/";

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Case {
  std::string name, file, rgb, pil_mode;
  int64_t width = 0, height = 0;
};

std::vector<Case> LoadCases() {
  std::ifstream in(kDir + "cases.json");
  nlohmann::json j = nlohmann::json::parse(in);
  std::vector<Case> out;
  for (const auto& c : j.at("cases")) {
    out.push_back({c.at("name"), c.at("file"), c.at("rgb"), c.at("pil_mode"), c.at("width"), c.at("height")});
  }
  return out;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.file; }

class ImageGolden : public ::testing::TestWithParam<Case> {};

TEST_P(ImageGolden, DecodesToVllmPixels) {
  const Case& c = GetParam();
  std::vector<uint8_t> bytes = ReadFile(kDir + c.file);
  std::vector<uint8_t> want = ReadFile(kDir + c.rgb);
  ASSERT_EQ(want.size(), static_cast<size_t>(c.width * c.height * 3));
  Result<Image> got = DecodeImage(bytes);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->width, c.width);
  ASSERT_EQ(got->height, c.height);
  ASSERT_EQ(got->rgb.size(), want.size());
  size_t differing = 0, first = want.size();
  int max_diff = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    int d = std::abs(int{got->rgb[i]} - int{want[i]});
    if (d != 0 && first == want.size()) first = i;
    differing += d != 0;
    max_diff = std::max(max_diff, d);
  }
  EXPECT_EQ(differing, 0u) << c.name << " (PIL mode " << c.pil_mode << "): max |diff| " << max_diff
                           << ", first at pixel " << first / 3 << " channel " << first % 3;
  // Deterministic: a second decode gives the same bytes.
  Result<Image> again = DecodeImage(bytes);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->rgb, got->rgb);
}

INSTANTIATE_TEST_SUITE_P(MediaImages, ImageGolden, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// The goldens cover every PIL mode the decoders have a rule for and every format.
TEST(ImageGoldenCoverage, EveryModeAndFormat) {
  std::set<std::string> modes;
  std::set<ImageFormat> formats;
  for (const Case& c : LoadCases()) {
    modes.insert(c.pil_mode);
    std::vector<uint8_t> bytes = ReadFile(kDir + c.file);
    formats.insert(SniffImageFormat(bytes));
  }
  EXPECT_EQ(modes, (std::set<std::string>{"1", "CMYK", "I;16", "L", "LA", "P", "RGB", "RGBA"}));
  EXPECT_EQ(formats, (std::set<ImageFormat>{ImageFormat::kJpeg, ImageFormat::kPng, ImageFormat::kWebp,
                                            ImageFormat::kGif, ImageFormat::kBmp}));
}

}  // namespace
}  // namespace gemmad::mm
