// `gemmad serve` flags: scheduler, KV cache, parallelism, speculative decoding.
#include "cli/serve_flags.h"

namespace gemmad::cli {
namespace {

using enum FlagType;
constexpr FlagEffect kYes = FlagEffect::kEffective;
constexpr FlagEffect kNotYet = FlagEffect::kAccepted;
constexpr FlagEffect kOnlyDefault = FlagEffect::kUnsupported;

constexpr FlagSpec kFlags[] = {
    {"max-num-seqs", kInt, "256", "Most sequences in one engine step.", kYes, {}, {},
     "e2e test_max_num_seqs_caps_running"},
    {"max-num-batched-tokens", kTokenCount, "2048", "Token budget of one engine step.", kYes, {}, {},
     "e2e test_chunked_prefill_matches_one_shot_prefill"},
    {"enable-chunked-prefill", kBool, "true", "Split long prompts across steps (always on).", kNotYet},
    {"enable-prefix-caching", kBool, "true", "Reuse KV blocks of repeated prompt prefixes.", kYes, {}, {},
     "e2e test_prefix_caching_hits_and_matches_uncached"},
    {"block-size", kInt, "16", "Tokens per KV block.", kYes, {}, {}, "e2e test_block_size"},
    {"kv-cache-memory-bytes", kTokenCount, "(env VLLM_CPU_KVCACHE_SPACE GiB, else 4 GiB)",
     "KV cache budget in bytes (e.g. 8G).", kYes, {}, {},
     "unit ServeOptionsTest, e2e test_preemption_under_tight_kv"},
    {"kv-cache-dtype", kString, "auto",
     "KV cache dtype. auto: the compute dtype (--dtype), or FP8 E4M3 with the checkpoint's scales when it has a "
     "compressed-tensors kv_cache_scheme (vLLM's choice); fp8/fp8_e4m3: FP8 E4M3 with those scales, or a scale of "
     "1.0 (vLLM's default without checkpoint scales), half the bytes of bfloat16; float16: bfloat16, with a warning "
     "(no f16 KV path on the CPU); fp8_e5m2, fp8_inc, fp8_ds_mla: refused (not on the CPU backend).",
     kYes, "auto|float16|bfloat16|fp8|fp8_e4m3|fp8_e5m2|fp8_inc|fp8_ds_mla", {},
     "unit ServeOptionsTest, golden KvFp8, golden CtGolden, e2e test_kv_cache_fp8, e2e test_compressed_tensors"},
    {"calculate-kv-scales", kBool, "false",
     "With an FP8 KV cache: each layer's K and V scales from the first forward's keys and values (amax / 200 and "
     "amax / 100, vLLM's constants), replacing the checkpoint's or 1.0 for the life of the server; no effect on "
     "other caches. Not with --tensor-parallel-size > 1.",
     kYes, {}, {}, "unit KvScaleCalibration, e2e test_kv_cache_fp8"},
    {"gpu-memory-utilization", kFloat, "0.92", "GPU only (gemmad has no GPU backend; the CPU KV budget is --kv-cache-memory-bytes): fraction of GPU memory for weights and KV.",
     kNotYet, {}, {}, "e2e test_seeds"},
    {"swap-space", kFloat, "4", "GPU only (no GPU backend): CPU swap space per GPU in GiB.", kNotYet},
    {"async-scheduling", kBool, "(auto)", "GPU only (no GPU backend): overlap scheduling with execution.", kNotYet, {}, {},
     "e2e test_seeds"},
    {"scheduling-policy", kString, "fcfs", "Queue order.", kNotYet, "fcfs|priority"},
    {"tensor-parallel-size", kInt, "1",
     "Tensor-parallel degree on the CPU: N MPI ranks (OpenMPI), each holding 1/N of every layer; started through "
     "mpirun unless an MPI launcher started gemmad.",
     FlagEffect::kEffective, {}, "-tp", "parity TpParityTest, e2e test_tensor_parallel"},
    {"pipeline-parallel-size", kInt, "1", "Multi-GPU only (no GPU backend): pipeline-parallel degree; only 1.", kOnlyDefault, {}, "-pp"},
    {"data-parallel-size", kInt, "1", "Multi-GPU only (no GPU backend): data-parallel degree; only 1.", kOnlyDefault, {}, "-dp"},
    {"distributed-executor-backend", kString, "", "Multi-GPU only (no GPU backend): worker backend.", kNotYet, "ray|mp|uni|external_launcher"},
    {"nnodes", kInt, "1",
     "Hosts of a multi-node run; only 1: run the ranks across hosts with `mpirun -np N --host a,b gemmad serve ... -tp N`.",
     kOnlyDefault, {}, {}, "unit ServeOptionsTest"},
    {"node-rank", kInt, "0", "This host's index in a multi-node run; only 0 (see --nnodes).", kOnlyDefault, {}, {},
     "unit ServeOptionsTest"},
    {"headless", kBool, "false", "Run a multi-node follower without the API server; not supported (see --nnodes).",
     kOnlyDefault, {}, {}, "unit ServeOptionsTest"},
    {"master-addr", kString, "127.0.0.1", "Multi-node rendezvous address (see --nnodes).", kNotYet},
    {"master-port", kInt, "29501", "Multi-node rendezvous port (see --nnodes).", kNotYet},
    {"speculative-config", kJson, "",
     "Speculative decoding, as vLLM parses it: {\"model\": \"google/gemma-4-E4B-it-assistant\", "
     "\"num_speculative_tokens\": K} drafts K tokens per step with a Gemma 4 assistant (MTP), {\"method\": \"ngram\", "
     "\"num_speculative_tokens\": K, \"prompt_lookup_min\": N, \"prompt_lookup_max\": M} by prompt lookup; the model "
     "verifies the drafts in the same step (outputs unchanged).",
     kYes, {}, "-sc",
     "unit SpeculativeConfig, unit SchedulerSpec, golden MtpEngine, e2e test_ngram_greedy_identical, "
     "e2e test_the_seeds_mtp_command_answers_and_changes_nothing"},
};

}  // namespace

FlagTable ServeEngineFlags() { return kFlags; }

std::vector<FlagGroup> ServeFlagGroups() {
  return {{"Frontend (HTTP server, OpenAI API)", ServeFrontendFlags()},
          {"Model", ServeModelFlags()},
          {"Engine (scheduler, KV cache, parallelism)", ServeEngineFlags()},
          {"Request limits (gemmad)", ServeLimitFlags()}};
}

FlagTable ServeFlagTable() {
  static const std::vector<FlagSpec> all = [] {
    std::vector<FlagSpec> v;
    for (const FlagGroup& g : ServeFlagGroups()) v.insert(v.end(), g.flags.begin(), g.flags.end());
    return v;
  }();
  return all;
}

}  // namespace gemmad::cli
