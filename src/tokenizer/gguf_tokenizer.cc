// GGUF tokenizer: GgufVocab written out as the HF Gemma tokenizer.json / tokenizer_config.json.
#include "tokenizer/gguf_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <vector>

#include "tokenizer/gguf_vocab.h"

namespace gemmad::tokenizer {
namespace {

// The fixed parts of HF Gemma 3/4 tokenizer.json (../shared/data/tokenizers/*/tokenizer.json).
constexpr std::string_view kNormalizer = R"({"type":"Replace","pattern":{"String":" "},"content":"▁"})";
constexpr std::string_view kPreTokenizer =
    R"({"type":"Split","pattern":{"String":" "},"behavior":"MergedWithPrevious","invert":false})";
constexpr std::string_view kDecoder =
    R"({"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"▁"},"content":" "},)"
    R"({"type":"ByteFallback"},{"type":"Fuse"}]})";

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      *out += fmt::format("\\u{:04x}", u);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

// TemplateProcessing: <bos> A (<eos>), and the pair form HF Gemma uses (<bos> A <bos> B).
std::string PostProcessor(const GgufVocab& v) {
  const bool bos = v.add_bos && v.bos.has_value(), eos = v.add_eos && v.eos.has_value();
  if (!bos && !eos) return "null";
  auto special = [&](int32_t id, int type_id) {
    return fmt::format(R"({{"SpecialToken":{{"id":{},"type_id":{}}}}})", Quoted(v.tokens[id]), type_id);
  };
  auto sequence = [](std::string_view name, int type_id) {
    return fmt::format(R"({{"Sequence":{{"id":"{}","type_id":{}}}}})", name, type_id);
  };
  std::string single, pair, specials;
  for (int part = 0; part < 2; ++part) {
    std::string& out = part == 0 ? single : pair;
    for (int seq = 0; seq <= part; ++seq) {
      if (!out.empty()) out += ',';
      if (bos) out += special(*v.bos, seq) + ',';
      out += sequence(seq == 0 ? "A" : "B", seq);
      if (eos) out += ',' + special(*v.eos, seq);
    }
  }
  std::vector<int32_t> ids;
  if (bos) ids.push_back(*v.bos);
  if (eos && !(bos && *v.eos == *v.bos)) ids.push_back(*v.eos);
  for (int32_t id : ids) {
    const std::string name = Quoted(v.tokens[id]);
    if (!specials.empty()) specials += ',';
    specials += fmt::format(R"({}:{{"id":{},"ids":[{}],"tokens":[{}]}})", name, name, id, name);
  }
  return fmt::format(R"({{"type":"TemplateProcessing","single":[{}],"pair":[{}],"special_tokens":{{{}}}}})", single,
                     pair, specials);
}

std::string AddedTokensJson(const GgufVocab& v) {
  std::string out = "[";
  for (const GgufAddedToken& t : GgufAddedTokens(v)) {
    if (out.size() > 1) out += ',';
    out += fmt::format(R"({{"id":{},"content":)", t.id);
    AppendJsonString(&out, v.tokens[t.id]);
    out += R"(,"single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":)";
    out += t.special ? "true}" : "false}";
  }
  return out + "]";
}

std::string ModelJson(const GgufVocab& v) {
  std::string out = R"({"type":"BPE","dropout":null,"unk_token":)";
  out += v.unk ? Quoted(v.tokens[*v.unk]) : "null";
  out += R"(,"continuing_subword_prefix":null,"end_of_word_suffix":null,"fuse_unk":true,"byte_fallback":true,)"
         R"("ignore_merges":false,"vocab":{)";
  size_t bytes = 0;
  for (const std::string& t : v.tokens) bytes += t.size();
  out.reserve(2 * bytes + 12 * v.tokens.size() + 4 * bytes / std::max<size_t>(v.tokens.size(), 1) * v.merges.size());
  char digits[16];
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(&out, v.tokens[i]);
    out += ':';
    out.append(digits, std::to_chars(digits, digits + sizeof(digits), i).ptr);
  }
  out += R"(},"merges":[)";
  for (size_t k = 0; k < v.merges.size(); ++k) {
    out += k > 0 ? ",[" : "[";
    AppendJsonString(&out, v.tokens[v.merges[k].first]);
    out += ',';
    AppendJsonString(&out, v.tokens[v.merges[k].second]);
    out += ']';
  }
  return out + "]}";
}

std::string ConfigJson(const GgufVocab& v) {
  std::string out = "{";
  for (auto [key, id] : {std::pair{"bos_token", v.bos}, std::pair{"eos_token", v.eos}, std::pair{"pad_token", v.pad},
                         std::pair{"unk_token", v.unk}}) {
    if (!id) continue;
    if (out.size() > 1) out += ',';
    out += fmt::format(R"("{}":{})", key, Quoted(v.tokens[*id]));
  }
  return out + "}";
}

}  // namespace

Result<GgufTokenizerJson> TokenizerJsonFromGguf(const io::GgufMetadata& md) {
  GEMMAD_ASSIGN_OR_RETURN(GgufVocab v, ReadGgufVocab(md));
  GgufTokenizerJson out;
  out.tokenizer_json = fmt::format(
      R"({{"version":"1.0","truncation":null,"padding":null,"added_tokens":{},"normalizer":{},"pre_tokenizer":{},)"
      R"("post_processor":{},"decoder":{},"model":{}}})",
      AddedTokensJson(v), kNormalizer, kPreTokenizer, PostProcessor(v), kDecoder, ModelJson(v));
  out.config_json = ConfigJson(v);
  return out;
}

Result<std::unique_ptr<Tokenizer>> TokenizerFromGguf(const io::GgufMetadata& md, std::string_view origin) {
  auto files = TokenizerJsonFromGguf(md);
  Result<std::unique_ptr<Tokenizer>> tok =
      files.ok() ? Tokenizer::FromJson(files->tokenizer_json, files->config_json, origin) : files.status();
  if (!tok.ok()) return Status(tok.status().code(), fmt::format("{}: {}", origin, tok.status().message()));
  return tok;
}

std::optional<std::string> GgufChatTemplate(const io::GgufMetadata& md) {
  auto s = md.GetString("tokenizer.chat_template");
  if (!s.ok()) return std::nullopt;
  return *std::move(s);
}

}  // namespace gemmad::tokenizer
