// Pattern: the {"String": s} / {"Regex": r} pattern of Split, Replace (normalizer and decoder),
// and the matching routine HF uses for both (non-overlapping, left to right).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"
#include "tokenizer/regex.h"

namespace gemmad::tokenizer {

class Pattern {
 public:
  // `where` names the field for error messages.
  static Result<Pattern> Parse(const nlohmann::json& j, std::string_view where);
  // Match spans in `s`, in order (Oniguruma find_iter semantics).
  void FindMatches(std::string_view s, std::vector<std::pair<size_t, size_t>>* out) const;
  // `s` with every match replaced by `content`.
  std::string Replace(std::string_view s, std::string_view content) const;

 private:
  std::string literal_;                 // when regex_ is null
  std::shared_ptr<const Regex> regex_;
};

}  // namespace gemmad::tokenizer
