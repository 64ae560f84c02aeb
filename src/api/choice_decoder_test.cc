// ChoiceDecoder: the text of a choice equals the decoded tokens, whatever ends it.
#include "api/choice_decoder.h"

#include <gtest/gtest.h>

#include "base/check.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api {
namespace {

const tokenizer::Tokenizer& Tok() {
  static auto tok = tokenizer::Tokenizer::Load(std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4");
  GEMMAD_CHECK(tok.ok(), "{}", tok.status().ToString());
  return **tok;
}

// Found by the structured-output e2e test: ids 339 "e" and 331 "]" are byte-fallback tokens,
// which the incremental detokenizer holds until a normal token follows. A stop token right after
// them (not decoded) must not lose them.
TEST(ChoiceDecoderTest, ByteTokensBeforeTheStopTokenAreKept) {
  const std::vector<int32_t> ids = {236840, 354, 816, 236744, 236764, 14784, 236751, 339, 331, 106};
  ASSERT_EQ(Tok().Decode(std::vector<int32_t>(ids.begin(), ids.end() - 1), false), "[true, false]");
  for (bool skip : {true, false}) {
    for (size_t split : {size_t{1}, size_t{8}, ids.size()}) {
      TextParams params;
      params.skip_special_tokens = skip;
      ChoiceDecoder d(Tok(), params);
      std::string streamed;
      for (size_t i = 0; i < ids.size(); i += split) {
        size_t end = std::min(ids.size(), i + split);
        std::vector<int32_t> part(ids.begin() + static_cast<ptrdiff_t>(i), ids.begin() + static_cast<ptrdiff_t>(end));
        bool last = end == ids.size();
        streamed += d.Feed(part, /*ended_by_stop_token=*/last, /*finished=*/last).text;
      }
      EXPECT_EQ(streamed, "[true, false]") << "skip=" << skip << " split=" << split;
      EXPECT_EQ(d.text(), "[true, false]");
      EXPECT_EQ(d.num_tokens(), 10);
    }
  }
}

TEST(ChoiceDecoderTest, ByteTokensAtLengthAreKept) {
  TextParams params;
  ChoiceDecoder d(Tok(), params);
  std::string s = d.Feed({236840, 339}, false, false).text;
  s += d.Feed({331}, false, /*finished=*/true).text;  // finished by length: no stop token
  EXPECT_EQ(s, "[e]");
}

}  // namespace
}  // namespace gemmad::api
