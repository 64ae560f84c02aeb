// Tests for the Gemma 4 marker scanner (markers.h).
#include "parse/gemma4/markers.h"

#include <gtest/gtest.h>

#include <algorithm>

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

}  // namespace
}  // namespace gemmad::parse::gemma4
