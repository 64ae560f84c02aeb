// ScriptedRunner — TEST ONLY. Wraps a Runner so that chosen requests "generate" a scripted token
// sequence: the server-level tests of tool-call / reasoning parsing (tests/e2e/test_tool_parsing.py)
// feed known model output through the real tokenizer, detokenizer, parsers and HTTP pipeline.
//
// Reachable only from the test binary gemmad-testing (cli/test_seams.h), and there only with the
// environment variable GEMMAD_TEST_SCRIPTED_OUTPUT=FILE (logged as a warning at startup). FILE holds JSON lines {"prompt_ids": [...], "token_ids": [...]}; it is
// re-read whenever a sequence is added, so tests may append lines while the server runs (the
// last line whose prompt_ids equal the sequence's prompt wins). For such a sequence, output
// token k is token_ids[k]: the inner runner still runs the model (KV cache, logprobs) and the
// sampler still samples, but the sampling row is overwritten so that the scripted id wins
// (its logit is raised far above every other). The grammar mask and the request's processors
// still apply, so a constrained request follows the script only where the grammar allows it.
// Past the end of token_ids the model samples freely (script the stop id, e.g. 106 <turn|>, to
// end the turn). Other sequences are untouched.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runner/runner.h"

namespace gemmad::runner {

inline constexpr const char kScriptedOutputEnv[] = "GEMMAD_TEST_SCRIPTED_OUTPUT";

class ScriptedRunner : public Runner {
 public:
  // `inner` must support SetLogitsHook.
  ScriptedRunner(std::unique_ptr<Runner> inner, std::string script_path);

  int32_t vocab_size() const override { return inner_->vocab_size(); }
  bool SupportsModality(mm::Modality m) const override { return inner_->SupportsModality(m); }
  bool SetTokenDrafter(std::shared_ptr<const spec::TokenDrafter> drafter, int32_t num_tokens) override {
    return inner_->SetTokenDrafter(std::move(drafter), num_tokens);
  }
  // Learns the scripts of out.new_seqs (and forgets finished ones), then runs the inner runner.
  Result<StepResult> Execute(const sched::SchedulerOutput& out) override;

  // The scripted output for `prompt` in the file; *found is false when no line lists `prompt`
  // (or there is no file yet). Malformed lines are errors naming the line.
  static Result<std::vector<int32_t>> FindScript(const std::string& path, const std::vector<int32_t>& prompt,
                                                 bool* found);

 private:
  void Hook(const sched::ScheduledSeq& s, int32_t offset, std::span<float> row) const;
  void Learn(const sched::NewSequence& n);

  std::unique_ptr<Runner> inner_;
  std::string path_;
  // Written at the start of Execute (engine thread) before the inner step; read by the hook
  // during the inner step.
  std::unordered_map<kv::SeqId, std::vector<int32_t>> scripts_;
};

// The test-only wiring that gemmad-testing installs as TestSeams::wrap_runner: `runner` itself when
// GEMMAD_TEST_SCRIPTED_OUTPUT is unset or empty, else a ScriptedRunner around it.
std::unique_ptr<Runner> MaybeScripted(std::unique_ptr<Runner> runner);

}  // namespace gemmad::runner
