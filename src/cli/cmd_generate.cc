// `gemmad generate MODEL (--prompt TEXT | --prompt-ids 1,2,3) [--max-tokens N] [--temperature T]
// [--logprobs K|-1] [--seed S] [--ignore-eos] [--threads N] [--revision R]`: runs the model on one
// prompt and prints one JSON line per generated token: {"id", "text", "logprob", "top_logprobs":
// [{"id", "logprob"}]}. Prefill is one step, then one token per step over a paged KV cache whose
// sliding-window blocks are reused as a ring. Bad input: one line on stderr, exit 2.
#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/model_tokenizer.h"
#include "cli/subcommand.h"
#include "cli/test_seams.h"
#include "io/hf_hub.h"
#include "kernels/stream_params_choice.h"
#include "kernels/thread_pool.h"
#include "model/gemma4/model.h"
#include "sample/sampling_params.h"
#include "sample/sequence_sampler.h"
#include "tokenizer/incremental_detokenizer.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::cli {
namespace {

constexpr const char* kUsage =
    "usage: gemmad generate MODEL (--prompt TEXT | --prompt-ids 1,2,3) [--max-tokens N] [--temperature T]\n"
    "                       [--logprobs K] [--seed S] [--ignore-eos] [--threads N] [--revision R]\n"
    "                       [--quantization int8|int4|none]";

struct GenerateArgs {
  std::string model, revision = "main";
  std::optional<std::string> prompt;
  std::optional<std::vector<int32_t>> prompt_ids;
  int64_t max_tokens = 16;
  float temperature = 0.0f;
  int32_t logprobs = 0;
  int64_t seed = 0;
  bool ignore_eos = false;
  int threads = 0;  // 0 = all hardware threads
  model::gemma4::WeightQuantization quantization = model::gemma4::WeightQuantization::kNone;
};

template <typename T>
Result<T> ParseNumber(const std::string& flag, const std::string& text) {
  T v{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return InvalidArgumentError(flag + ": '" + text + "' is not a valid number");
  }
  return v;
}

Result<std::vector<int32_t>> ParseIds(const std::string& text) {
  std::vector<int32_t> ids;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    GEMMAD_ASSIGN_OR_RETURN(int32_t id, ParseNumber<int32_t>("--prompt-ids", text.substr(start, comma - start)));
    ids.push_back(id);
    start = comma + 1;
  }
  return ids;
}

Result<GenerateArgs> ParseArgs(const std::vector<std::string>& args) {
  GenerateArgs g;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    const bool is_flag = flag.rfind("--", 0) == 0;
    if (!is_flag) {
      if (!g.model.empty()) return InvalidArgumentError("unexpected argument '" + flag + "'");
      g.model = flag;
      continue;
    }
    if (flag == "--ignore-eos") {
      g.ignore_eos = true;
      continue;
    }
    if (auto eq = flag.find('='); eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return InvalidArgumentError(flag + " needs a value");
    }
    if (flag == "--prompt") {
      g.prompt = value;
    } else if (flag == "--prompt-ids") {
      GEMMAD_ASSIGN_OR_RETURN(g.prompt_ids, ParseIds(value));
    } else if (flag == "--max-tokens") {
      GEMMAD_ASSIGN_OR_RETURN(g.max_tokens, ParseNumber<int64_t>(flag, value));
    } else if (flag == "--temperature") {
      GEMMAD_ASSIGN_OR_RETURN(g.temperature, ParseNumber<float>(flag, value));
    } else if (flag == "--logprobs") {
      GEMMAD_ASSIGN_OR_RETURN(g.logprobs, ParseNumber<int32_t>(flag, value));
    } else if (flag == "--seed") {
      GEMMAD_ASSIGN_OR_RETURN(g.seed, ParseNumber<int64_t>(flag, value));
    } else if (flag == "--threads") {
      GEMMAD_ASSIGN_OR_RETURN(g.threads, ParseNumber<int>(flag, value));
    } else if (flag == "--revision") {
      g.revision = value;
    } else if (flag == "--quantization") {
      auto q = model::gemma4::ParseWeightQuantization(value);
      if (!q.ok()) return q.status().WithPrefix("--quantization");
      g.quantization = *q;
    } else {
      return InvalidArgumentError("unknown flag " + flag);
    }
  }
  if (g.model.empty()) return InvalidArgumentError("missing MODEL");
  if (g.prompt.has_value() == g.prompt_ids.has_value()) {
    return InvalidArgumentError("give exactly one of --prompt and --prompt-ids");
  }
  if (g.max_tokens < 1) return InvalidArgumentError("--max-tokens must be at least 1");
  if (g.logprobs < -1) return InvalidArgumentError("--logprobs must be -1 (whole vocabulary) or more");
  if (g.threads < 0) return InvalidArgumentError("--threads must be non-negative");
  return g;
}

