// Gemma 4 marker table and scanner (markers.h).
#include "parse/gemma4/markers.h"

#include "parse/text_util.h"

#include <algorithm>
#include <vector>

namespace gemmad::parse::gemma4 {

const std::vector<MarkerEntry>& AllMarkers() {
  static const std::vector<MarkerEntry> kMarkers = {
      {Marker::kToolDeclStart, "<|tool>"},
      {Marker::kToolDeclEnd, "<tool|>"},
      {Marker::kToolCallStart, "<|tool_call>"},
      {Marker::kToolCallEnd, "<tool_call|>"},
      {Marker::kToolResponseStart, "<|tool_response>"},
      {Marker::kToolResponseEnd, "<tool_response|>"},
      {Marker::kQuote, "<|\"|>"},
      {Marker::kThink, "<|think|>"},
      {Marker::kChannelStart, "<|channel>"},
      {Marker::kChannelEnd, "<channel|>"},
      {Marker::kTurnStart, "<|turn>"},
      {Marker::kTurnEnd, "<turn|>"},
      {Marker::kImageStart, "<|image>"},
      {Marker::kAudioStart, "<|audio>"},
      {Marker::kImage, "<|image|>"},
      {Marker::kAudio, "<|audio|>"},
      {Marker::kImageEnd, "<image|>"},
      {Marker::kAudioEnd, "<audio|>"},
      {Marker::kVideo, "<|video|>"},
  };
  return kMarkers;
}

std::string_view MarkerText(Marker marker) {
  for (const auto& m : AllMarkers()) {
    if (m.marker == marker) return m.text;
  }
  return {};
}

namespace {

constexpr size_t kMaxHeldBytes = 4096;

enum class Match { kNo, kFull, kPrefix };

// Whether `s` (starting with '<') is a marker, a proper prefix of one (undecidable yet), or
// neither. No marker is a prefix of another, so at most one full match exists.
Match MatchMarker(std::string_view s, Marker* marker, size_t* length) {
  bool prefix = false;
  for (const auto& m : AllMarkers()) {
    if (s.size() >= m.text.size()) {
      if (s.compare(0, m.text.size(), m.text) == 0) {
        *marker = m.marker;
        *length = m.text.size();
        return Match::kFull;
      }
    } else if (m.text.compare(0, s.size(), s) == 0) {
      prefix = true;
    }
  }
  return prefix ? Match::kPrefix : Match::kNo;
}

void PushText(std::string_view raw, bool at_end, std::vector<Piece>& out, size_t* consumed) {
  std::string valid;
  *consumed = AppendValidUtf8(raw, at_end, valid);
  if (valid.empty()) return;
  if (!out.empty() && out.back().marker == Marker::kNone) {
    out.back().text += valid;
  } else {
    out.push_back(Piece{Marker::kNone, std::move(valid)});
  }
}

}  // namespace

void MarkerScanner::Feed(std::string_view text, std::vector<Piece>& out) {
  pending_.append(text);
  Scan(/*at_end=*/false, out);
}

void MarkerScanner::Finish(std::vector<Piece>& out) {
  Scan(/*at_end=*/true, out);
  pending_.clear();
}

void MarkerScanner::Scan(bool at_end, std::vector<Piece>& out) {
  const std::string_view s = pending_;
  size_t text_start = 0;
  size_t i = 0;
  size_t hold = s.size();  // first byte not yet decided
  while (i < s.size()) {
    size_t lt = s.find('<', i);
    if (lt == std::string_view::npos) break;
    Marker marker = Marker::kNone;
    size_t length = 0;
    Match m = MatchMarker(s.substr(lt), &marker, &length);
    if (m == Match::kFull) {
      size_t consumed;
      PushText(s.substr(text_start, lt - text_start), /*at_end=*/true, out, &consumed);
      out.push_back(Piece{marker, {}});
      i = text_start = lt + length;
    } else if (m == Match::kPrefix && !at_end) {
      hold = lt;
      break;
    } else {
      i = lt + 1;
    }
  }
  size_t consumed;
  PushText(s.substr(text_start, hold - text_start), at_end, out, &consumed);
  pending_.erase(0, text_start + consumed);
}

void MarkerFilter::Push(std::string_view text, std::string& out) {
  if (text.empty()) return;
  std::string buf = std::move(held_);
  const size_t held = buf.size();
  buf.append(text);
  held_.clear();
  // Remove markers until none is left (no marker contains '<' after its first character, so
  // matches never overlap and leftmost-first removal is order-independent). The held part has
  // none (the last push removed them), so a new one takes a byte of `text`: it starts within the
  // held part's last kMaxMarkerBytes at the earliest (each removal rewinds as far for joins).
  size_t from = held > kMaxMarkerBytes ? held - kMaxMarkerBytes : 0;
  size_t unchanged = held;  // buf[0, unchanged) is the held part as the last push left it
  for (;;) {
    size_t lt = buf.find('<', from);
    if (lt == std::string::npos) break;
    Marker marker;
    size_t length;
    if (MatchMarker(std::string_view(buf).substr(lt), &marker, &length) == Match::kFull) {
      buf.erase(lt, length);
      unchanged = std::min(unchanged, lt);
      from = lt >= kMaxMarkerBytes ? lt - kMaxMarkerBytes : 0;  // a new one may end here
    } else {
      from = lt + 1;
    }
  }
  // Hold back what a future marker could still join into one: the longest suffix that is a
  // proper prefix of a marker, then, repeatedly, a proper prefix of a marker right before the
  // held part (it joins the text after the marker the held part may become). Bounded, so
  // absurd chains cost linear time. Each link is found from the bytes before it alone, so once the
  // walk reaches a point of the last push's chain (links_, its end included) below `unchanged`,
  // the rest of the chain is that one's, cut where the held bytes would pass kMaxHeldBytes.
  const size_t floor = buf.size() > kMaxHeldBytes ? buf.size() - kMaxHeldBytes : 0;
  std::vector<size_t> walked{buf.size()};  // the walk's points, descending
  std::vector<size_t> below;               // the last chain's points below the walk's, ascending
  for (;;) {
    const size_t hold = walked.back();
    if (hold <= unchanged && std::binary_search(links_.begin(), links_.end(), hold)) {
      below.assign(std::lower_bound(links_.begin(), links_.end(), floor),
                   std::lower_bound(links_.begin(), links_.end(), hold));
      break;
    }
    size_t k = hold > kMaxMarkerBytes ? hold - kMaxMarkerBytes : 0;
    for (; k < hold; ++k) {
      Marker marker;
      size_t length;
      if (buf[k] == '<' && MatchMarker(std::string_view(buf).substr(k, hold - k), &marker,
                                       &length) == Match::kPrefix) {
        break;
      }
    }
    if (k == hold || k < floor) break;
    walked.push_back(k);
  }
  links_ = std::move(below);
  links_.insert(links_.end(), walked.rbegin(), walked.rend());
  const size_t hold = links_.front();
  for (size_t& c : links_) c -= hold;
  held_ = buf.substr(hold);
  buf.resize(hold);
  out += buf;
}

void MarkerFilter::Flush(std::string& out) {
  links_.clear();
  out += held_;
  held_.clear();
}

}  // namespace gemmad::parse::gemma4
