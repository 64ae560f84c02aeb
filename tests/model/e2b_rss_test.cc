// Slow: a real-shape random E2B checkpoint (bf16, released multimodal layout with the unused K/V
// tensors of KV-shared layers) loads and generates through `gemmad generate`, and its peak RSS
// stays within 110% of the weight bytes the forward pass touches plus the KV cache. Memory-mapped
// weights are counted as they are touched: the PLE table only one row per distinct token, the
// unused K/V tensors never. Prints the measured figure.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "model/gemma4/kv_plan.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "model/gemma4/weight_spec.h"

namespace gemmad::model::gemma4 {
namespace {

namespace fs = std::filesystem;

// Runs the binary and returns (exit code, peak RSS in bytes).
std::pair<int, int64_t> RunAndMeasure(const std::vector<std::string>& args, const std::string& out_path) {
  pid_t pid = fork();
  if (pid == 0) {
    std::FILE* f = std::freopen(out_path.c_str(), "w", stdout);
    (void)f;
    std::vector<char*> argv;
    std::string bin = std::string(GEMMAD_BINARY_DIR) + "/gemmad";
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, static_cast<int64_t>(usage.ru_maxrss) * 1024};
}

TEST(E2bRss, RealShapeRandomCheckpointLoadsAndGeneratesWithinMemoryBound) {
  auto preset = FindPreset("e2b");
  ASSERT_TRUE(preset.ok());
  const Config& c = preset->config;
  const fs::path dir = fs::path(GEMMAD_BINARY_DIR) / "e2b_rss_model";
  RandomCheckpointOptions opt;
  opt.dtype = tensor::DType::kBF16;
  opt.seed = 1;
  opt.num_shards = 2;
  opt.multimodal = preset->multimodal;
  opt.unused_kv_tensors = preset->unused_kv_tensors;
  opt.generation = preset->generation;
  ASSERT_TRUE(WriteRandomCheckpoint(dir.string(), c, opt).ok());

  const std::vector<int32_t> prompt = {2, 818, 5279, 529, 7001, 563, 12, 90000, 262143};
  const int64_t max_tokens = 4;
  std::string ids;
  for (size_t i = 0; i < prompt.size(); ++i) ids += (i ? "," : "") + std::to_string(prompt[i]);
  const std::string out = (dir / "generate.out").string();
  auto [code, peak] = RunAndMeasure({"generate", dir.string(), "--prompt-ids", ids, "--max-tokens",
                                     std::to_string(max_tokens), "--ignore-eos", "--threads", "2"},
                                    out);
  ASSERT_EQ(code, 0);
  int lines = 0;
  std::FILE* f = std::fopen(out.c_str(), "r");
  for (int ch; f != nullptr && (ch = std::fgetc(f)) != EOF;) lines += ch == '\n';
  if (f != nullptr) std::fclose(f);
  EXPECT_EQ(lines, max_tokens);

  // Bytes the forward pass touches: every used tensor but the PLE table, plus one PLE row per
  // distinct token (at most prompt + generated).
  int64_t touched = 0, ple_row = 0;
  for (const auto& w : TextWeightSpec(c)) {
    if (!w.used) continue;
    if (w.name == "embed_tokens_per_layer.weight") {
      ple_row = w.shape[1] * 2;
      continue;
    }
    touched += w.num_elements() * 2;
  }
  const int64_t distinct = static_cast<int64_t>(std::set<int32_t>(prompt.begin(), prompt.end()).size()) + max_tokens;
  touched += distinct * ple_row;
  const KvCacheSpec spec = MakeKvCacheSpec(c, 16, tensor::DType::kBF16);
  int64_t kv = 0;
  const int64_t total = static_cast<int64_t>(prompt.size()) + max_tokens;
  for (const auto& g : spec.groups) kv += g.NumBlocksNeeded(total, static_cast<int64_t>(prompt.size())) * g.bytes_per_block();
  const double bound = 1.10 * static_cast<double>(touched + kv);
  std::printf("E2B peak RSS %.1f MiB; weights touched %.1f MiB + KV %.2f MiB; ratio %.3f (bound 1.10)\n",
              peak / 1048576.0, touched / 1048576.0, kv / 1048576.0, peak / static_cast<double>(touched + kv));
  RecordProperty("peak_rss_bytes", std::to_string(peak));
  RecordProperty("touched_plus_kv_bytes", std::to_string(touched + kv));
  EXPECT_LE(static_cast<double>(peak), bound);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gemmad::model::gemma4
