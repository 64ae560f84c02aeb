// Normalizer implementations and their JSON parsing.
#include "tokenizer/normalizer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "tokenizer/pattern.h"
#include "tokenizer/unicode.h"
#include "tokenizer/unicode_norm.h"

namespace gemmad::tokenizer {
namespace {

class SequenceNormalizer : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> parts) : parts_(std::move(parts)) {}
  void Normalize(std::string* s) const override {
    for (const auto& p : parts_) p->Normalize(s);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(Pattern p, std::string content) : pattern_(std::move(p)), content_(std::move(content)) {}
  void Normalize(std::string* s) const override { *s = pattern_.Replace(*s, content_); }

 private:
  Pattern pattern_;
  std::string content_;
};

class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string p) : prepend_(std::move(p)) {}
  void Normalize(std::string* s) const override {
    if (!s->empty()) s->insert(0, prepend_);
  }

 private:
  std::string prepend_;
};

class UnicodeNormalizer : public Normalizer {
 public:
  explicit UnicodeNormalizer(unicode::NormalForm f) : form_(f) {}
  void Normalize(std::string* s) const override { *s = unicode::Normalize(*s, form_); }

 private:
  unicode::NormalForm form_;
};

class LowercaseNormalizer : public Normalizer {
 public:
  void Normalize(std::string* s) const override {
    std::string out;
    out.reserve(s->size());
    size_t pos = 0;
    while (pos < s->size()) unicode::AppendLowercase(unicode::DecodeUtf8(*s, &pos), &out);
    *s = std::move(out);
  }
};

class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void Normalize(std::string* s) const override {
    size_t begin = 0, end = s->size();
    if (left_) {
      while (begin < end) {
        size_t p = begin;
        if (!unicode::IsWhitespace(unicode::DecodeUtf8(*s, &p))) break;
        begin = p;
      }
    }
    if (right_) {
      while (end > begin) {
        size_t start = end - 1;
        while (start > begin && (static_cast<unsigned char>((*s)[start]) & 0xC0) == 0x80) --start;
        size_t p = start;
        if (!unicode::IsWhitespace(unicode::DecodeUtf8(*s, &p))) break;
        end = start;
      }
    }
    *s = s->substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

class StripAccentsNormalizer : public Normalizer {
 public:
  void Normalize(std::string* s) const override {
    std::string out;
    out.reserve(s->size());
    size_t pos = 0;
    while (pos < s->size()) {
      size_t start = pos;
      char32_t c = unicode::DecodeUtf8(*s, &pos);
      if (!unicode::IsStripAccentsMark(c)) out.append(*s, start, pos - start);
    }
    *s = std::move(out);
  }
};

Result<std::string> GetString(const nlohmann::json& j, const char* key, std::string_view where) {
  if (!j.contains(key) || !j[key].is_string()) {
    return DataLossError(fmt::format("tokenizer.json: {}: missing string field \"{}\"", where, key));
  }
  return j[key].get<std::string>();
}

}  // namespace

Result<std::unique_ptr<Normalizer>> ParseNormalizer(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    return DataLossError("tokenizer.json: normalizer: expected an object with a \"type\"");
  }
  const std::string type = j["type"].get<std::string>();
  const std::string where = "normalizer " + type;
  if (type == "Sequence") {
    if (!j.contains("normalizers") || !j["normalizers"].is_array()) {
      return DataLossError("tokenizer.json: normalizer Sequence: missing \"normalizers\" array");
    }
    std::vector<std::unique_ptr<Normalizer>> parts;
    for (const auto& item : j["normalizers"]) {
      GEMMAD_ASSIGN_OR_RETURN(auto part, ParseNormalizer(item));
      parts.push_back(std::move(part));
    }
    return std::unique_ptr<Normalizer>(new SequenceNormalizer(std::move(parts)));
  }
  if (type == "Replace") {
    if (!j.contains("pattern")) return DataLossError("tokenizer.json: normalizer Replace: missing \"pattern\"");
    GEMMAD_ASSIGN_OR_RETURN(Pattern p, Pattern::Parse(j["pattern"], where));
    GEMMAD_ASSIGN_OR_RETURN(std::string content, GetString(j, "content", where));
    return std::unique_ptr<Normalizer>(new ReplaceNormalizer(std::move(p), std::move(content)));
  }
  if (type == "Prepend") {
    GEMMAD_ASSIGN_OR_RETURN(std::string prepend, GetString(j, "prepend", where));
    return std::unique_ptr<Normalizer>(new PrependNormalizer(std::move(prepend)));
  }
  if (type == "NFC") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(unicode::NormalForm::kNFC));
  if (type == "NFD") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(unicode::NormalForm::kNFD));
  if (type == "NFKC") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(unicode::NormalForm::kNFKC));
  if (type == "NFKD") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(unicode::NormalForm::kNFKD));
  if (type == "Lowercase") return std::unique_ptr<Normalizer>(new LowercaseNormalizer());
  if (type == "StripAccents") return std::unique_ptr<Normalizer>(new StripAccentsNormalizer());
  if (type == "Strip") {
    bool left = j.value("strip_left", false), right = j.value("strip_right", false);
    if (!j.contains("strip_left") || !j.contains("strip_right")) {
      return DataLossError("tokenizer.json: normalizer Strip: missing strip_left/strip_right");
    }
    return std::unique_ptr<Normalizer>(new StripNormalizer(left, right));
  }
  return UnimplementedError(fmt::format("tokenizer.json: normalizer type \"{}\" is not supported", type));
}

}  // namespace gemmad::tokenizer
