// Test-only emulation of llama.cpp's converters (convert_hf_to_gguf.py, gguf-py vocab.py) for the
// tokenizer keys of a GGUF, from an HF tokenizer.json and tokenizer_config.json (spec gguf.md
// §2.3–2.4), so that the GGUF tokenizer can be checked against the HF one without a model file.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "io/gguf_metadata.h"

namespace gemmad::tokenizer::golden {

inline void Put(io::GgufMetadata* md, const std::string& key, io::GgufValue v) { md->Add({key, std::move(v)}); }
inline io::GgufValue Str(std::string s) {
  io::GgufValue v;
  v.type = io::GgufValueType::kString;
  v.s = std::move(s);
  return v;
}
inline io::GgufValue U32(uint32_t u) {
  io::GgufValue v;
  v.type = io::GgufValueType::kUint32;
  v.u = u;
  return v;
}
inline io::GgufValue Bool(bool b) {
  io::GgufValue v;
  v.type = io::GgufValueType::kBool;
  v.u = b ? 1 : 0;
  return v;
}
inline io::GgufValue Strings(std::vector<std::string> s) {
  io::GgufValue v;
  v.type = io::GgufValueType::kArray;
  v.array.elem_type = io::GgufValueType::kString;
  v.array.s = std::move(s);
  return v;
}
inline io::GgufValue Int32s(std::vector<int64_t> i) {
  io::GgufValue v;
  v.type = io::GgufValueType::kArray;
  v.array.elem_type = io::GgufValueType::kInt32;
  v.array.i = std::move(i);
  return v;
}
inline io::GgufValue Float32s(std::vector<double> f) {
  io::GgufValue v;
  v.type = io::GgufValueType::kArray;
  v.array.elem_type = io::GgufValueType::kFloat32;
  v.array.f = std::move(f);
  return v;
}

// The base vocabulary (ids 0..n-1 of model.vocab) in id order.
inline std::vector<std::string> BaseVocab(const nlohmann::json& tok) {
  const auto& vocab = tok["model"]["vocab"];
  std::vector<std::string> out(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) out.at(it.value().get<size_t>()) = it.key();
  return out;
}

// tokenizer_config.json's "*_token" strings: transformers' all_special_tokens for these files
// (checked: [0, 1, 2, 3, 4, 255999, 256000, 258880..258883] for ../shared/data/tokenizers/gemma4).
inline std::set<std::string> ConfigSpecialTokens(const nlohmann::json& cfg) {
  std::set<std::string> out;
  for (auto it = cfg.begin(); it != cfg.end(); ++it) {
    const std::string& k = it.key();
    if (k.size() < 6 || k.compare(k.size() - 6, 6, "_token") != 0) continue;
    if (it.value().is_string()) out.insert(it.value().get<std::string>());
    if (it.value().is_object() && it.value().contains("content")) out.insert(it.value()["content"].get<std::string>());
  }
  return out;
}

inline bool IsByteToken(const std::string& s) {
  static const std::regex re("<0x[0-9A-Fa-f]{2}>");
  return std::regex_match(s, re);
}

inline void PutSpecialIds(io::GgufMetadata* md, const nlohmann::json& tok, const nlohmann::json& cfg) {
  std::map<std::string, uint32_t> added;
  for (const auto& a : tok["added_tokens"]) added[a["content"].get<std::string>()] = a["id"].get<uint32_t>();
  for (auto [key, name] : {std::pair{"bos_token", "bos"}, std::pair{"eos_token", "eos"},
                           std::pair{"unk_token", "unknown"}, std::pair{"pad_token", "padding"},
                           std::pair{"mask_token", "mask"}}) {
    if (cfg.contains(key) && cfg[key].is_string() && added.count(cfg[key].get<std::string>())) {
      Put(md, std::string("tokenizer.ggml.") + name + "_token_id", U32(added[cfg[key].get<std::string>()]));
    }
  }
}

// Gemma4Model.set_vocab: gguf-py LlamaHfVocab (base vocabulary, then added tokens past it; BYTE,
// CONTROL for all_special_ids, else NORMAL; scores -1000), seven chat tokens USER_DEFINED, the
// tokenizer.json merges as "left right", SpecialVocab ids, add_bos true, add_space_prefix false.
inline io::GgufMetadata EmulateGemma4Converter(const nlohmann::json& tok, const nlohmann::json& cfg) {
  static const std::set<std::string> kVisible = {"<|channel>",      "<channel|>",        "<|tool_call>", "<tool_call|>",
                                                 "<|tool_response>", "<tool_response|>", "<|\"|>"};
  const std::set<std::string> specials = ConfigSpecialTokens(cfg);
  std::vector<std::string> tokens = BaseVocab(tok);
  std::vector<int64_t> types;
  for (const std::string& t : tokens) {
    types.push_back(kVisible.count(t) ? 4 : IsByteToken(t) ? 6 : specials.count(t) ? 3 : 1);
  }
  std::map<int64_t, std::string> extra;
  for (const auto& a : tok["added_tokens"]) {
    if (a["id"].get<size_t>() >= tokens.size()) extra[a["id"].get<int64_t>()] = a["content"].get<std::string>();
  }
  for (const auto& [id, content] : extra) {
    tokens.push_back(content);
    types.push_back(specials.count(content) ? 3 : 4);
  }
  std::vector<std::string> merges;
  for (const auto& m : tok["model"]["merges"]) {
    merges.push_back(m.is_string() ? m.get<std::string>() : m[0].get<std::string>() + " " + m[1].get<std::string>());
  }
  io::GgufMetadata md;
  Put(&md, "tokenizer.ggml.model", Str("gemma4"));
  Put(&md, "tokenizer.ggml.tokens", Strings(tokens));
  Put(&md, "tokenizer.ggml.scores", Float32s(std::vector<double>(tokens.size(), -1000.0)));
  Put(&md, "tokenizer.ggml.token_type", Int32s(types));
  Put(&md, "tokenizer.ggml.merges", Strings(merges));
  PutSpecialIds(&md, tok, cfg);
  Put(&md, "tokenizer.ggml.add_bos_token", Bool(true));
  Put(&md, "tokenizer.ggml.add_eos_token", Bool(false));
  Put(&md, "tokenizer.ggml.add_space_prefix", Bool(false));
  return md;
}

// Gemma3Model.set_vocab (_create_vocab_sentencepiece): the first `n_vocab` pieces; BYTE for
// <0xHH>, NORMAL with the SentencePiece score otherwise; then every added_tokens_decoder entry
// (here: tokenizer.json added_tokens) below n_vocab becomes CONTROL when special or "looking
// special" (<pad>, <mask>, <|...|>, <unused...>), else USER_DEFINED with "▁" written as " ", score
// -1000. SentencePiece BPE scores fall strictly with the piece id (the real Gemma 3 GGUF's NORMAL
// scores do: the `real` test checks it), and merge order depends only on the score order, so
// -(index among NORMAL pieces) stands in for them. HF's <image_soft_token> (262144) is dropped.
inline io::GgufMetadata EmulateGemma3Converter(const nlohmann::json& tok, const nlohmann::json& cfg,
                                               size_t n_vocab = 262144) {
  std::vector<std::string> tokens = BaseVocab(tok);
  tokens.resize(n_vocab);
  std::vector<int64_t> types(n_vocab, 1);
  std::vector<double> scores(n_vocab, 0.0);
  for (size_t i = 0; i < n_vocab; ++i) types[i] = IsByteToken(tokens[i]) ? 6 : 1;
  for (const auto& a : tok["added_tokens"]) {
    const size_t id = a["id"].get<size_t>();
    if (id >= n_vocab) continue;
    const std::string c = a["content"].get<std::string>();
    const bool looks = c == "<pad>" || c == "<mask>" || c == "<2mass>" || c == "[@BOS@]" ||
                       (c.rfind("<|", 0) == 0 && c.size() >= 4 && c.compare(c.size() - 2, 2, "|>") == 0) ||
                       (c.rfind("<unused", 0) == 0 && c.back() == '>');
    types[id] = a["special"].get<bool>() || looks ? 3 : 4;
    tokens[id] = types[id] == 3 ? c : std::regex_replace(c, std::regex("\xE2\x96\x81"), " ");
    scores[id] = -1000.0;
  }
  double normal = 0;
  for (size_t i = 0; i < n_vocab; ++i) {
    if (types[i] == 1) scores[i] = -(normal++);
  }
  io::GgufMetadata md;
  Put(&md, "tokenizer.ggml.model", Str("llama"));
  Put(&md, "tokenizer.ggml.pre", Str("default"));
  Put(&md, "tokenizer.ggml.tokens", Strings(tokens));
  Put(&md, "tokenizer.ggml.scores", Float32s(scores));
  Put(&md, "tokenizer.ggml.token_type", Int32s(types));
  PutSpecialIds(&md, tok, cfg);
  Put(&md, "tokenizer.ggml.add_bos_token", Bool(true));
  Put(&md, "tokenizer.ggml.add_eos_token", Bool(false));
  Put(&md, "tokenizer.ggml.add_space_prefix", Bool(false));
  return md;
}

}  // namespace gemmad::tokenizer::golden
