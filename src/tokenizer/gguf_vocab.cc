// GgufVocab: reading and checking the tokenizer.* keys; the added-token rule.
#include "tokenizer/gguf_vocab.h"

#include <fmt/format.h>

#include <array>
#include <span>
#include <string_view>

#include "base/strings.h"
#include "tokenizer/hash_map.h"
#include "tokenizer/spm_merges.h"

namespace gemmad::tokenizer {
namespace {

constexpr std::string_view kTokens = "tokenizer.ggml.tokens";
constexpr std::string_view kScores = "tokenizer.ggml.scores";
constexpr std::string_view kTypes = "tokenizer.ggml.token_type";
constexpr std::string_view kMerges = "tokenizer.ggml.merges";
constexpr std::string_view kSpace = "\xE2\x96\x81";  // "▁"

// The special added tokens of the HF Gemma 3 and Gemma 4 tokenizer.json files (spec
// chat-format.md §1; ../shared/data/tokenizers), which GGUF token types cannot tell apart.
constexpr std::array<std::string_view, 28> kHfSpecialNames = {
    "<pad>", "<eos>", "<bos>", "<unk>",
    // Gemma 3
    "<start_of_turn>", "<end_of_turn>", "<start_of_image>", "<end_of_image>", "<image_soft_token>",
    // Gemma 4
    "<|tool>", "<tool|>", "<|tool_call>", "<tool_call|>", "<|tool_response>", "<tool_response|>", "<|\"|>",
    "<|think|>", "<|channel>", "<channel|>", "<|turn>", "<turn|>", "<|image>", "<|audio>", "<|image|>",
    "<|audio|>", "<image|>", "<audio|>", "<|video|>"};

std::string ReplaceAll(std::string_view s, char from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == from) out.append(to);
    else out.push_back(c);
  }
  return out;
}

Status LengthError(std::string_view key, size_t got, size_t want) {
  return InvalidArgumentError(
      fmt::format("GGUF key '{}' has {} entries but '{}' has {}", key, got, kTokens, want));
}

Result<std::vector<float>> ReadScores(const io::GgufMetadata& md, size_t n) {
  GEMMAD_ASSIGN_OR_RETURN(const io::GgufArray* a, md.GetArray(kScores));
  if (a->size() != n) return LengthError(kScores, a->size(), n);
  std::vector<float> out(n);
  if (!a->f.empty()) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(a->f[i]);
  } else if (!a->i.empty()) {  // INT32 scores are accepted by llama.cpp too
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(a->i[i]);
  } else if (!a->u.empty()) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(a->u[i]);
  } else if (n != 0) {
    return InvalidArgumentError(fmt::format("GGUF key '{}': expected an ARRAY of numbers", kScores));
  }
  return out;
}

Status ReadTypes(const io::GgufMetadata& md, GgufVocab* v, bool required) {
  const size_t n = v->tokens.size();
  if (!md.Has(kTypes)) {
    if (required) return NotFoundError(fmt::format("GGUF key '{}' is missing", kTypes));
    v->types.assign(n, kGgufNormal);
    return OkStatus();
  }
  GEMMAD_ASSIGN_OR_RETURN(std::vector<int64_t> types, md.GetIntArray(kTypes));
  if (types.size() != n) return LengthError(kTypes, types.size(), n);
  v->types.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (types[i] < kGgufUndefined || types[i] > kGgufByte) {
      return InvalidArgumentError(
          fmt::format("GGUF key '{}': entry {} is {}, not a token type (0..6)", kTypes, i, types[i]));
    }
    v->types[i] = static_cast<int32_t>(types[i]);
  }
  return OkStatus();
}

Result<std::optional<int32_t>> ReadId(const io::GgufMetadata& md, std::string_view name, size_t n) {
  const std::string key = fmt::format("tokenizer.ggml.{}_token_id", name);
  if (!md.Has(key)) return std::optional<int32_t>();
  GEMMAD_ASSIGN_OR_RETURN(uint32_t id, md.GetU32(key));
  if (id >= n) return InvalidArgumentError(fmt::format("GGUF key '{}' = {} is not a token id ({} tokens)", key, id, n));
  return std::optional<int32_t>(static_cast<int32_t>(id));
}

