// Tests for the Gemma 4 marker scanner (markers.h).
#include "parse/gemma4/markers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gemmad::parse::gemma4 {
namespace {

std::string Render(const std::vector<Piece>& pieces) {
  std::string s;
  for (const auto& p : pieces) {
    s += p.marker == Marker::kNone ? "[" + p.text + "]" : "#" + std::string(MarkerText(p.marker));
  }
  return s;
}

std::vector<Piece> ScanAll(const std::vector<std::string>& chunks) {
  MarkerScanner scanner;
  std::vector<Piece> out;
  for (const auto& c : chunks) scanner.Feed(c, out);
  scanner.Finish(out);
  // Merge adjacent text pieces (chunking may cut text anywhere).
  std::vector<Piece> merged;
  for (auto& p : out) {
    if (!merged.empty() && p.marker == Marker::kNone && merged.back().marker == Marker::kNone) {
      merged.back().text += p.text;
    } else {
      merged.push_back(p);
    }
  }
  return merged;
}

TEST(Markers, NoMarkerIsAPrefixOfAnother) {
  for (const auto& a : AllMarkers()) {
    for (const auto& b : AllMarkers()) {
      if (a.marker == b.marker) continue;
      EXPECT_NE(b.text.substr(0, a.text.size()), a.text) << a.text << " prefixes " << b.text;
    }
  }
}

TEST(MarkerScanner, SplitsTextAndMarkers) {
  EXPECT_EQ(Render(ScanAll({"a<|tool_call>call:f{x:<|\"|>1<|\"|>}<tool_call|>b"})),
            "[a]#<|tool_call>[call:f{x:]#<|\"|>[1]#<|\"|>[}]#<tool_call|>[b]");
  EXPECT_EQ(Render(ScanAll({"<bos>x<eos><|tool"})), "[<bos>x<eos><|tool]");
}

TEST(MarkerScanner, HoldsBackAPartialMarker) {
  MarkerScanner scanner;
  std::vector<Piece> out;
  scanner.Feed("ab<|cha", out);
  EXPECT_EQ(Render(out), "[ab]");
  scanner.Feed("nnel>z", out);
  EXPECT_EQ(Render(out), "[ab]#<|channel>[z]");
  out.clear();
  scanner.Feed("x<", out);
  EXPECT_EQ(Render(out), "[x]");
  scanner.Feed("div>", out);  // not a marker after all
  EXPECT_EQ(Render(out), "[x<div>]");
}

TEST(MarkerScanner, EveryByteSplitGivesTheSameResult) {
  const std::string text = "h\xC3\xA9<|channel>thought\n\xE2\x82\xAC<channel|><|\"|><|\"|<turn|>";
  const std::string whole = Render(ScanAll({text}));
  std::vector<std::string> bytes;
  for (char c : text) bytes.emplace_back(1, c);
  EXPECT_EQ(Render(ScanAll(bytes)), whole);
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    EXPECT_EQ(Render(ScanAll({text.substr(0, cut), text.substr(cut)})), whole) << cut;
  }
}

TEST(MarkerScanner, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_EQ(Render(ScanAll({"a\xFF", "b\xE2\x82"})), "[a\xEF\xBF\xBD" "b\xEF\xBF\xBD]");
  EXPECT_EQ(Render(ScanAll({"\xE2\x82<|turn>"})), "[\xEF\xBF\xBD]#<|turn>");
}


}  // namespace
}  // namespace gemmad::parse::gemma4

