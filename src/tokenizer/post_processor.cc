// Post-processor implementations and their JSON parsing.
#include "tokenizer/post_processor.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace gemmad::tokenizer {
namespace {

// Adds fixed ids before and after the sequence (all supported processors reduce to this for a
// single sequence).
class SurroundProcessor : public PostProcessor {
 public:
  SurroundProcessor(std::vector<int32_t> before, std::vector<int32_t> after)
      : before_(std::move(before)), after_(std::move(after)) {}
  void Process(std::vector<int32_t>* ids, bool add_special_tokens) const override {
    if (!add_special_tokens) return;
    ids->insert(ids->begin(), before_.begin(), before_.end());
    ids->insert(ids->end(), after_.begin(), after_.end());
  }
  void Surround(std::vector<int32_t>* before, std::vector<int32_t>* after) const override {
    *before = before_;
    *after = after_;
  }

 private:
  std::vector<int32_t> before_, after_;
};

class SequenceProcessor : public PostProcessor {
 public:
  explicit SequenceProcessor(std::vector<std::unique_ptr<PostProcessor>> parts) : parts_(std::move(parts)) {}
  void Process(std::vector<int32_t>* ids, bool add) const override {
    for (const auto& p : parts_) p->Process(ids, add);
  }
  void Surround(std::vector<int32_t>* before, std::vector<int32_t>* after) const override {
    before->clear();
    after->clear();
    for (const auto& p : parts_) {
      std::vector<int32_t> b, a;
      p->Surround(&b, &a);
      before->insert(before->begin(), b.begin(), b.end());
      after->insert(after->end(), a.begin(), a.end());
    }
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> parts_;
};

Result<std::unique_ptr<PostProcessor>> ParseTemplate(const nlohmann::json& j) {
  const auto& single = j.contains("single") ? j["single"] : nlohmann::json();
  const auto& specials = j.contains("special_tokens") ? j["special_tokens"] : nlohmann::json::object();
  if (!single.is_array()) return DataLossError("tokenizer.json: post_processor TemplateProcessing: \"single\" must be a list");
  std::vector<int32_t> before, after;
  int num_sequences = 0;
  for (const auto& piece : single) {
    if (piece.contains("Sequence")) {
      if (piece["Sequence"].value("id", std::string()) != "A") {
        return UnimplementedError("tokenizer.json: post_processor TemplateProcessing: single template uses sequence B");
      }
      ++num_sequences;
      continue;
    }
    if (!piece.contains("SpecialToken")) {
      return DataLossError("tokenizer.json: post_processor TemplateProcessing: bad template piece");
    }
    std::string name = piece["SpecialToken"].value("id", std::string());
    if (!specials.contains(name) || !specials[name].contains("ids") || !specials[name]["ids"].is_array()) {
      return DataLossError(fmt::format("tokenizer.json: post_processor TemplateProcessing: missing special token \"{}\"", name));
    }
    for (const auto& id : specials[name]["ids"]) {
      if (!id.is_number_unsigned()) return DataLossError("tokenizer.json: post_processor TemplateProcessing: bad id");
      (num_sequences == 0 ? before : after).push_back(id.get<int32_t>());
    }
  }
  if (num_sequences != 1) {
    return UnimplementedError("tokenizer.json: post_processor TemplateProcessing: single template must hold $A once");
  }
  return std::unique_ptr<PostProcessor>(new SurroundProcessor(std::move(before), std::move(after)));
}

Result<int32_t> PairId(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_array() || j[key].size() != 2 || !j[key][1].is_number_unsigned()) {
    return DataLossError(fmt::format("tokenizer.json: post_processor: \"{}\" must be [token, id]", key));
  }
  return j[key][1].get<int32_t>();
}

}  // namespace

Result<std::unique_ptr<PostProcessor>> ParsePostProcessor(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    return DataLossError("tokenizer.json: post_processor: expected an object with a \"type\"");
  }
  const std::string type = j["type"].get<std::string>();
  using P = std::unique_ptr<PostProcessor>;
  if (type == "TemplateProcessing") return ParseTemplate(j);
  if (type == "ByteLevel") return P(new SurroundProcessor({}, {}));
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    GEMMAD_ASSIGN_OR_RETURN(int32_t cls, PairId(j, "cls"));
    GEMMAD_ASSIGN_OR_RETURN(int32_t sep, PairId(j, "sep"));
    return P(new SurroundProcessor({cls}, {sep}));
  }
  if (type == "Sequence") {
    if (!j.contains("processors") || !j["processors"].is_array()) {
      return DataLossError("tokenizer.json: post_processor Sequence: missing \"processors\" array");
    }
    std::vector<P> parts;
    for (const auto& item : j["processors"]) {
      GEMMAD_ASSIGN_OR_RETURN(P part, ParsePostProcessor(item));
      parts.push_back(std::move(part));
    }
    return P(new SequenceProcessor(std::move(parts)));
  }
  return UnimplementedError(fmt::format("tokenizer.json: post_processor type \"{}\" is not supported", type));
}

}  // namespace gemmad::tokenizer