Result<bool> ReadBool(const io::GgufMetadata& md, std::string_view key, bool fallback) {
  if (!md.Has(key)) return fallback;
  return md.GetBool(key);
}

// Gemma 4: "left right" split at the first space after position 0 (spec §2.1).
Status ReadMerges(const io::GgufMetadata& md, const StringIdMap& ids, GgufVocab* v) {
  GEMMAD_ASSIGN_OR_RETURN(const io::GgufArray* a, md.GetArray(kMerges));
  if (a->elem_type != io::GgufValueType::kString) {
    return InvalidArgumentError(fmt::format("GGUF key '{}': expected an ARRAY of STRING", kMerges));
  }
  v->merges.reserve(a->s.size());
  std::string joined;
  for (size_t k = 0; k < a->s.size(); ++k) {
    std::string_view m = a->s[k];
    const size_t sp = m.size() > 1 ? m.find(' ', 1) : std::string_view::npos;
    auto bad = [&](std::string_view why) {
      return InvalidArgumentError(fmt::format("GGUF key '{}': entry {} {}", kMerges, k, why));
    };
    if (sp == std::string_view::npos) return bad("is not \"left right\"");
    const int32_t l = ids.Find(m.substr(0, sp)), r = ids.Find(m.substr(sp + 1));
    if (l < 0 || r < 0) return bad("names a piece that is not a token");
    joined.assign(m.substr(0, sp));
    joined.append(m.substr(sp + 1));
    if (ids.Find(joined) < 0) return bad("joins to a piece that is not a token");
    v->merges.emplace_back(l, r);
  }
  return OkStatus();
}

// Gemma 3 (SentencePiece): merges from the scores. Non-NORMAL pieces had score 0 in the
// SentencePiece model; the GGUF converter overwrote the added ones with -1000 (spec §2.3).
void BuildSpmMerges(std::span<const float> file_scores, GgufVocab* v) {
  std::vector<float> scores(file_scores.begin(), file_scores.end());
  std::vector<std::string_view> pieces(v->tokens.begin(), v->tokens.end());
  for (size_t i = 0; i < scores.size(); ++i) {
    const int32_t t = v->types[i];
    if (t == kGgufUnknown || t == kGgufControl || t == kGgufUserDefined) scores[i] = 0.0f;
  }
  v->merges = SpmMerges(pieces, scores);
}

}  // namespace

Result<GgufVocab> ReadGgufVocab(const io::GgufMetadata& md) {
  if (!md.Has("tokenizer.ggml.model")) {
    return NotFoundError("GGUF has no tokenizer: key 'tokenizer.ggml.model' is missing");
  }
  GEMMAD_ASSIGN_OR_RETURN(std::string model, md.GetString("tokenizer.ggml.model"));
  GgufVocab v;
  if (model == "llama") {
    v.spm = true;
  } else if (model != "gemma4") {
    return UnimplementedError(fmt::format(
        "GGUF tokenizer.ggml.model '{}' is not supported (gemmad reads 'gemma4' and Gemma 3's 'llama')", model));
  }
  GEMMAD_ASSIGN_OR_RETURN(const io::GgufArray* toks, md.GetArray(kTokens));
  if (toks->elem_type != io::GgufValueType::kString) {
    return InvalidArgumentError(fmt::format("GGUF key '{}': expected an ARRAY of STRING", kTokens));
  }
  if (toks->s.empty()) return InvalidArgumentError(fmt::format("GGUF key '{}' is empty", kTokens));
  if (toks->s.size() > static_cast<size_t>(INT32_MAX)) {
    return InvalidArgumentError(fmt::format("GGUF key '{}' has too many entries", kTokens));
  }
  v.tokens = toks->s;
  GEMMAD_RETURN_IF_ERROR(ReadTypes(md, &v, /*required=*/v.spm));
  const size_t n = v.tokens.size();
  size_t total_bytes = 0;
  for (const auto& t : v.tokens) total_bytes += t.size();
  StringIdMap ids;
  ids.Reserve(n, total_bytes + n);
  for (size_t i = 0; i < n; ++i) {
    std::string& t = v.tokens[i];
    if (!IsValidUtf8(t)) {
      return InvalidArgumentError(fmt::format("GGUF key '{}': token {} is not valid UTF-8", kTokens, i));
    }
    // Gemma 3 converters write USER_DEFINED pieces with ' ' where the vocabulary has "▁" (§2.3).
    if (v.spm && v.types[i] == kGgufUserDefined) t = ReplaceAll(t, ' ', kSpace);
    if (!ids.Insert(t, static_cast<int32_t>(i))) {
      return InvalidArgumentError(fmt::format("GGUF key '{}': token {} repeats an earlier token", kTokens, i));
    }
  }
  if (v.spm) {
    GEMMAD_ASSIGN_OR_RETURN(bool prefix, ReadBool(md, "tokenizer.ggml.add_space_prefix", true));
    if (prefix) {
      return UnimplementedError(
          "GGUF SentencePiece tokenizer with add_space_prefix (Llama-style) is not supported; Gemma 3 writes false");
    }
    GEMMAD_ASSIGN_OR_RETURN(std::vector<float> scores, ReadScores(md, n));
    BuildSpmMerges(scores, &v);
  } else {
    GEMMAD_RETURN_IF_ERROR(ReadMerges(md, ids, &v));
  }
  GEMMAD_ASSIGN_OR_RETURN(v.bos, ReadId(md, "bos", n));
  GEMMAD_ASSIGN_OR_RETURN(v.eos, ReadId(md, "eos", n));
  GEMMAD_ASSIGN_OR_RETURN(v.unk, ReadId(md, "unknown", n));
  GEMMAD_ASSIGN_OR_RETURN(v.pad, ReadId(md, "padding", n));
  // llama.cpp forces add_bos for gemma4 files, several of which say false (spec §2.4).
  GEMMAD_ASSIGN_OR_RETURN(v.add_bos, ReadBool(md, "tokenizer.ggml.add_bos_token", true));
  if (!v.spm) v.add_bos = true;
  GEMMAD_ASSIGN_OR_RETURN(v.add_eos, ReadBool(md, "tokenizer.ggml.add_eos_token", false));
  return v;
}

