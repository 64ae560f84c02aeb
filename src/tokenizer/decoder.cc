// Decoder implementations and their JSON parsing.
#include "tokenizer/decoder.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tokenizer/byte_level.h"
#include "tokenizer/pattern.h"
#include "tokenizer/unicode.h"

namespace gemmad::tokenizer {
namespace {

class SequenceDecoder : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> parts) : parts_(std::move(parts)) {}
  void DecodeChain(std::vector<std::string>* t, bool at_start, bool* fused) const override {
    for (const auto& p : parts_) p->DecodeChain(t, at_start, fused);
  }
  void MidToken(std::string* t, bool* fused) const override {
    for (const auto& p : parts_) p->MidToken(t, fused);
  }
  bool HasByteFallback() const override {
    for (const auto& p : parts_) {
      if (p->HasByteFallback()) return true;
    }
    return false;
  }

 private:
  std::vector<std::unique_ptr<Decoder>> parts_;
};

class ReplaceDecoder : public Decoder {
 public:
  ReplaceDecoder(Pattern p, std::string content) : pattern_(std::move(p)), content_(std::move(content)) {}
  void DecodeChain(std::vector<std::string>* t, bool, bool*) const override {
    for (std::string& s : *t) s = pattern_.Replace(s, content_);
  }
  void MidToken(std::string* t, bool*) const override { *t = pattern_.Replace(*t, content_); }

 private:
  Pattern pattern_;
  std::string content_;
};

}  // namespace

// "<0xAB>" -> 0xAB, as HF: 6 bytes, "<0x" prefix, '>' suffix, u8::from_str_radix(.., 16).
int ByteTokenValue(std::string_view t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (t[3] == '+') return hex(t[4]);  // from_str_radix accepts a leading '+'
  int hi = hex(t[3]), lo = hex(t[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

namespace {

class ByteFallbackDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* t, bool, bool*) const override {
    std::vector<std::string> out;
    out.reserve(t->size());
    std::string bytes;
    size_t num_bytes = 0;
    auto flush = [&] {
      if (num_bytes == 0) return;
      if (IsValidUtf8(bytes)) {
        out.push_back(bytes);
      } else {
        for (size_t k = 0; k < num_bytes; ++k) out.emplace_back("\xEF\xBF\xBD");
      }
      bytes.clear();
      num_bytes = 0;
    };
    for (std::string& s : *t) {
      int b = ByteTokenValue(s);
      if (b >= 0) {
        bytes.push_back(static_cast<char>(b));
        ++num_bytes;
      } else {
        flush();
        out.push_back(std::move(s));
      }
    }
    flush();
    *t = std::move(out);
  }
  void MidToken(std::string* t, bool*) const override {
    int b = ByteTokenValue(*t);
    if (b >= 0) *t = std::string(1, static_cast<char>(b));
  }
  bool HasByteFallback() const override { return true; }

 private:
  static bool IsValidUtf8(const std::string& s) {
    for (size_t i = 0; i < s.size();) {
      size_t n = unicode::ValidSequenceLength(s, i);
      if (n == 0) return false;
      i += n;
    }
    return true;
  }
};

class FuseDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* t, bool, bool* fused) const override {
    std::string all;
    for (const std::string& s : *t) all += s;
    t->assign(1, std::move(all));
    *fused = true;
  }
  void MidToken(std::string*, bool* fused) const override { *fused = true; }
};

class StripDecoder : public Decoder {
 public:
  StripDecoder(char32_t content, size_t start, size_t stop) : content_(content), start_(start), stop_(stop) {}
  void DecodeChain(std::vector<std::string>* t, bool at_start, bool* fused) const override {
    // After a Fuse the single token is the whole text: its start is the sequence start only
    // when at_start. Before, every token is stripped on its own wherever it stands.
    for (std::string& s : *t) s = Strip(s, !*fused || at_start);
  }
  void MidToken(std::string* t, bool* fused) const override {
    if (!*fused) *t = Strip(*t, true);
  }

 private:
  std::string Strip(const std::string& s, bool strip_start) const {
    std::vector<std::pair<size_t, size_t>> chars;  // byte span of each char
    for (size_t pos = 0; pos < s.size();) {
      size_t a = pos;
      unicode::DecodeUtf8(s, &pos);
      chars.emplace_back(a, pos);
    }
    auto char_at = [&](size_t i) {
      size_t p = chars[i].first;
      return unicode::DecodeUtf8(s, &p);
    };
    size_t start_cut = 0;
    for (size_t i = 0; strip_start && i < chars.size() && i < start_; ++i) {
      if (char_at(i) != content_) break;
      start_cut = i + 1;
    }
    size_t stop_cut = chars.size();
    for (size_t i = 0; i < stop_ && i < chars.size(); ++i) {
      size_t index = chars.size() - i - 1;
      if (char_at(index) != content_) break;
      stop_cut = index;
    }
    if (stop_cut <= start_cut) return std::string();
    size_t a = start_cut < chars.size() ? chars[start_cut].first : s.size();
    size_t b = stop_cut < chars.size() ? chars[stop_cut].first : s.size();
    return s.substr(a, b - a);
  }
  char32_t content_;
  size_t start_, stop_;
};