// Everything one generation needs, loaded and checked.
struct Session {
  std::unique_ptr<model::gemma4::Model> model;
  std::unique_ptr<tokenizer::Tokenizer> tok;  // null when the model directory has none
  std::vector<int32_t> prompt;
  std::set<int64_t> stop_ids;
};

Result<Session> Prepare(const GenerateArgs& g) {
  Session s;
  GEMMAD_ASSIGN_OR_RETURN(std::string dir, io::ResolveModelPath(g.model, g.revision, io::HubSettingsFromEnv()));
  model::gemma4::ModelOptions mo;
  mo.quantization = g.quantization;
  mo.num_threads = g.threads > 0 ? g.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  GEMMAD_ASSIGN_OR_RETURN(s.model, model::gemma4::Model::Load(dir, {}, mo));
  GEMMAD_ASSIGN_OR_RETURN(s.tok, LoadSourceTokenizer(s.model->checkpoint().source(), dir));
  if (g.prompt) {
    if (!s.tok) return InvalidArgumentError(dir + ": --prompt needs a tokenizer.json (use --prompt-ids)");
    s.prompt = s.tok->Encode(*g.prompt, /*add_special_tokens=*/true);
  } else {
    s.prompt = *g.prompt_ids;
  }
  const auto& c = s.model->config();
  if (s.prompt.empty()) return InvalidArgumentError("the prompt is empty");
  for (int32_t id : s.prompt) {
    if (id < 0 || id >= c.vocab_size) {
      return InvalidArgumentError("prompt token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                                  std::to_string(c.vocab_size) + ")");
    }
  }
  const int64_t total = static_cast<int64_t>(s.prompt.size()) + g.max_tokens;
  if (total > c.max_position_embeddings) {
    return InvalidArgumentError("prompt (" + std::to_string(s.prompt.size()) + " tokens) + --max-tokens exceeds " +
                                "the model's max_position_embeddings " + std::to_string(c.max_position_embeddings));
  }
  if (!g.ignore_eos) {
    s.stop_ids.insert(c.eos_token_ids.begin(), c.eos_token_ids.end());
    const auto& gen = s.model->checkpoint().generation_config().eos_token_ids;
    s.stop_ids.insert(gen.begin(), gen.end());
  }
  return s;
}

// Block tables for one sequence of up to `total` tokens: full groups map block b to b; sliding
// groups reuse a ring of NumBlocksNeeded blocks (entries below the window are never read).
std::vector<std::vector<int32_t>> RingTables(const model::KvCacheSpec& spec, int64_t total, int64_t chunk,
                                             std::vector<int64_t>* num_blocks) {
  std::vector<std::vector<int32_t>> tables;
  for (const auto& g : spec.groups) {
    const int64_t n = g.NumBlocksNeeded(total, chunk);
    num_blocks->push_back(n);
    std::vector<int32_t> t(static_cast<size_t>(g.EndBlock(total)));
    for (size_t b = 0; b < t.size(); ++b) t[b] = static_cast<int32_t>(static_cast<int64_t>(b) % n);
    tables.push_back(std::move(t));
  }
  return tables;
}

