// The config.json (Hugging Face form) and stop ids of a GGUF file's text model, from its metadata
// (spec gguf.md §3.2 gemma3, §3.4 gemma4) and the few tensor facts the metadata leaves out: the
// vocabulary size (token_embd rows), whether full layers have V (attention_k_eq_v), and the
// proportional RoPE fraction (rope_freqs). Hyper-parameters a GGUF cannot store are taken as
// llama.cpp takes them: Gemma 3 query_pre_attn_scalar = head_dim (n_embd / n_head for 62 layers),
// a missing freq_base_swa = 10000, a missing sliding pattern = period 6.
#pragma once

#include <string>

#include "base/result.h"
#include "model/gguf_shards.h"
#include "model/generation_config.h"
#include "model/gguf_names.h"

namespace gemmad::model {

struct GgufModelConfig {
  GgufArch arch = GgufArch::kGemma3;
  std::string config_json;             // what ParseConfig reads
  GenerationConfig generation_config;  // stop ids (the file's eos plus Gemma's end-of-turn ids)
};

// Errors name the file and the key: "<path>: gemma3.block_count: ...". An architecture other than
// gemma3 / gemma4 is refused by name.
Result<GgufModelConfig> GgufConfigFromFile(const GgufShards& file);

}  // namespace gemmad::model