class MetaspaceDecoder : public Decoder {
 public:
  MetaspaceDecoder(char32_t rep, bool strip_first) : rep_(rep), strip_first_(strip_first) {}
  void DecodeChain(std::vector<std::string>* t, bool at_start, bool* fused) const override {
    // HF drops every replacement character of token 0; after a Fuse token 0 is all the text.
    for (size_t i = 0; i < t->size(); ++i) (*t)[i] = Map((*t)[i], i == 0 && strip_first_ && (at_start || *fused));
  }
  void MidToken(std::string* t, bool* fused) const override { *t = Map(*t, *fused && strip_first_); }

 private:
  std::string Map(const std::string& s, bool drop) const {
    std::string out;
    out.reserve(s.size());
    for (size_t pos = 0; pos < s.size();) {
      size_t a = pos;
      char32_t c = unicode::DecodeUtf8(s, &pos);
      if (c == rep_) {
        if (!drop) out.push_back(' ');
      } else {
        out.append(s, a, pos - a);
      }
    }
    return out;
  }
  char32_t rep_;
  bool strip_first_;
};

class ByteLevelDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* t, bool, bool* fused) const override {
    std::string bytes;
    for (const std::string& s : *t) AppendBytes(s, &bytes);
    t->assign(1, unicode::ToValidUtf8(bytes));
    *fused = true;
  }
  void MidToken(std::string* t, bool* fused) const override {
    std::string bytes;
    AppendBytes(*t, &bytes);
    *t = std::move(bytes);
    *fused = true;
  }

 private:
  static void AppendBytes(const std::string& s, std::string* out) {
    const size_t mark = out->size();
    for (size_t pos = 0; pos < s.size();) {
      int b = CharToByte(unicode::DecodeUtf8(s, &pos));
      if (b < 0) {
        out->resize(mark);
        out->append(s);
        return;
      }
      out->push_back(static_cast<char>(b));
    }
  }
};

Result<char32_t> OneChar(const nlohmann::json& j, const char* key, std::string_view where) {
  if (!j.contains(key) || !j[key].is_string()) {
    return DataLossError(fmt::format("tokenizer.json: {}: missing \"{}\"", where, key));
  }
  std::string s = j[key].get<std::string>();
  size_t pos = 0;
  char32_t c = s.empty() ? 0 : unicode::DecodeUtf8(s, &pos);
  if (s.empty() || pos != s.size()) {
    return DataLossError(fmt::format("tokenizer.json: {}: \"{}\" must be one character", where, key));
  }
  return c;
}

}  // namespace

std::string RunDecoder(const Decoder& decoder, std::vector<std::string> tokens, bool at_start) {
  bool fused = false;
  decoder.DecodeChain(&tokens, at_start, &fused);
  std::string out;
  for (const std::string& s : tokens) out += s;
  return out;
}

Result<std::unique_ptr<Decoder>> ParseDecoder(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    return DataLossError("tokenizer.json: decoder: expected an object with a \"type\"");
  }
  const std::string type = j["type"].get<std::string>();
  const std::string where = "decoder " + type;
  using D = std::unique_ptr<Decoder>;
  if (type == "Sequence") {
    if (!j.contains("decoders") || !j["decoders"].is_array()) {
      return DataLossError("tokenizer.json: decoder Sequence: missing \"decoders\" array");
    }
    std::vector<D> parts;
    for (const auto& item : j["decoders"]) {
      GEMMAD_ASSIGN_OR_RETURN(D part, ParseDecoder(item));
      parts.push_back(std::move(part));
    }
    return D(new SequenceDecoder(std::move(parts)));
  }
  if (type == "Replace") {
    if (!j.contains("pattern")) return DataLossError("tokenizer.json: decoder Replace: missing \"pattern\"");
    GEMMAD_ASSIGN_OR_RETURN(Pattern p, Pattern::Parse(j["pattern"], where));
    if (!j.contains("content") || !j["content"].is_string()) {
      return DataLossError("tokenizer.json: decoder Replace: missing \"content\"");
    }
    return D(new ReplaceDecoder(std::move(p), j["content"].get<std::string>()));
  }
  if (type == "ByteFallback") return D(new ByteFallbackDecoder());
  if (type == "Fuse") return D(new FuseDecoder());
  if (type == "Strip") {
    GEMMAD_ASSIGN_OR_RETURN(char32_t c, OneChar(j, "content", where));
    if (!j.contains("start") || !j["start"].is_number_unsigned() || !j.contains("stop") || !j["stop"].is_number_unsigned()) {
      return DataLossError("tokenizer.json: decoder Strip: \"start\" and \"stop\" must be unsigned integers");
    }
    return D(new StripDecoder(c, j["start"].get<size_t>(), j["stop"].get<size_t>()));
  }
  if (type == "Metaspace") {
    GEMMAD_ASSIGN_OR_RETURN(char32_t c, OneChar(j, "replacement", where));
    std::string scheme = j.contains("prepend_scheme") ? j["prepend_scheme"].get<std::string>() : "always";
    if (scheme != "first" && scheme != "never" && scheme != "always") {
      return DataLossError(fmt::format("tokenizer.json: decoder Metaspace: unknown prepend_scheme \"{}\"", scheme));
    }
    if (j.contains("add_prefix_space") && j["add_prefix_space"].is_boolean() && !j["add_prefix_space"].get<bool>() &&
        scheme != "never") {
      return DataLossError("tokenizer.json: decoder Metaspace: add_prefix_space does not match prepend_scheme");
    }
    return D(new MetaspaceDecoder(c, scheme != "never"));
  }
  if (type == "ByteLevel") return D(new ByteLevelDecoder());
  return UnimplementedError(fmt::format("tokenizer.json: decoder type \"{}\" is not supported", type));
}

}  // namespace gemmad::tokenizer
