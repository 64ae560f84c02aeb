// The engine flags, engine start-up and prompt ids shared by `gemmad bench latency` and `gemmad
// bench throughput` (their timed batch runs: bench_batch.cc).
#include "cli/bench_offline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include "cli/flag_values.h"
#include "cli/serve_options.h"
#include "cli/speculative_flag.h"
#include "cli/tensor_parallel.h"
#include "io/hf_hub.h"
#include "io/gguf_file.h"
#include "model/gemma4/checkpoint.h"
#include "model/open_weight_source.h"
#include "tokenizer/gguf_tokenizer.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::cli {
namespace {

using enum FlagType;
constexpr FlagSpec kEngineFlags[] = {
    {"model", kString, "", "Model: a local directory or an HF repo id (or give it as the positional MODEL)."},
    {"revision", kString, "main", "Model revision on the HF hub."},
    {"quantization", kString, "none", "Quantize the weights at load time: int8 (per channel) or int4 (groups of 32).",
     FlagEffect::kEffective, "int8|int4|none", "-q"},
    {"threads", kInt, "", "CPU threads of the forward pass, the engine thread included (default: all hardware "
                          "threads, or under --tensor-parallel-size each rank's share; gemmad flag)."},
    {"tensor-parallel-size", kInt, "1",
     "Tensor-parallel degree on the CPU, as `gemmad serve -tp N`: N MPI ranks (OpenMPI), each holding 1/N of every "
     "layer; started through mpirun unless an MPI launcher started gemmad. Rank 0 runs the benchmark.",
     FlagEffect::kEffective, {}, "-tp"},
    {"max-model-len", kTokenCount, "", "Model context length (default: the benchmark's input + output length)."},
    {"max-num-seqs", kInt, "256", "Most sequences in one engine step."},
    {"max-num-batched-tokens", kTokenCount, "2048", "Most tokens in one engine step (longer prefills are chunked)."},
    {"kv-cache-memory-bytes", kTokenCount, "", "KV cache size in bytes (default: env VLLM_CPU_KVCACHE_SPACE GiB, "
                                               "else 4 GiB)."},
    {"block-size", kInt, "16", "Tokens per KV block."},
    {"kv-cache-dtype", kString, "auto", "KV cache dtype, as `gemmad serve` takes it (auto: the compute dtype).",
     FlagEffect::kEffective, "auto|float16|bfloat16|fp8|fp8_e4m3"},
    {"enable-prefix-caching", kBool, "true", "Prefix caching (random prompts never share a block anyway)."},
    {"seed", kInt, "0", "Seed of the random prompts and of the engine's sampling."},
    {"speculative-config", kJson, "", "Speculative decoding as `gemmad serve` takes it (MTP assistant or n-gram).",
     FlagEffect::kEffective,
     {}, "-sc"},
    {"disable-detokenize", kBool, "false", "Accepted for vLLM compatibility (token-id prompts are never "
                                           "detokenized).", FlagEffect::kAccepted},
};

Result<int64_t> KvBudget(const ParsedFlags& f) {
  if (!f.IsNull("kv-cache-memory-bytes")) {
    const int64_t v = f.GetInt("kv-cache-memory-bytes");
    if (v <= 0) return InvalidArgumentError("--kv-cache-memory-bytes must be positive");
    return v;
  }
  const char* gib = std::getenv("VLLM_CPU_KVCACHE_SPACE");
  if (gib == nullptr || *gib == '\0') return int64_t{4} << 30;
  auto v = ParseFloatText(gib);
  if (!v.ok() || *v < 0) return InvalidArgumentError(fmt::format("VLLM_CPU_KVCACHE_SPACE={}: expected a number of GiB", gib));
  if (*v == 0) return int64_t{4} << 30;
  return static_cast<int64_t>(*v * static_cast<double>(int64_t{1} << 30));
}

// The tokenizer's ordinary tokens (not added, not empty), as `gemmad bench serve`; without a
// tokenizer, [0, vocab) minus the config's BOS/EOS/pad and multimodal placeholder ids. A GGUF
// file's tokenizer comes from its metadata alone (opening it as a checkpoint would load every
// weight a second time).
Result<std::vector<int32_t>> PromptIds(const std::string& dir, int32_t vocab_size) {
  std::vector<int32_t> ids;
  std::unique_ptr<tokenizer::Tokenizer> tok;
  if (model::IsGgufPath(dir)) {
    GEMMAD_ASSIGN_OR_RETURN(io::GgufFile file, io::GgufFile::Open(dir));
    GEMMAD_ASSIGN_OR_RETURN(tok, tokenizer::TokenizerFromGguf(file.metadata(), dir));
  } else if (std::filesystem::exists(std::filesystem::path(dir) / "tokenizer.json")) {
    GEMMAD_ASSIGN_OR_RETURN(tok, tokenizer::Tokenizer::Load(dir));
  }
  if (tok) {
    const int32_t n = std::min(vocab_size, tok->vocab_size());
    for (int32_t i = 0; i < n; ++i) {
      if (!tok->IsAdded(i) && !tok->IdToToken(i).empty()) ids.push_back(i);
    }
  } else {
    GEMMAD_ASSIGN_OR_RETURN(auto ck, model::gemma4::Checkpoint::Open(dir));
    const auto& c = ck.config();
    std::set<int64_t> special(c.eos_token_ids.begin(), c.eos_token_ids.end());
    for (int64_t id : {c.pad_token_id, c.bos_token_id, c.image_token_id, c.audio_token_id, c.video_token_id}) {
      special.insert(id);
    }
    for (int32_t i = 0; i < vocab_size; ++i) {
      if (special.count(i) == 0) ids.push_back(i);
    }
  }
  if (ids.empty()) return InvalidArgumentError(fmt::format("{}: the vocabulary has no ordinary tokens", dir));
  return ids;
}

}  // namespace

