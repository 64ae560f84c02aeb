// model_tp_mpi_parity: tensor parallelism across real MPI processes (run by ctest under mpirun, 2
// and 4 ranks; docs/tensor-parallel.md). tp_parity_test.cc's script (tp_script.h) on the golden
// T1, T2, T3, G1 (f32) and T1, T2 (bf16) checkpoints: rank 0 runs it on the whole model, then on
// its shard while the other ranks serve the steps; the shards' logits, per-layer hidden states and
// greedy tokens must be the whole model's (rounding only: the partial sums add up in another
// order). Sizes a model cannot be split into (T3's 6 heads over 4 ranks) are skipped. Rank 0
// compares and prints one line per case; every rank exits with the group's verdict (no GoogleTest
// here: its per-process output and exit codes do not fit mpirun).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/check.h"
#include "dist/communicator.h"
#include "dist/mpi_communicator.h"
#include "gemma4_golden.h"
#include "model/gemma4/model.h"
#include "model/gemma4/tp_shard.h"
#include "tp_script.h"

namespace gemmad::model::gemma4 {
namespace {

using testing::RelDiff;
using testing::RunScript;
using testing::Trace;

struct Case {
  const char* model;
  const char* dtype;  // "f32" | "bf16"
};
constexpr Case kCases[] = {{"t1", "f32"}, {"t2", "f32"}, {"t3", "f32"}, {"g1", "f32"}, {"t1", "bf16"}, {"t2", "bf16"}};

void Say(const std::string& line) {
  std::printf("model_tp_mpi_parity: %s\n", line.c_str());
  std::fflush(stdout);
}

// Rank 0's part of a case before the shards load: the checkpoint, the prompts and the whole
// model's trace. nullopt when the model cannot be split over `world` ranks.
struct Reference {
  std::string dir;
  std::vector<int32_t> prompts[2];
  Trace trace;
};

Result<std::optional<Reference>> MakeReference(const Case& c, int world) {
  GEMMAD_ASSIGN_OR_RETURN(golden::Gemma4Golden g, golden::Gemma4Golden::Load(c.model, c.dtype));
  Reference ref;
  GEMMAD_ASSIGN_OR_RETURN(ref.dir, g.CheckpointDir());
  if (g.prompts().size() < 2) return InvalidArgumentError("fewer than 2 golden prompts");
  for (size_t i = 0; i < 2; ++i) {
    const auto& ids = g.prompts()[i].token_ids;
    ref.prompts[i].assign(ids.begin(), ids.end());
  }
  GEMMAD_ASSIGN_OR_RETURN(std::unique_ptr<Model> whole, Model::Load(ref.dir));
  if (Result<Config> shard = ShardConfig(whole->config(), TpRank{0, world}); !shard.ok()) {
    Say(fmt::format("{} {} t={}: skip ({})", c.model, c.dtype, world, shard.status().message()));
    return std::optional<Reference>();
  }
  GEMMAD_ASSIGN_OR_RETURN(ref.trace, RunScript(*whole, ref.prompts[0], ref.prompts[1]));
  return std::optional<Reference>(std::move(ref));
}

// Rank 0: the shards' trace against the whole model's; prints the case's line, true if it passes.
bool Compare(const Case& c, int world, const Trace& got, const Trace& want) {
  const double tol = std::string(c.dtype) == "f32" ? 1e-5 : 2e-3;
  bool pass = got.logits.size() == want.logits.size() && got.hidden.size() == want.hidden.size();
  const double logit_diff = pass ? RelDiff(got.logits, want.logits) : -1;
  double hidden_diff = 0;
  for (size_t l = 0; pass && l < want.hidden.size(); ++l) {
    pass = got.hidden[l].size() == want.hidden[l].size();
    if (pass) hidden_diff = std::max(hidden_diff, RelDiff(got.hidden[l], want.hidden[l]));
  }
  const bool greedy_equal = got.greedy == want.greedy;
  pass = pass && logit_diff < tol && hidden_diff < tol && greedy_equal;
  Say(fmt::format("{} {} t={}: max rel diff logits {:.3g}, hidden states {:.3g} (tolerance {:g}); greedy equal {}: {}",
                  c.model, c.dtype, world, logit_diff, hidden_diff, tol, greedy_equal ? "yes" : "no",
                  pass ? "PASS" : "FAIL"));
  return pass;
}

// Every rank loads its shard; if one could not, the group unwinds without a step (rank 0's
// Model sends the workers' stop from its destructor: the ranks that loaded serve it, the others
// take it raw). Rank 0 gets the shards' trace; returns whether this rank's part went well.
bool RunShards(const std::shared_ptr<dist::Communicator>& comm, const std::string& dir, const Reference* ref,
               Trace* got) {
  const int rank = comm->rank();
  ModelOptions options;
  options.communicator = comm;
  Result<std::unique_ptr<Model>> shard = Model::Load(dir, {}, options);
  if (!shard.ok()) Say(fmt::format("rank {}: loading the shard: {}", rank, shard.status().ToString()));
  const float mine = shard.ok() ? 1.0f : 0.0f;
  std::vector<float> loaded(static_cast<size_t>(comm->size()));
  GEMMAD_CHECK(comm->AllGather(std::span<const float>(&mine, 1), loaded).ok(), "AllGather of the load results");
  bool all_loaded = true;
  for (float f : loaded) all_loaded = all_loaded && f == 1.0f;
  if (!all_loaded) {
    if (rank != 0 && loaded[0] == 1.0f) {
      std::vector<uint8_t> stop;
      const Status s = shard.ok() ? (*shard)->ServeTensorParallelWorker({}) : comm->BroadcastIdle(&stop, 0);
      GEMMAD_CHECK(s.ok(), "taking the workers' stop: {}", s.ToString());
    }
    return false;
  }
  Model& m = **shard;
  if (rank != 0) {
    const Status s = m.ServeTensorParallelWorker({});
    if (!s.ok()) Say(fmt::format("rank {}: serving the steps: {}", rank, s.ToString()));
    return s.ok();
  }
  Result<Trace> t = RunScript(m, ref->prompts[0], ref->prompts[1]);
  m.StopTensorParallelWorkers();
  if (!t.ok()) {
    Say("rank 0: the script on the shards: " + t.status().ToString());
    return false;
  }
  *got = std::move(t).value();
  return true;
}

// One case on every rank; on rank 0 returns whether it passed or was skipped (the others: true).
bool RunCase(const std::shared_ptr<dist::Communicator>& comm, const Case& c) {
  const int rank = comm->rank(), world = comm->size();
  std::optional<Reference> ref;
  bool ok = true;
  // The checkpoint every rank loads, "" to skip; the others sleep in BroadcastIdle meanwhile.
  std::vector<uint8_t> dir;
  if (rank == 0) {
    Result<std::optional<Reference>> r = MakeReference(c, world);
    if (!r.ok()) Say(fmt::format("{} {} t={}: FAIL ({})", c.model, c.dtype, world, r.status().ToString()));
    ok = r.ok();
    if (r.ok()) ref = std::move(r).value();
    if (ref) dir.assign(ref->dir.begin(), ref->dir.end());
  }
  GEMMAD_CHECK(comm->BroadcastIdle(&dir, 0).ok(), "broadcasting the checkpoint directory");
  if (dir.empty()) return ok;
  Trace got;
  ok = RunShards(comm, std::string(dir.begin(), dir.end()), ref ? &*ref : nullptr, &got);
  if (rank != 0) return ok;
  if (!ok) Say(fmt::format("{} {} t={}: FAIL", c.model, c.dtype, world));
  return ok && Compare(c, world, got, ref->trace);
}

int Main() {
  Result<std::unique_ptr<dist::Communicator>> world = dist::InitMpiWorld();
  if (!world.ok()) {
    std::fprintf(stderr, "model_tp_mpi_parity: %s\n", world.status().ToString().c_str());
    return 1;
  }
  std::shared_ptr<dist::Communicator> comm(std::move(world).value());
  bool pass = true;
  for (const Case& c : kCases) pass = RunCase(comm, c) && pass;
  // One verdict for every rank (rank 0's comparisons, and any rank's own failure), so that every
  // rank exits with the same code.
  const float mine = pass ? 1.0f : 0.0f;
  std::vector<float> all(static_cast<size_t>(comm->size()));
  GEMMAD_CHECK(comm->AllGather(std::span<const float>(&mine, 1), all).ok(), "gathering the verdicts");
  for (float f : all) pass = pass && f == 1.0f;
  if (comm->rank() == 0) Say(fmt::format("{} ranks: {}", comm->size(), pass ? "every case passed" : "FAILED"));
  GEMMAD_CHECK(comm.use_count() == 1, "a Model still holds the communicator");
  comm.reset();  // MPI_Finalize, after every Model that held the communicator
  return pass ? 0 : 1;
}

}  // namespace
}  // namespace gemmad::model::gemma4

int main() { return gemmad::model::gemma4::Main(); }