int Generate(const GenerateArgs& g, Session& s) {
  auto& m = *s.model;
  const int64_t V = m.config().vocab_size;
  const int64_t total = static_cast<int64_t>(s.prompt.size()) + g.max_tokens;
  const model::KvCacheSpec spec = m.MakeKvCacheSpec(16);
  std::vector<int64_t> num_blocks;
  auto tables = RingTables(spec, total, static_cast<int64_t>(s.prompt.size()), &num_blocks);
  const kernels::Backend& backend = kernels::BackendOf({nullptr, InstalledTestSeams().backend});
  auto cache = model::KvCache::Create(spec, num_blocks, *backend.allocator);
  if (!cache.ok()) {
    std::fprintf(stderr, "gemmad generate: %s\n", cache.status().ToString().c_str());
    return 1;
  }
  sample::SamplingParams params;
  params.temperature = g.temperature;
  params.seed = g.seed;
  params.logprobs = g.logprobs;
  params = sample::Normalized(params, static_cast<int32_t>(V));
  if (Status st = sample::Validate(params, {static_cast<int32_t>(V), -1}); !st.ok()) {
    std::fprintf(stderr, "gemmad generate: %s\n", st.message().c_str());
    return 2;
  }
  sample::SequenceSampler sampler(params, static_cast<uint64_t>(g.seed), s.prompt, std::nullopt,
                                  static_cast<int32_t>(V), nullptr);
  std::optional<tokenizer::IncrementalDetokenizer> detok;
  if (s.tok) detok.emplace(*s.tok, /*skip_special_tokens=*/true);
  kernels::ThreadPool pool(g.threads > 0 ? g.threads : std::max(1u, std::thread::hardware_concurrency()));
  const kernels::ExecContext exec{&pool, &backend};
  std::vector<float> logits(static_cast<size_t>(V));
  const tensor::TensorView lv{logits.data(), tensor::DType::kF32, tensor::Shape{1, V}};
  std::vector<int32_t> step = s.prompt;
  int64_t computed = 0;
  for (int64_t i = 0; i < g.max_tokens; ++i) {
    Status st = m.Forward(exec, model::SingleSequenceBatch(step, computed, tables, false), **cache, lv);
    if (!st.ok()) {
      std::fprintf(stderr, "gemmad generate: %s\n", st.ToString().c_str());
      return 1;
    }
    computed += static_cast<int64_t>(step.size());
    auto out = sampler.Sample(logits, kernels::WithoutPool(exec));
    if (!out.ok()) {
      std::fprintf(stderr, "gemmad generate: %s\n", out.status().ToString().c_str());
      return 1;
    }
    const int32_t id = out->token_id;
    const bool last = i + 1 == g.max_tokens || s.stop_ids.count(id) > 0;
    nlohmann::ordered_json line = {{"id", id}, {"text", nullptr}, {"logprob", out->logprobs->logprob}};
    if (detok) line["text"] = detok->Step(id) + (last ? detok->Flush() : "");
    line["top_logprobs"] = nlohmann::ordered_json::array();
    for (const auto& t : out->logprobs->top) line["top_logprobs"].push_back({{"id", t.token_id}, {"logprob", t.logprob}});
    std::printf("%s\n", line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    std::fflush(stdout);
    if (last) break;
    step = {id};
  }
  return 0;
}

int RunGenerate(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("%s\n", kUsage);
    return 0;
  }
  auto g = ParseArgs(args);
  if (!g.ok()) {
    std::fprintf(stderr, "gemmad generate: %s (see gemmad generate --help)\n", g.status().message().c_str());
    return 2;
  }
  if (const auto& stream = kernels::AppliedStreamChoice(); !stream.error.empty()) {
    std::fprintf(stderr, "gemmad generate: %s\n", stream.error.c_str());
    return 2;
  }
  auto s = Prepare(*g);
  if (!s.ok()) {
    std::fprintf(stderr, "gemmad generate: %s\n", s.status().message().c_str());
    return 2;
  }
  return Generate(*g, *s);
}

}  // namespace

extern const Subcommand kCmd_generate;
const Subcommand kCmd_generate{"generate", "run a model on one prompt, print one JSON line per token", &RunGenerate};

}  // namespace gemmad::cli
