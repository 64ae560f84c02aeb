// Starting and joining a tensor-parallel group, and the worker ranks' main loop (tensor_parallel.h).
#include "cli/tensor_parallel.h"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <functional>
#include <cstdlib>
#include <thread>

#include <fmt/ranges.h>

#include "base/log.h"
#include "cli/shutdown_signals.h"
#include "dist/cpu_bind.h"
#include "dist/mpi_communicator.h"
#include "dist/mpi_launch.h"
#include "io/hf_hub.h"
#include "kernels/context.h"
#include "kernels/thread_pool.h"
#include "model/gemma4/config.h"
#include "model/gemma4/model.h"
#include "model/gemma4/tp_shard.h"
#include "model/open_weight_source.h"

namespace gemmad::cli {

namespace {

// Rank 0's pid, written where the supervisor (RunUnderMpirun) reads it on a shutdown signal.
constexpr char kPidFileEnv[] = "GEMMAD_TP_PIDFILE";

pid_t ReadPid(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return 0;
  long pid = 0;
  if (std::fscanf(f, "%ld", &pid) != 1) pid = 0;
  std::fclose(f);
  return static_cast<pid_t>(pid);
}

}  // namespace

int RunUnderMpirun(int n, const std::vector<std::string>& args) {
  if (const char* spec = std::getenv("VLLM_CPU_OMP_THREADS_BIND")) {
    for (int r = 0; r < n; ++r) {
      if (auto cpus = dist::RankCpus(spec, r, n); !cpus.ok()) {
        GEMMAD_LOG_ERROR("{}", cpus.status().message());
        return 2;
      }
    }
  }
  char self[PATH_MAX];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (len <= 0) {
    GEMMAD_LOG_ERROR("--tensor-parallel-size: cannot find this program's path (/proc/self/exe)");
    return 1;
  }
  self[len] = '\0';
  const char* tmp = std::getenv("TMPDIR");
  const std::string pidfile = fmt::format("{}/gemmad-tp-{}.pid", tmp != nullptr ? tmp : "/tmp", getpid());
  dist::MpirunPlan plan = dist::PlanForThisHost(n, self, args);
  plan.export_env.push_back(fmt::format("{}={}", kPidFileEnv, pidfile));
  std::string line;
  for (const std::string& a : dist::MpirunArgv(plan)) line += (line.empty() ? "" : " ") + a;
  GEMMAD_LOG_INFO("--tensor-parallel-size {}: starting {} ranks: {}", n, n, line);
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGCHLD}) sigaddset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  const pid_t child = fork();
  if (child < 0) {
    GEMMAD_LOG_ERROR("--tensor-parallel-size: fork failed: {}", std::strerror(errno));
    return 1;
  }
  if (child == 0) {
    setpgid(0, 0);  // a terminal's Ctrl-C reaches this supervisor only, not mpirun's job
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // and the job ends if the supervisor is killed
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    const Status s = dist::ExecMpirun(plan);
    std::fprintf(stderr, "gemmad %s: %s\n", args.empty() ? "" : args[0].c_str(), std::string(s.message()).c_str());
    _exit(127);
  }
  // SIGINT/SIGTERM go to rank 0, which drains as a single process does and then stops the
  // other ranks; a second signal ends the whole job at once.
  int signals = 0;
  for (;;) {
    int sig = 0;
    sigwait(&set, &sig);
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) {
      std::remove(pidfile.c_str());
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (sig == SIGCHLD) continue;
    const pid_t rank0 = ReadPid(pidfile);
    if (++signals == 1 && rank0 > 0) {
      kill(rank0, SIGTERM);
    } else {
      kill(-child, SIGTERM);
    }
  }
}

Status BindRankCpus(int rank, int size) {
  const char* spec = std::getenv("VLLM_CPU_OMP_THREADS_BIND");
  GEMMAD_ASSIGN_OR_RETURN(std::optional<std::vector<int>> cpus, dist::RankCpus(spec != nullptr ? spec : "", rank, size));
  if (!cpus) return OkStatus();
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : *cpus) {
    if (c >= CPU_SETSIZE) return InvalidArgumentError(fmt::format("VLLM_CPU_OMP_THREADS_BIND: CPU {} is out of range", c));
    CPU_SET(c, &set);
  }
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    return InvalidArgumentError(fmt::format("VLLM_CPU_OMP_THREADS_BIND='{}': rank {} cannot run on CPUs {}: {}", spec,
                                            rank, fmt::join(*cpus, ","), std::strerror(errno)));
  }
  GEMMAD_LOG_INFO("tensor parallel rank {}: bound to CPUs {} (VLLM_CPU_OMP_THREADS_BIND)", rank, fmt::join(*cpus, ","));
  return OkStatus();
}

