// ScriptedRunner (see scripted_runner.h). TEST ONLY.
#include "runner/scripted_runner.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <utility>

#include "base/check.h"
#include "base/log.h"

namespace gemmad::runner {
namespace {

// Far above any real logit (Gemma 4 soft-caps at 30) yet finite, so temperature, top-k/top-p and
// penalties keep it on top, and a grammar that masks it leaves the model's own choice.
constexpr float kScriptedLogitMargin = 1000.0f;

}  // namespace

ScriptedRunner::ScriptedRunner(std::unique_ptr<Runner> inner, std::string script_path)
    : inner_(std::move(inner)), path_(std::move(script_path)) {
  bool ok = inner_->SetLogitsHook([this](const sched::ScheduledSeq& s, int32_t offset, std::span<float> row) {
    Hook(s, offset, row);
  });
  GEMMAD_CHECK(ok, "ScriptedRunner: the inner runner has no logits hook");
}

Result<std::vector<int32_t>> ScriptedRunner::FindScript(const std::string& path, const std::vector<int32_t>& prompt,
                                                        bool* found) {
  *found = false;
  std::ifstream in(path);
  if (!in) return std::vector<int32_t>{};  // no file yet: nothing scripted
  std::vector<int32_t> out;
  std::string line;
  int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("prompt_ids") || !j.contains("token_ids") || !j["prompt_ids"].is_array() ||
        !j["token_ids"].is_array()) {
      return InvalidArgumentError(fmt::format("{}:{}: expected {{\"prompt_ids\": [...], \"token_ids\": [...]}}",
                                              path, line_no));
    }
    std::vector<int32_t> p, t;
    for (const auto& v : j["prompt_ids"]) {
      if (!v.is_number_integer()) return InvalidArgumentError(fmt::format("{}:{}: prompt_ids must be integers", path, line_no));
      p.push_back(v.get<int32_t>());
    }
    if (p != prompt) continue;
    for (const auto& v : j["token_ids"]) {
      if (!v.is_number_integer()) return InvalidArgumentError(fmt::format("{}:{}: token_ids must be integers", path, line_no));
      t.push_back(v.get<int32_t>());
    }
    out = std::move(t);
    *found = true;  // keep reading: the last matching line wins
  }
  return out;
}

void ScriptedRunner::Learn(const sched::NewSequence& n) {
  bool found = false;
  auto script = FindScript(path_, n.prompt_token_ids, &found);
  if (!script.ok()) {
    GEMMAD_LOG_ERROR("{}: {}", kScriptedOutputEnv, script.status().message());
    return;
  }
  if (!found) return;
  for (int32_t t : *script) {
    if (t < 0 || t >= vocab_size()) {
      GEMMAD_LOG_ERROR("{}: scripted token id {} outside the vocabulary; sequence {} follows the model",
                       kScriptedOutputEnv, t, n.seq_id);
      return;
    }
  }
  GEMMAD_LOG_WARNING("{}: sequence {} follows a script of {} tokens", kScriptedOutputEnv, n.seq_id, script->size());
  scripts_[n.seq_id] = std::move(*script);
}

Result<StepResult> ScriptedRunner::Execute(const sched::SchedulerOutput& out) {
  for (kv::SeqId id : out.finished_seq_ids) scripts_.erase(id);
  for (const sched::NewSequence& n : out.new_seqs) Learn(n);
  return inner_->Execute(out);
}

void ScriptedRunner::Hook(const sched::ScheduledSeq& s, int32_t offset, std::span<float> row) const {
  auto it = scripts_.find(s.seq_id);
  if (it == scripts_.end()) return;
  // The index of the output token sampled from this row (robust to preemption and recompute).
  const int64_t k = s.num_computed_tokens + offset + 1 - s.num_prompt_tokens;
  if (k < 0 || k >= static_cast<int64_t>(it->second.size())) return;
  const int32_t forced = it->second[static_cast<size_t>(k)];
  float top = *std::max_element(row.begin(), row.end());
  row[static_cast<size_t>(forced)] = top + kScriptedLogitMargin;
}

std::unique_ptr<Runner> MaybeScripted(std::unique_ptr<Runner> runner) {
  const char* path = std::getenv(kScriptedOutputEnv);
  if (path == nullptr || *path == '\0') return runner;
  GEMMAD_LOG_WARNING("************************************************************************");
  GEMMAD_LOG_WARNING("{}={} is set: TEST ONLY. Requests whose prompt is listed there return", kScriptedOutputEnv, path);
  GEMMAD_LOG_WARNING("scripted tokens instead of the model's. Never set this in production.");
  GEMMAD_LOG_WARNING("************************************************************************");
  return std::make_unique<ScriptedRunner>(std::move(runner), path);
}

}  // namespace gemmad::runner
