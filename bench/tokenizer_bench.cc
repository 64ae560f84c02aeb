// Tokenizer throughput with real Gemma 4 data: encode MB/s (1, 2, 4 threads; each thread encodes
// every document), tokenizer.json load time, and streaming detokenization. Texts: the golden
// corpus (tests/golden/tokenizer/gemma4.jsonl, multilingual, code, emoji) and the rendered chat
// prompts (../shared/data/templates/gemma4/renders.json). bench/tokenizer_vs_hf.py runs HF
// `tokenizers` on the same documents and thread counts and prints the ratios.
// gemmad-bench-libs: gemmad_tokenizer
#include <benchmark/benchmark.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenizer/incremental_detokenizer.h"
#include "tokenizer/tokenizer.h"

namespace {

using gemmad::tokenizer::Tokenizer;

const std::string kTokDir = std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4";

const Tokenizer& Gemma4() {
  static const Tokenizer* tok = [] {
    auto t = Tokenizer::Load(kTokDir);
    if (!t.ok()) std::abort();
    return std::move(t).value().release();
  }();
  return *tok;
}

// Documents of one corpus: 0 = golden strings, 1 = rendered prompts.
const std::vector<std::string>& Docs(int which) {
  static const auto* docs = [] {
    auto* d = new std::vector<std::vector<std::string>>(2);
    std::ifstream golden(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/tokenizer/gemma4.jsonl");
    std::string line;
    while (std::getline(golden, line)) {
      auto c = nlohmann::json::parse(line);
      if (c.contains("t")) (*d)[0].push_back(c["t"].get<std::string>());
    }
    std::ifstream renders(std::string(GEMMAD_SHARED_DIR) + "/data/templates/gemma4/renders.json");
    for (const auto& row : nlohmann::json::parse(renders)) (*d)[1].push_back(row["prompt"].get<std::string>());
    return d;
  }();
  return (*docs)[which];
}

void BM_Encode(benchmark::State& state) {
  const Tokenizer& tok = Gemma4();
  const auto& docs = Docs(static_cast<int>(state.range(0)));
  size_t bytes = 0, ids = 0;
  for (auto _ : state) {
    for (const auto& d : docs) {
      auto v = tok.Encode(d, false);
      ids += v.size();
      bytes += d.size();
      benchmark::DoNotOptimize(v.data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["ids"] = benchmark::Counter(static_cast<double>(ids), benchmark::Counter::kIsRate);
  state.SetLabel(state.range(0) == 0 ? "golden corpus" : "chat prompts");
}
BENCHMARK(BM_Encode)->Arg(0)->Arg(1)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();

void BM_StreamDecode(benchmark::State& state) {
  const Tokenizer& tok = Gemma4();
  std::vector<std::vector<int32_t>> all;
  for (const auto& d : Docs(1)) all.push_back(tok.Encode(d, false));
  size_t n = 0;
  for (auto _ : state) {
    for (const auto& ids : all) {
      gemmad::tokenizer::IncrementalDetokenizer detok(tok, false);
      std::string out;
      for (int32_t id : ids) out += detok.Step(id);
      out += detok.Flush();
      n += ids.size();
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.counters["ids"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StreamDecode)->Unit(benchmark::kMillisecond);

void BM_Load(benchmark::State& state) {
  for (auto _ : state) {
    auto t = Tokenizer::Load(kTokDir);
    benchmark::DoNotOptimize(t.ok());
  }
}
BENCHMARK(BM_Load)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
