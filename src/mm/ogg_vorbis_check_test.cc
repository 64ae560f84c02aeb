// CheckOggVorbisHeaders: valid Vorbis and non-Vorbis streams pass; the malformed Vorbis headers
// that make libsndfile leak (a fuzz finding, kept in the corpus) are refused before it sees them.
#include "mm/ogg_vorbis_check.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/files.h"

namespace gemmad::mm {
namespace {

std::vector<uint8_t> Read(const std::string& relative) {
  auto s = ReadFileToString(std::string(GEMMAD_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(s.ok()) << relative;
  return s.ok() ? std::vector<uint8_t>(s->begin(), s->end()) : std::vector<uint8_t>{};
}

TEST(OggVorbisCheck, ValidVorbisAndOtherStreamsPass) {
  EXPECT_TRUE(CheckOggVorbisHeaders(Read("tests/golden/media_audio/vorbis_22k_mono.ogg")).ok());
  EXPECT_TRUE(CheckOggVorbisHeaders(Read("tests/golden/media_audio/opus_48k_mono.opus")).ok());  // Opus: not checked
  EXPECT_TRUE(CheckOggVorbisHeaders(Read("tests/golden/media_audio/flac_44k_stereo.flac")).ok());  // not Ogg
  const std::vector<uint8_t> tiny = {'O', 'g', 'g', 'S'};
  EXPECT_TRUE(CheckOggVorbisHeaders(tiny).ok());  // no complete page: libsndfile refuses it itself
}

TEST(OggVorbisCheck, MalformedVorbisHeadersAreRefused) {
  const Status leak = CheckOggVorbisHeaders(Read("fuzz/corpus/audio_decode/regression-leak-a34f580dd8238c787f55c40b22040e2ff825239c"));
  ASSERT_FALSE(leak.ok());
  EXPECT_NE(leak.message().find("malformed Ogg Vorbis headers"), std::string::npos) << leak.message();
  // The same after a broken page start (libogg resyncs to the next "OggS").
  EXPECT_FALSE(CheckOggVorbisHeaders(Read("fuzz/corpus/audio_decode/regression-leak-b2138c211a67ec407cc6031f19db33aaf6d23b1a")).ok());
  // The same behind an ID3 tag, which libsndfile skips.
  EXPECT_FALSE(CheckOggVorbisHeaders(Read("fuzz/corpus/audio_decode/regression-leak-3dc144cbf122e20cd56fc4cc1d877add1cbcfd50")).ok());
  // A valid file cut inside its setup header.
  std::vector<uint8_t> cut = Read("tests/golden/media_audio/vorbis_22k_mono.ogg");
  ASSERT_GT(cut.size(), 200u);
  cut.resize(200);
  EXPECT_FALSE(CheckOggVorbisHeaders(cut).ok());
}

}  // namespace
}  // namespace gemmad::mm