namespace gemmad::parse::gemma4 {
namespace {

TEST(Markers, LongestMarkerFitsTheConstant) {
  size_t longest = 0;
  for (const auto& m : AllMarkers()) longest = std::max(longest, m.text.size());
  EXPECT_EQ(longest, kMaxMarkerBytes);
}

std::string Filter(const std::vector<std::string>& pieces) {
  MarkerFilter f;
  std::string out;
  for (const auto& p : pieces) f.Push(p, out);
  f.Flush(out);
  return out;
}

TEST(MarkerFilter, RemovesMarkersFormedByJoins) {
  EXPECT_EQ(Filter({"<|\"", "|>x"}), "x");
  EXPECT_EQ(Filter({"a<|\"", "<|\"", "|>", "|>b"}), "ab");
  EXPECT_EQ(Filter({"<|tool", "_call>", "<", "div>"}), "<div>");
  EXPECT_EQ(Filter({"plain < text", " <|"}), "plain < text <|");
}

TEST(MarkerFilter, HoldsOnlyAPossibleMarker) {
  MarkerFilter f;
  std::string out;
  f.Push("ab<|tu", out);
  EXPECT_EQ(out, "ab");
  f.Push("x", out);
  EXPECT_EQ(out, "ab<|tux");
}


// The filter as it was before it reused the last push's hold-back chain: every push walks the
// whole chain again. The filter must emit exactly what this does, push by push.
class WalkingFilter {
 public:
  void Push(std::string_view text, std::string& out) {
    if (text.empty()) return;
    std::string buf = std::move(held_);
    buf.append(text);
    held_.clear();
    for (size_t from = 0;;) {
      const size_t lt = buf.find('<', from);
      if (lt == std::string::npos) break;
      if (size_t n = FullMarkerAt(buf, lt)) {
        buf.erase(lt, n);
        from = lt >= kMaxMarkerBytes ? lt - kMaxMarkerBytes : 0;
      } else {
        from = lt + 1;
      }
    }
    size_t hold = buf.size();
    for (;;) {
      size_t k = hold > kMaxMarkerBytes ? hold - kMaxMarkerBytes : 0;
      while (k < hold && !(buf[k] == '<' && IsProperPrefix(std::string_view(buf).substr(k, hold - k)))) ++k;
      if (k == hold || buf.size() - k > 4096) break;
      hold = k;
    }
    held_ = buf.substr(hold);
    buf.resize(hold);
    out += buf;
  }
  void Flush(std::string& out) {
    out += held_;
    held_.clear();
  }

 private:
  static size_t FullMarkerAt(std::string_view s, size_t at) {
    for (const auto& m : AllMarkers()) {
      if (s.substr(at).substr(0, m.text.size()) == m.text) return m.text.size();
    }
    return 0;
  }
  static bool IsProperPrefix(std::string_view s) {
    for (const auto& m : AllMarkers()) {
      if (s.size() < m.text.size() && m.text.substr(0, s.size()) == s) return true;
    }
    return false;
  }
  std::string held_;
};

TEST(MarkerFilter, EmitsWhatAWalkOfTheWholeChainEmitsPushByPush) {
  // Marker pieces, whole markers and plain bytes, in texts of up to 12 KB (chains past the 4 KiB
  // hold-back cap), cut into pushes of 1..40 bytes.
  const std::vector<std::string> atoms = {"<", "<|", "<|t", "<|tu", "<|turn", "rn>", ">", "|>", "<|\"", "\"|>",
                                          "<|\"|>", "<turn|>", "<|channel>", "x", "ab", " ", "<tool", "_call>",
                                          "<|tool_call>", "call|>", "<|im", "age|>"};
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const size_t len = 1 + next() % (round % 30 == 0 ? 12000 : 600);
    const size_t kinds = 2 + next() % (atoms.size() - 1);  // the first 2..all atoms
    while (text.size() < len) text += atoms[next() % kinds];
    MarkerFilter filter;
    WalkingFilter walking;
    std::string got, want;
    const size_t max_push = 1 + next() % 40;
    for (size_t i = 0; i < text.size();) {
      const size_t n = std::min<size_t>(1 + next() % max_push, text.size() - i);
      filter.Push(std::string_view(text).substr(i, n), got);
      walking.Push(std::string_view(text).substr(i, n), want);
      ASSERT_EQ(got, want) << "round " << round << " after " << i + n << " bytes";
      i += n;
    }
    filter.Flush(got);
    walking.Flush(want);
    ASSERT_EQ(got, want) << "round " << round;
  }
}

}  // namespace
}  // namespace gemmad::parse::gemma4
