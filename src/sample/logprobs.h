// Logprob records as vLLM reports them: the chosen token's logprob and rank in the raw
// distribution plus the top-k alternatives. Plain data shared by sample/, runner/, engine/, api/.
// Invariant: top is sorted by logprob descending, ties by token id ascending.
#pragma once

#include <cstdint>
#include <vector>

namespace gemmad::sample {

struct TopLogprob {
  int32_t token_id = 0;
  float logprob = 0.0f;  // natural log; -inf for masked tokens (the API clamps to >= -9999)
};

struct TokenLogprobs {
  int32_t token_id = 0;  // the sampled (or, for prompt logprobs, the actual prompt) token
  float logprob = 0.0f;
  // vLLM's rank: the number of vocabulary tokens whose logprob is >= this token's (>= 1).
  int32_t rank = 1;
  // The `k` most likely tokens (k = the request's logprobs / prompt_logprobs). vLLM's
  // OpenAI layer puts the chosen token first and then these, dropping a duplicate id, and
  // keeps the first k entries of that list; api/ reproduces that.
  std::vector<TopLogprob> top;
};

}  // namespace gemmad::sample