FlagTable OfflineEngineFlags() { return kEngineFlags; }

std::vector<FlagSpec> WithEngineFlags(FlagTable bench) {
  std::vector<FlagSpec> all(bench.begin(), bench.end());
  all.insert(all.end(), std::begin(kEngineFlags), std::end(kEngineFlags));
  return all;
}

Result<OfflineCommand> ParseOfflineCommand(const std::vector<std::string>& args, FlagTable bench, const char* usage,
                                           const char* description) {
  const std::vector<FlagSpec> table = WithEngineFlags(bench);
  GEMMAD_ASSIGN_OR_RETURN(ParsedFlags f, ParseFlags(args, table, /*max_positional=*/1));
  OfflineCommand c;
  if (f.help_requested) {
    std::fputs(FormatHelp(usage, description, {{"Benchmark", bench}, {"Engine", OfflineEngineFlags()}}).c_str(),
               stdout);
    c.help_printed = true;
    return c;
  }
  c.input_len = f.GetInt("input-len");
  c.output_len = f.GetInt("output-len");
  if (c.input_len < 1) return InvalidArgumentError("--input-len must be at least 1");
  if (c.output_len < 1 || c.output_len > (int64_t{1} << 30)) return InvalidArgumentError("--output-len must be at least 1");
  const int64_t tp = f.GetInt("tensor-parallel-size");
  if (tp < 1 || tp > 1024) return InvalidArgumentError("--tensor-parallel-size must be in [1, 1024]");
  c.flags = std::move(f);
  return c;
}

Result<std::string> OfflineModelName(const ParsedFlags& f) {
  const std::string flag = f.GetString("model");
  const std::string pos = f.positional.empty() ? "" : f.positional[0];
  if (!flag.empty() && !pos.empty() && flag != pos) {
    return InvalidArgumentError(fmt::format("the positional MODEL '{}' and --model '{}' differ", pos, flag));
  }
  if (flag.empty() && pos.empty()) return InvalidArgumentError("missing MODEL (positional or --model)");
  return flag.empty() ? pos : flag;
}