void AnnounceRankZero() {
  const char* path = std::getenv(kPidFileEnv);
  if (path == nullptr) return;
  if (std::FILE* f = std::fopen(path, "w")) {
    std::fprintf(f, "%ld\n", static_cast<long>(getpid()));
    std::fclose(f);
  }
}

Result<std::shared_ptr<dist::Communicator>> JoinTensorParallelGroup(int n) {
  GEMMAD_ASSIGN_OR_RETURN(std::unique_ptr<dist::Communicator> comm, dist::InitMpiWorld());
  if (comm->size() != n) {
    return FailedPreconditionError(fmt::format(
        "--tensor-parallel-size {}: the MPI launcher started {} ranks; start exactly {} (mpirun -np {})", n,
        comm->size(), n, n));
  }
  GEMMAD_RETURN_IF_ERROR(BindRankCpus(comm->rank(), comm->size()));
  return std::shared_ptr<dist::Communicator>(std::move(comm));
}

int ThreadsPerRank() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int all = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int mine = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : all;
  if (mine < all) return std::max(1, mine);  // bound to its own CPUs (a NUMA node)
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int ranks_here = local != nullptr ? std::max(1, std::atoi(local)) : 1;
  return std::max(1, mine / ranks_here);
}

Status CheckTensorParallelSize(const TensorParallelShard& shard, int n) {
  if (n <= 1) return OkStatus();
  GEMMAD_ASSIGN_OR_RETURN(auto source, model::OpenWeightSource(shard.model_dir, false, shard.mmproj));
  GEMMAD_ASSIGN_OR_RETURN(model::gemma4::Config config,
                          model::gemma4::ParseConfig(source->config_json(), source->config_label()));
  auto split = model::gemma4::ShardConfig(config, model::gemma4::TpRank{0, n});
  if (!split.ok()) return InvalidArgumentError(split.status().message());
  return OkStatus();
}

int RunTensorParallelWorker(const TensorParallelShard& shard, std::shared_ptr<dist::Communicator> comm) {
  const int rank = comm->rank(), size = comm->size();
  auto fail = [rank](const Status& s) {
    GEMMAD_LOG_ERROR("tensor parallel rank {}: {}", rank, s.message());
    return 1;
  };
  BlockShutdownSignals();  // and never sigwait: rank 0 decides when the group ends
  auto source = model::OpenWeightSource(shard.model_dir, /*show_progress=*/true, shard.mmproj);
  if (!source.ok()) return fail(source.status());
  model::gemma4::ModelOptions mo;
  mo.quantization = shard.quantization;
  mo.compute_dtype = shard.compute_dtype;
  mo.num_threads = shard.num_threads > 0 ? shard.num_threads : ThreadsPerRank();
  mo.communicator = comm;
  auto model = model::gemma4::Model::Load(std::shared_ptr<const model::WeightSource>(std::move(*source)), mo);
  if (!model.ok()) return fail(model.status());
  kernels::ThreadPool pool(mo.num_threads);
  // Rank 0 waits here too (CreateModelEngine) before it serves: every shard is loaded.
  if (const Status b = comm->Barrier(); !b.ok()) return fail(b);
  GEMMAD_LOG_INFO("tensor parallel rank {} of {}: shard loaded, {} threads; running rank 0's steps", rank, size,
                  mo.num_threads);
  const Status s = (*model)->ServeTensorParallelWorker(kernels::ExecContext{&pool});
  if (!s.ok()) return fail(s);
  return 0;
}

std::optional<int> EnterTensorParallel(int n, const TensorParallelShard& shard, const std::vector<std::string>& relaunch,
                                       const std::function<int(const Status&)>& fail,
                                       std::shared_ptr<dist::Communicator>* comm) {
  comm->reset();
  if (n <= 1) return std::nullopt;
  if (!dist::LaunchedByMpi()) {
    if (Status s = CheckTensorParallelSize(shard, n); !s.ok()) return fail(s);
    return RunUnderMpirun(n, relaunch);
  }
  auto group = JoinTensorParallelGroup(n);
  if (!group.ok()) return fail(group.status());
  if ((*group)->rank() != 0) return RunTensorParallelWorker(shard, std::move(*group));
  AnnounceRankZero();
  *comm = std::move(*group);
  return std::nullopt;
}

}  // namespace gemmad::cli
