// Pre-tokenizer implementations and their JSON parsing.
#include "tokenizer/pre_tokenizer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tokenizer/byte_level.h"
#include "tokenizer/pattern.h"
#include "tokenizer/unicode.h"

namespace gemmad::tokenizer {
namespace {

using Spans = std::vector<std::pair<size_t, size_t>>;

// Spans of single characters for which `pred` holds (HF Pattern for Fn(char) -> bool).
template <typename Pred>
void CharSpans(const std::string& s, Pred pred, Spans* out) {
  out->clear();
  size_t pos = 0;
  while (pos < s.size()) {
    size_t start = pos;
    char32_t c = unicode::DecodeUtf8(s, &pos);
    if (pred(c)) out->emplace_back(start, pos);
  }
}

// Applies `split(piece, &out)` to every piece.
template <typename F>
void ForEachPiece(std::vector<Piece>* pieces, F split) {
  std::vector<Piece> out;
  out.reserve(pieces->size());
  for (const Piece& p : *pieces) split(p, &out);
  *pieces = std::move(out);
}

class SequencePT : public PreTokenizer {
 public:
  explicit SequencePT(std::vector<std::unique_ptr<PreTokenizer>> parts) : parts_(std::move(parts)) {}
  void PreTokenize(std::vector<Piece>* pieces) const override {
    for (const auto& p : parts_) p->PreTokenize(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

class SplitPT : public PreTokenizer {
 public:
  SplitPT(Pattern p, SplitBehavior b, bool invert) : pattern_(std::move(p)), behavior_(b), invert_(invert) {}
  void PreTokenize(std::vector<Piece>* pieces) const override {
    Spans spans;
    ForEachPiece(pieces, [&](const Piece& p, std::vector<Piece>* out) {
      pattern_.FindMatches(p.text, &spans);
      SplitBySpans(p, spans, invert_, behavior_, out);
    });
  }

 private:
  Pattern pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

enum class PrependScheme { kFirst, kNever, kAlways };

class MetaspacePT : public PreTokenizer {
 public:
  MetaspacePT(char32_t replacement, PrependScheme scheme, bool split)
      : replacement_(replacement), scheme_(scheme), split_(split) {
    unicode::AppendUtf8(replacement, &rep_);
  }
  void PreTokenize(std::vector<Piece>* pieces) const override {
    Spans spans;
    ForEachPiece(pieces, [&](const Piece& p, std::vector<Piece>* out) {
      Piece q{std::string(), p.at_origin};
      q.text.reserve(p.text.size() + rep_.size());
      for (char c : p.text) {
        if (c == ' ') q.text.append(rep_);
        else q.text.push_back(c);
      }
      bool starts = q.text.compare(0, rep_.size(), rep_) == 0;
      if (!starts && (scheme_ == PrependScheme::kAlways || (scheme_ == PrependScheme::kFirst && p.at_origin))) {
        q.text.insert(0, rep_);
      }
      if (!split_) {
        if (!q.text.empty()) out->push_back(std::move(q));
        return;
      }
      CharSpans(q.text, [&](char32_t c) { return c == replacement_; }, &spans);
      SplitBySpans(q, spans, false, SplitBehavior::kMergedWithNext, out);
    });
  }

 private:
  char32_t replacement_;
  std::string rep_;
  PrependScheme scheme_;
  bool split_;
};

class ByteLevelPT : public PreTokenizer {
 public:
  ByteLevelPT(bool add_prefix_space, std::shared_ptr<const Regex> re) : add_prefix_space_(add_prefix_space), re_(std::move(re)) {}
  void PreTokenize(std::vector<Piece>* pieces) const override {
    std::vector<Piece> split;
    for (Piece& p : *pieces) {
      if (add_prefix_space_ && (p.text.empty() || p.text[0] != ' ')) p.text.insert(0, " ");
      if (re_) {
        SplitBySpans(p, re_->FindAll(p.text), false, SplitBehavior::kIsolated, &split);
      } else if (!p.text.empty()) {
        split.push_back(std::move(p));
      }
    }
    for (Piece& p : split) {
      std::string mapped;
      mapped.reserve(p.text.size() * 2);
      AppendByteLevel(p.text, &mapped);
      p.text = std::move(mapped);
    }
    *pieces = std::move(split);
  }

 private:
  bool add_prefix_space_;
  std::shared_ptr<const Regex> re_;
};

// Rust regex \w+|[^\w\s]+ (kept), everything else (whitespace) removed.
class WhitespacePT : public PreTokenizer {
 public:
  void PreTokenize(std::vector<Piece>* pieces) const override {
    Spans spans;
    ForEachPiece(pieces, [&](const Piece& p, std::vector<Piece>* out) {
      spans.clear();
      const std::string& s = p.text;
      size_t pos = 0;
      while (pos < s.size()) {
        size_t start = pos, next = pos;
        char32_t c = unicode::DecodeUtf8(s, &next);
        if (unicode::IsWhitespace(c) && !unicode::IsRegexWordChar(c)) {
          pos = next;
          continue;
        }
        const bool word = unicode::IsRegexWordChar(c);
        pos = next;
        while (pos < s.size()) {
          size_t q = pos;
          char32_t d = unicode::DecodeUtf8(s, &q);
          bool keep = word ? unicode::IsRegexWordChar(d) : (!unicode::IsRegexWordChar(d) && !unicode::IsWhitespace(d));
          if (!keep) break;
          pos = q;
        }
        spans.emplace_back(start, pos);
      }
      SplitBySpans(p, spans, true, SplitBehavior::kRemoved, out);
    });
  }
};

class WhitespaceSplitPT : public PreTokenizer {
 public:
  void PreTokenize(std::vector<Piece>* pieces) const override {
    Spans spans;
    ForEachPiece(pieces, [&](const Piece& p, std::vector<Piece>* out) {
      CharSpans(p.text, unicode::IsWhitespace, &spans);
      SplitBySpans(p, spans, false, SplitBehavior::kRemoved, out);
    });
  }
};

class DigitsPT : public PreTokenizer {
 public:
  explicit DigitsPT(bool individual) : individual_(individual) {}
  void PreTokenize(std::vector<Piece>* pieces) const override {
    Spans spans;
    ForEachPiece(pieces, [&](const Piece& p, std::vector<Piece>* out) {
      CharSpans(p.text, unicode::IsNumeric, &spans);
      SplitBySpans(p, spans, false, individual_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous, out);
    });
  }

 private:
  bool individual_;
};

Result<bool> GetBool(const nlohmann::json& j, const char* key, std::string_view where, std::optional<bool> dflt) {
  if (!j.contains(key) || j[key].is_null()) {
    if (dflt) return *dflt;
    return DataLossError(fmt::format("tokenizer.json: {}: missing boolean \"{}\"", where, key));
  }
  if (!j[key].is_boolean()) return DataLossError(fmt::format("tokenizer.json: {}: \"{}\" must be a boolean", where, key));
  return j[key].get<bool>();
}

using P = std::unique_ptr<PreTokenizer>;

Result<P> ParseSplit(const nlohmann::json& j) {
  const std::string where = "pre_tokenizer Split";
  if (!j.contains("pattern")) return DataLossError("tokenizer.json: pre_tokenizer Split: missing \"pattern\"");
  GEMMAD_ASSIGN_OR_RETURN(Pattern pattern, Pattern::Parse(j["pattern"], where));
  static const std::pair<const char*, SplitBehavior> kBehaviors[] = {
      {"Removed", SplitBehavior::kRemoved}, {"Isolated", SplitBehavior::kIsolated},
      {"MergedWithPrevious", SplitBehavior::kMergedWithPrevious},
      {"MergedWithNext", SplitBehavior::kMergedWithNext}, {"Contiguous", SplitBehavior::kContiguous}};
  const std::string b = j.value("behavior", std::string());
  const auto* it = std::find_if(std::begin(kBehaviors), std::end(kBehaviors), [&](const auto& kv) { return b == kv.first; });
  if (it == std::end(kBehaviors)) {
    return DataLossError(fmt::format("tokenizer.json: pre_tokenizer Split: unknown behavior \"{}\"", b));
  }
  GEMMAD_ASSIGN_OR_RETURN(bool invert, GetBool(j, "invert", where, std::nullopt));
  return P(new SplitPT(std::move(pattern), it->second, invert));
}

Result<P> ParseMetaspace(const nlohmann::json& j) {
  const std::string where = "pre_tokenizer Metaspace";
  std::string rep = j.value("replacement", std::string());
  size_t pos = 0;
  char32_t rc = rep.empty() ? 0 : unicode::DecodeUtf8(rep, &pos);
  if (rep.empty() || pos != rep.size()) {
    return DataLossError("tokenizer.json: pre_tokenizer Metaspace: \"replacement\" must be one character");
  }
  std::string scheme_name = j.contains("prepend_scheme") ? j["prepend_scheme"].get<std::string>() : "always";
  PrependScheme scheme = scheme_name == "first" ? PrependScheme::kFirst
                         : scheme_name == "never" ? PrependScheme::kNever
                                                  : PrependScheme::kAlways;
  if (scheme_name != "first" && scheme_name != "never" && scheme_name != "always") {
    return DataLossError(fmt::format("tokenizer.json: pre_tokenizer Metaspace: unknown prepend_scheme \"{}\"", scheme_name));
  }
  if (j.contains("add_prefix_space") && j["add_prefix_space"].is_boolean() && !j["add_prefix_space"].get<bool>()) {
    if (scheme != PrependScheme::kNever) {
      return DataLossError("tokenizer.json: pre_tokenizer Metaspace: add_prefix_space does not match prepend_scheme");
    }
  }
  GEMMAD_ASSIGN_OR_RETURN(bool split, GetBool(j, "split", where, true));
  return P(new MetaspacePT(rc, scheme, split));
}

Result<P> ParseByteLevel(const nlohmann::json& j) {
  const std::string where = "pre_tokenizer ByteLevel";
  GEMMAD_ASSIGN_OR_RETURN(bool add_prefix_space, GetBool(j, "add_prefix_space", where, true));
  GEMMAD_ASSIGN_OR_RETURN(bool use_regex, GetBool(j, "use_regex", where, true));
  std::shared_ptr<const Regex> re;
  if (use_regex) {
    auto compiled = Regex::Compile(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)");
    GEMMAD_CHECK(compiled.ok(), "GPT-2 regex: {}", compiled.status().ToString());
    re = *compiled;
  }
  return P(new ByteLevelPT(add_prefix_space, std::move(re)));
}

}  // namespace

Result<std::unique_ptr<PreTokenizer>> ParsePreTokenizer(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    return DataLossError("tokenizer.json: pre_tokenizer: expected an object with a \"type\"");
  }
  const std::string type = j["type"].get<std::string>();
  if (type == "Sequence") {
    if (!j.contains("pretokenizers") || !j["pretokenizers"].is_array()) {
      return DataLossError("tokenizer.json: pre_tokenizer Sequence: missing \"pretokenizers\" array");
    }
    std::vector<P> parts;
    for (const auto& item : j["pretokenizers"]) {
      GEMMAD_ASSIGN_OR_RETURN(P part, ParsePreTokenizer(item));
      parts.push_back(std::move(part));
    }
    return P(new SequencePT(std::move(parts)));
  }
  if (type == "Split") return ParseSplit(j);
  if (type == "Metaspace") return ParseMetaspace(j);
  if (type == "ByteLevel") return ParseByteLevel(j);
  if (type == "Whitespace") return P(new WhitespacePT());
  if (type == "WhitespaceSplit") return P(new WhitespaceSplitPT());
  if (type == "Digits") {
    GEMMAD_ASSIGN_OR_RETURN(bool individual, GetBool(j, "individual_digits", "pre_tokenizer Digits", false));
    return P(new DigitsPT(individual));
  }
  return UnimplementedError(fmt::format("tokenizer.json: pre_tokenizer type \"{}\" is not supported", type));
}

}  // namespace gemmad::tokenizer