namespace {

bool IsRunOf(std::string_view s, std::string_view unit, size_t min_units) {
  if (s.size() < unit.size() * min_units || s.size() % unit.size() != 0) return false;
  for (size_t k = 0; k < s.size(); k += unit.size()) {
    if (s.substr(k, unit.size()) != unit) return false;
  }
  return true;
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

bool IsUnusedName(std::string_view s) {
  constexpr std::string_view kPrefix = "<unused";
  if (s.size() <= kPrefix.size() + 1 || s.substr(0, kPrefix.size()) != kPrefix || s.back() != '>') return false;
  for (char c : s.substr(kPrefix.size(), s.size() - kPrefix.size() - 1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::vector<GgufAddedToken> GgufAddedTokens(const GgufVocab& v) {
  const size_t n = v.tokens.size();
  std::vector<bool> produced(n, false);
  {
    StringIdMap ids;
    ids.Reserve(n, 0);
    for (size_t i = 0; i < n; ++i) ids.Insert(v.tokens[i], static_cast<int32_t>(i));
    std::string joined;
    for (auto [l, r] : v.merges) {
      joined.assign(v.tokens[l]);
      joined.append(v.tokens[r]);
      const int32_t id = ids.Find(joined);
      if (id >= 0) produced[id] = true;
    }
  }
  StringIdMap special_names;
  for (std::string_view s : kHfSpecialNames) special_names.Insert(s, 0);
  std::vector<GgufAddedToken> out;
  for (size_t i = 0; i < n; ++i) {
    const std::string& t = v.tokens[i];
    const int32_t type = v.types[i];
    const bool run = IsRunOf(t, "\n", 1) || IsRunOf(t, "\t", 1) || IsRunOf(t, kSpace, 2);
    const bool plain = type == kGgufNormal || type == kGgufUndefined;
    const bool added = type == kGgufUnknown || type == kGgufControl || type == kGgufUserDefined || run ||
                       (plain && CodePoints(t) >= 2 && !produced[i]);
    if (!added) continue;
    const auto id = static_cast<int32_t>(i);
    const bool special = special_names.Find(t) >= 0 || id == v.bos || id == v.eos || id == v.unk || id == v.pad ||
                         (type == kGgufControl && t != "<mask>" && !IsUnusedName(t));
    out.push_back({id, special});
  }
  return out;
}

}  // namespace gemmad::tokenizer