Result<ModelEngineOptions> OfflineEngineOptions(const ParsedFlags& f, int64_t needed_len) {
  ModelEngineOptions o;
  GEMMAD_ASSIGN_OR_RETURN(const std::string model, OfflineModelName(f));
  auto q = model::gemma4::ParseWeightQuantization(f.GetString("quantization"));
  if (!q.ok()) return q.status().WithPrefix("--quantization");
  o.quantization = *q;
  if (!f.IsNull("threads") && f.GetInt("threads") < 1) return InvalidArgumentError("--threads must be at least 1");
  const int all = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.num_threads = !f.IsNull("threads")                      ? static_cast<int>(f.GetInt("threads"))
                  : f.GetInt("tensor-parallel-size") > 1 ? ThreadsPerRank()
                                                          : all;
  o.max_model_len = needed_len;
  if (!f.IsNull("max-model-len")) {
    if (f.GetInt("max-model-len") < needed_len) {
      return InvalidArgumentError(fmt::format("--max-model-len {} is shorter than input + output length {}",
                                              f.GetInt("max-model-len"), needed_len));
    }
    o.max_model_len = f.GetInt("max-model-len");
  }
  const int64_t seqs = f.GetInt("max-num-seqs"), batched = f.GetInt("max-num-batched-tokens");
  const int64_t block = f.GetInt("block-size");
  if (seqs < 1 || seqs > (int64_t{1} << 20)) return InvalidArgumentError("--max-num-seqs must be in [1, 1048576]");
  if (batched < 1 || batched > (int64_t{1} << 30)) return InvalidArgumentError("--max-num-batched-tokens must be positive");
  if (block < 1 || block > 1024) return InvalidArgumentError("--block-size must be in [1, 1024]");
  if (f.GetInt("seed") < 0) return InvalidArgumentError("--seed must be non-negative");
  o.max_num_seqs = static_cast<int32_t>(seqs);
  o.max_num_batched_tokens = static_cast<int32_t>(batched);
  o.block_size = static_cast<int32_t>(block);
  o.enable_prefix_caching = f.GetBool("enable-prefix-caching");
  o.seed = static_cast<uint64_t>(f.GetInt("seed"));
  GEMMAD_ASSIGN_OR_RETURN(o.kv_cache_bytes, KvBudget(f));
  GEMMAD_ASSIGN_OR_RETURN(o.kv_cache_dtype, ParseKvCacheDtype(f.GetString("kv-cache-dtype")));
  o.iteration_timeout_s = engine::IterationTimeoutFromEnv();

  auto dir = io::ResolveModelPath(model, f.GetString("revision"), io::HubSettingsFromEnv());
  if (!dir.ok()) return InvalidArgumentError(dir.status().message());
  o.model_dir = *dir;
  if (!f.IsNull("speculative-config")) {
    GEMMAD_ASSIGN_OR_RETURN(spec::SpeculativeConfig sc, ParseSpeculativeFlag(f.GetJson("speculative-config")));
    GEMMAD_RETURN_IF_ERROR(ApplySpeculativeConfig(sc, io::HubSettingsFromEnv(), &o));
  }
  return o;
}

Result<OfflineEngine> StartOfflineEngine(const ParsedFlags& f, ModelEngineOptions o,
                                         std::shared_ptr<dist::Communicator> comm, const BenchDrafter* drafter) {
  OfflineEngine out;
  GEMMAD_ASSIGN_OR_RETURN(out.model, OfflineModelName(f));
  out.model_dir = o.model_dir;
  out.quantization = f.GetString("quantization");
  out.threads = o.num_threads;
  out.tensor_parallel_size = comm ? comm->size() : 1;
  if (drafter) {
    if (!f.IsNull("speculative-config")) return InvalidArgumentError("--speculative-config and --replay-drafts exclude each other");
    o.drafter = drafter->drafter;
    o.num_speculative_tokens = drafter->num_tokens;
    o.drafter_label = drafter->label;
    if (drafter->disable_prefix_caching) o.enable_prefix_caching = false;
  }
  o.communicator = std::move(comm);
  auto engine = CreateModelEngine(o);
  if (!engine.ok()) return InvalidArgumentError(engine.status().message());
  out.engine = std::move(*engine);
  GEMMAD_ASSIGN_OR_RETURN(out.prompt_ids, PromptIds(out.model_dir, out.engine.engine->limits().vocab_size));
  return out;
}

nlohmann::ordered_json OfflineSettingsJson(const OfflineEngine& e) {
  const auto& limits = e.engine.engine->limits();
  return {{"model", e.model},
          {"model_dir", e.model_dir},
          {"quantization", e.quantization},
          {"threads", e.threads},
          {"tensor_parallel_size", e.tensor_parallel_size},
          {"max_model_len", limits.max_model_len},
          {"max_num_seqs", limits.max_num_seqs},
          {"max_num_batched_tokens", limits.max_num_batched_tokens},
          {"kv_cache_bytes", e.engine.kv_cache_bytes}};
}

Status WriteJsonFile(const std::string& path, const nlohmann::ordered_json& j) {
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  out.close();
  if (!out) return InvalidArgumentError("cannot write " + path);
  return OkStatus();
}

}  // namespace gemmad::cli
