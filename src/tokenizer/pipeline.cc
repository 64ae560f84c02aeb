// Pipeline parsing (fast scan of the big model object, nlohmann for the rest) and the
// encode/decode flow.
#include "tokenizer/pipeline.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "tokenizer/json_scan.h"
#include "tokenizer/unicode.h"

namespace gemmad::tokenizer {

Result<std::unique_ptr<Pipeline>> Pipeline::Parse(std::string_view json) {
  if (!IsValidUtf8(json)) return DataLossError("tokenizer.json: not valid UTF-8");
  auto p = std::unique_ptr<Pipeline>(new Pipeline());
  JsonScanner s(json);
  std::string_view raw_added, raw_normalizer, raw_pre, raw_post, raw_decoder;
  bool have_model = false;
  if (!s.Expect('{')) return DataLossError("tokenizer.json: " + s.error());
  bool first = true;
  std::string key_storage;
  while (s.NextMember(&first, '}')) {
    std::string_view key;
    if (!s.ReadString(&key, &key_storage) || !s.Expect(':')) break;
    if (key == "model") {
      GEMMAD_ASSIGN_OR_RETURN(p->model_, BpeModel::Parse(&s));
      have_model = true;
      continue;
    }
    std::string_view raw;
    if (!s.SkipValue(&raw)) break;
    if (key == "added_tokens") raw_added = raw;
    else if (key == "normalizer") raw_normalizer = raw;
    else if (key == "pre_tokenizer") raw_pre = raw;
    else if (key == "post_processor") raw_post = raw;
    else if (key == "decoder") raw_decoder = raw;
    else if (key == "version" && raw != "\"1.0\"") {
      return DataLossError(fmt::format("tokenizer.json: unknown tokenizer version {}", raw));
    }
  }
  if (!s.ok()) return DataLossError("tokenizer.json: " + s.error());
  if (!have_model) return DataLossError("tokenizer.json: missing \"model\"");
  try {
    auto parse = [](std::string_view raw) {
      return raw.empty() ? nlohmann::json() : nlohmann::json::parse(raw.begin(), raw.end());
    };
    nlohmann::json j = parse(raw_normalizer);
    if (!j.is_null()) {
      GEMMAD_ASSIGN_OR_RETURN(p->normalizer_, ParseNormalizer(j));
    }
    j = parse(raw_pre);
    if (!j.is_null()) {
      GEMMAD_ASSIGN_OR_RETURN(p->pre_tokenizer_, ParsePreTokenizer(j));
    }
    j = parse(raw_post);
    if (!j.is_null()) {
      GEMMAD_ASSIGN_OR_RETURN(p->post_processor_, ParsePostProcessor(j));
    }
    j = parse(raw_decoder);
    if (!j.is_null()) {
      GEMMAD_ASSIGN_OR_RETURN(p->decoder_, ParseDecoder(j));
    }
    GEMMAD_RETURN_IF_ERROR(p->added_.Build(parse(raw_added), *p->model_, p->normalizer_.get()));
  } catch (const nlohmann::json::exception& e) {
    return DataLossError(fmt::format("tokenizer.json: {}", e.what()));
  }
  return p;
}

void Pipeline::EncodeText(std::string_view text, bool at_origin, std::vector<int32_t>* ids) const {
  std::string normalized(text);
  if (normalizer_) normalizer_->Normalize(&normalized);
  std::vector<AddedVocab::Segment> segments;
  added_.Split(normalized, /*normalized_set=*/true, &segments);
  std::vector<Piece> pieces;
  for (const auto& seg : segments) {
    if (seg.id >= 0) {
      ids->push_back(seg.id);
      continue;
    }
    pieces.clear();
    pieces.push_back({normalized.substr(seg.begin, seg.end - seg.begin), at_origin && seg.begin == 0});
    if (pre_tokenizer_) pre_tokenizer_->PreTokenize(&pieces);
    for (const Piece& piece : pieces) model_->Tokenize(piece.text, ids);
  }
}

void Pipeline::Encode(std::string_view text, bool add_special_tokens, std::vector<int32_t>* ids) const {
  ids->clear();
  std::string valid;
  if (!IsValidUtf8(text)) {
    valid = unicode::ToValidUtf8(text);
    text = valid;
  }
  std::vector<AddedVocab::Segment> segments;
  added_.Split(text, /*normalized_set=*/false, &segments);
  for (const auto& seg : segments) {
    if (seg.id >= 0) {
      ids->push_back(seg.id);
    } else {
      EncodeText(text.substr(seg.begin, seg.end - seg.begin), seg.begin == 0, ids);
    }
  }
  if (post_processor_) post_processor_->Process(ids, add_special_tokens);
}

int32_t Pipeline::TokenToId(std::string_view token) const {
  int32_t id = added_.FindContent(token);
  return id >= 0 ? id : model_->TokenToId(token);
}

std::string_view Pipeline::IdToToken(int32_t id) const {
  if (const AddedToken* t = added_.Find(id)) return t->decode_form;
  return model_->IdToToken(id);
}

bool Pipeline::DecodesToNothing(int32_t id, bool skip_special_tokens) const {
  std::string_view s;
  if (const AddedToken* t = added_.Find(id)) {
    s = t->decode_form;
  } else if (model_->HasId(id)) {
    s = model_->IdToToken(id);
  } else {
    return true;
  }
  return skip_special_tokens && added_.IsSpecialContent(s);
}

bool Pipeline::IsByteRunToken(int32_t id) const {
  if (decoder_ == nullptr || !decoder_->HasByteFallback()) return false;
  return ByteTokenValue(IdToToken(id)) >= 0;
}

std::string Pipeline::Decode(std::span<const int32_t> ids, bool skip_special_tokens, bool at_start) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    std::string_view s;
    if (const AddedToken* t = added_.Find(id)) {
      s = t->decode_form;
    } else if (model_->HasId(id)) {
      s = model_->IdToToken(id);
    } else {
      continue;
    }
    if (skip_special_tokens && added_.IsSpecialContent(s)) continue;
    tokens.emplace_back(s);
  }
  if (decoder_) return RunDecoder(*decoder_, std::move(tokens), at_start);
  return StrJoin(tokens, " ");
}

const std::string& Pipeline::TokenBytes(int32_t id) const {
  std::call_once(token_bytes_once_, [this] {
    const int32_t n = id_limit();
    token_bytes_.resize(n + 1);  // the last entry stays "" for unknown ids
    for (int32_t i = 0; i < n; ++i) {
      if (const AddedToken* t = added_.Find(i)) {
        token_bytes_[i] = t->decode_form;  // added tokens pass through the decoder too
      } else if (model_->HasId(i)) {
        token_bytes_[i] = std::string(model_->IdToToken(i));
      } else {
        continue;
      }
      if (decoder_) {
        bool fused = false;
        decoder_->MidToken(&token_bytes_[i], &fused);
      }
    }
  });
  if (id < 0 || id >= static_cast<int32_t>(token_bytes_.size()) - 1) return token_bytes_.back();
  return token_bytes_[id];
}

}  // namespace gemmad::tokenizer
