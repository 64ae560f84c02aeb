// `gemmad make-test-model OUT_DIR --preset NAME ...`: writes a random Gemma 4 checkpoint in the
// exact Hugging Face layout (no torch needed). Presets: t1 t2 t3 (tiny reference configs), e2e
// (tiny layers, full vocabulary, Gemma 4 tokenizer), e2b e4b (real shapes, streamed to disk),
// 26b 31b (size estimate; refused without --force).
#include <sys/statvfs.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>

#include <climits>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/files.h"
#include "cli/subcommand.h"
#include "io/progress_bar.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_assistant.h"
#include "model/gemma4/random_checkpoint.h"
#include "model/gemma4/weight_spec.h"

namespace gemmad::cli {
namespace {

using model::gemma4::Preset;
using model::gemma4::RandomCheckpointOptions;

constexpr char kUsage[] =
    "usage: gemmad make-test-model OUT_DIR --preset t1|t2|t3|g1|e2e|e2e-moe|e2b|e4b|26b|31b\n"
    "       [--dtype bf16|f32|f16]\n"
    "       [--seed N] [--shards N] [--prefix text|multimodal] [--tokenizer-dir DIR]\n"
    "       [--unused-kv-tensors|--no-unused-kv-tensors] [--weight-format dense|w4a16|fp8|mobile]\n"
    "       [--kv-cache-scheme tensor|attn_head] [--force]\n"
    "  --weight-format w4a16: the text Linears as compressed-tensors int4 symmetric groups of 32 (the layout of\n"
    "  Google's *-qat-w4a16-ct checkpoints); fp8: as FP8 E4M3 per channel with dynamic per-token FP8\n"
    "  activations (RedHat's *-FP8-dynamic); mobile: Google's *-qat-mobile-ct mix (int2/int4/int8 per channel,\n"
    "  static int8 activations, int2 embeddings); all quantized from this seed's dense values, the rest in --dtype.\n"
    "  --kv-cache-scheme (with a quantized --weight-format): a static FP8 KV cache scheme, each attention's\n"
    "  k_scale / v_scale per tensor or per KV head (compressed-tensors kv_cache_scheme).\n"
    "       gemmad make-test-model OUT_DIR --assistant-for TARGET_DIR [--dtype bf16|f32] [--seed N]\n"
    "  a random Gemma 4 assistant (MTP drafter, model_type gemma4_assistant) that fits the target checkpoint.\n";

struct Args {
  std::string out_dir, preset, dtype = "bf16", prefix, tokenizer_dir, weight_format = "dense", assistant_for;
  std::string kv_cache_scheme;
  uint64_t seed = 0;
  int shards = 1;
  int unused_kv = -1;  // -1: the preset's default
  bool force = false;
};

int Usage(const std::string& problem) {
  std::fprintf(stderr, "gemmad make-test-model: %s\n%s", problem.c_str(), kUsage);
  return 2;
}

bool ParseUint(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19) return false;
  *out = std::strtoull(s.c_str(), nullptr, 10);
  return *out <= max;
}

// Returns "" on success, else the problem.
std::string ParseArgs(const std::vector<std::string>& args, Args* a) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& f = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    std::string v;
    uint64_t n = 0;
    if (f == "--preset" || f == "--dtype" || f == "--prefix" || f == "--tokenizer-dir" || f == "--weight-format" ||
        f == "--assistant-for" || f == "--kv-cache-scheme") {
      if (!value(&v)) return f + " needs a value";
      (f == "--preset"          ? a->preset
       : f == "--dtype"         ? a->dtype
       : f == "--prefix"        ? a->prefix
       : f == "--weight-format" ? a->weight_format
       : f == "--assistant-for" ? a->assistant_for
       : f == "--kv-cache-scheme" ? a->kv_cache_scheme
                                : a->tokenizer_dir) = v;
    } else if (f == "--seed" || f == "--shards") {
      if (!value(&v) || !ParseUint(v, f == "--seed" ? UINT64_MAX : 100000, &n)) return f + " needs a non-negative integer";
      if (f == "--seed") a->seed = n; else a->shards = static_cast<int>(n);
    } else if (f == "--unused-kv-tensors" || f == "--no-unused-kv-tensors") {
      a->unused_kv = f == "--unused-kv-tensors";
    } else if (f == "--force") {
      a->force = true;
    } else if (!f.empty() && f[0] == '-') {
      return "unrecognized argument " + f;
    } else if (a->out_dir.empty()) {
      a->out_dir = f;
    } else {
      return "unexpected extra argument " + f;
    }
  }
  if (a->out_dir.empty()) return "OUT_DIR is required";
  if (a->preset.empty() && a->assistant_for.empty()) return "--preset is required";
  if (!a->preset.empty() && !a->assistant_for.empty()) return "--preset and --assistant-for exclude each other";
  return "";
}

std::string ExeDir() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

// Where the Gemma 4 tokenizer files are, for the e2e preset when --tokenizer-dir is not given.
std::string FindTokenizerDir() {
  std::vector<std::string> candidates;
  if (const char* s = std::getenv("GEMMAD_SHARED_DIR")) candidates.push_back(JoinPath(s, "data/tokenizers/gemma4"));
  candidates.push_back(ExeDir() + "/../../../shared/data/tokenizers/gemma4");  // <repo>/build/<preset>/gemmad
  candidates.push_back("../shared/data/tokenizers/gemma4");
  for (const auto& c : candidates) {
    if (FileExists(JoinPath(c, "tokenizer.json"))) return c;
  }
  return "";
}

double FreeDiskBytes(const std::string& dir) {
  // The nearest existing ancestor of `dir` (the directory may not exist yet).
  std::filesystem::path probe = std::filesystem::absolute(dir);
  while (!IsDirectory(probe.string()) && probe.has_parent_path() && probe.parent_path() != probe) {
    probe = probe.parent_path();
  }
  struct statvfs st {};
  if (::statvfs(probe.c_str(), &st) != 0) return -1;
  return static_cast<double>(st.f_bavail) * static_cast<double>(st.f_frsize);
}

// --assistant-for: a random assistant fitting the target checkpoint's config.
int WriteAssistant(const Args& a) {
  auto target = model::gemma4::LoadConfig(a.assistant_for);
  if (!target.ok()) {
    std::fprintf(stderr, "gemmad make-test-model: %s\n", target.status().message().c_str());
    return 1;
  }
  if (a.dtype != "bf16" && a.dtype != "f32") return Usage("--assistant-for writes --dtype bf16 or f32");
  model::gemma4::RandomAssistantOptions o;
  o.dtype = a.dtype == "f32" ? tensor::DType::kF32 : tensor::DType::kBF16;
  o.seed = a.seed;
  Status s = model::gemma4::WriteRandomAssistant(a.out_dir, *target, o);
  if (!s.ok()) {
    std::fprintf(stderr, "gemmad make-test-model: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("%s\n", nlohmann::json({{"model_dir", a.out_dir}, {"assistant_for", a.assistant_for}, {"seed", a.seed}}).dump().c_str());
  return 0;
}

int Run(const std::vector<std::string>& argv) {
  Args a;
  if (std::string problem = ParseArgs(argv, &a); !problem.empty()) return Usage(problem);
  if (!a.assistant_for.empty()) return WriteAssistant(a);
  auto preset = model::gemma4::FindPreset(a.preset);
  if (!preset.ok()) return Usage(preset.status().message());
  RandomCheckpointOptions o;
  auto dtype = tensor::ParseDType(a.dtype == "bf16" ? "BF16" : a.dtype == "f32" ? "F32" : a.dtype == "f16" ? "F16" : "");
  if (!dtype) return Usage("--dtype must be bf16, f32 or f16");
  if (!a.prefix.empty() && a.prefix != "text" && a.prefix != "multimodal") return Usage("--prefix must be text or multimodal");
  if (a.weight_format != "dense" && a.weight_format != "w4a16" && a.weight_format != "fp8" && a.weight_format != "mobile") {
    return Usage("--weight-format must be dense, w4a16, fp8 or mobile");
  }
  if (!a.kv_cache_scheme.empty() && a.kv_cache_scheme != "tensor" && a.kv_cache_scheme != "attn_head") {
    return Usage("--kv-cache-scheme must be tensor or attn_head");
  }
  if (!a.kv_cache_scheme.empty() && a.weight_format == "dense") {
    return Usage("--kv-cache-scheme needs a quantized --weight-format (w4a16, fp8 or mobile)");
  }
  o.kv_cache_scheme = a.kv_cache_scheme;
  o.dtype = *dtype;
  o.ct_format = a.weight_format == "w4a16" ? model::gemma4::CtWeightFormat::kW4A16
                : a.weight_format == "fp8"    ? model::gemma4::CtWeightFormat::kFp8Dynamic
                : a.weight_format == "mobile" ? model::gemma4::CtWeightFormat::kMobile
                                              : model::gemma4::CtWeightFormat::kDense;
  o.seed = a.seed;
  o.num_shards = a.shards;
  o.multimodal = a.prefix.empty() ? preset->multimodal : a.prefix == "multimodal";
  o.unused_kv_tensors = a.unused_kv < 0 ? preset->unused_kv_tensors : a.unused_kv == 1;
  o.generation = preset->generation;
  o.show_progress = io::ProgressBar::StderrIsTerminal();
  o.tokenizer_dir = a.tokenizer_dir;
  if (preset->with_tokenizer && o.tokenizer_dir.empty()) o.tokenizer_dir = FindTokenizerDir();
  if (preset->with_tokenizer && o.tokenizer_dir.empty()) {
    return Usage("preset e2e needs the Gemma 4 tokenizer: pass --tokenizer-dir DIR (tokenizer.json, tokenizer_config.json)");
  }
  const model::gemma4::Config& c = preset->config;
  double bytes = static_cast<double>(model::gemma4::CheckpointDataBytes(c, o));
  auto params = model::gemma4::CountParams(c, o.unused_kv_tensors);
  std::string estimate = fmt::format("preset {} has {:.3f} B text parameters: {:.2f} GB of {} data", a.preset,
                                     static_cast<double>(params.used + params.unused) / 1e9, bytes / 1e9, a.dtype);
  double free_bytes = FreeDiskBytes(a.out_dir);
  if (!a.force && (preset->too_large || (free_bytes >= 0 && bytes > free_bytes * 0.95))) {
    std::fprintf(stderr, "gemmad make-test-model: %s (%.1f GB free on disk); refusing on this machine, pass --force "
                 "to write it anyway\n", estimate.c_str(), free_bytes / 1e9);
    return 1;
  }
  Status s = model::gemma4::WriteRandomCheckpoint(a.out_dir, c, o);
  if (!s.ok()) {
    std::fprintf(stderr, "gemmad make-test-model: %s\n", s.message().c_str());
    return 1;
  }
  nlohmann::json out = {{"model_dir", a.out_dir}, {"preset", a.preset}, {"dtype", a.dtype},
                        {"bytes", static_cast<uint64_t>(bytes)}, {"shards", a.shards},
                        {"prefix", o.multimodal ? "multimodal" : "text"}, {"seed", a.seed},
                        {"weight_format", a.weight_format}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace

extern const Subcommand kCmd_make_test_model;
const Subcommand kCmd_make_test_model{"make-test-model", "write a random Gemma 4 checkpoint (tiny or real shapes)",
                                      &Run};
}  // namespace gemmad::cli
