// MpirunArgv, ExecMpirun and the sysfs counts behind a plan.
#include "dist/mpi_launch.h"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

namespace gemmad::dist {
namespace {

// The first integer in `path`, or -1 when it cannot be read.
long ReadInt(const std::filesystem::path& path) {
  std::ifstream in(path);
  long value = -1;
  if (!(in >> value)) return -1;
  return value;
}

bool IsNumbered(const std::string& name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  return name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
}

}  // namespace

MpirunPlan PlanForThisHost(int num_ranks, std::string program, std::vector<std::string> args) {
  MpirunPlan plan;
  plan.num_ranks = num_ranks;
  plan.program = std::move(program);
  plan.args = std::move(args);
  plan.as_root = geteuid() == 0;
  plan.num_numa_nodes = CountNumaNodes();
  plan.num_cpus = CountCores();
  return plan;
}

std::vector<std::string> MpirunArgv(const MpirunPlan& plan) {
  std::vector<std::string> argv = {plan.mpirun, "-np", std::to_string(plan.num_ranks)};
  if (plan.as_root) argv.push_back("--allow-run-as-root");
  if (plan.num_ranks > plan.num_cpus) argv.push_back("--oversubscribe");
  if (plan.num_numa_nodes >= plan.num_ranks) {
    argv.insert(argv.end(), {"--map-by", "numa", "--bind-to", "numa"});
  } else {
    argv.insert(argv.end(), {"--bind-to", "none"});
  }
  argv.insert(argv.end(), {"--mca", "btl_vader_single_copy_mechanism", "none"});
  argv.insert(argv.end(), {"-x", fmt::format("{}=1", kTpLaunchedEnv)});
  for (const std::string& e : plan.export_env) argv.insert(argv.end(), {"-x", e});
  argv.push_back(plan.program);
  argv.insert(argv.end(), plan.args.begin(), plan.args.end());
  return argv;
}

Status ExecMpirun(const MpirunPlan& plan) {
  std::vector<std::string> argv = MpirunArgv(plan);
  std::vector<char*> c_argv;
  for (std::string& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  std::fflush(nullptr);
  execvp(c_argv[0], c_argv.data());
  const int error = errno;
  return UnavailableError(fmt::format("cannot run {} ({}) for tensor parallelism; install Open MPI "
                                      "(Debian: apt-get install openmpi-bin)",
                                      plan.mpirun, std::strerror(error)));
}

int CountNumaNodes(const std::string& sysfs_node_dir) {
  std::error_code ec;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(sysfs_node_dir, ec)) {
    if (IsNumbered(entry.path().filename().string(), "node")) ++count;
  }
  return count > 0 ? count : 1;
}

int CountCores(const std::string& sysfs_cpu_dir, const std::vector<int>& cpus) {
  std::set<std::pair<long, long>> cores;  // (physical_package_id, core_id)
  for (int cpu : cpus) {
    const std::filesystem::path topology =
        std::filesystem::path(sysfs_cpu_dir) / fmt::format("cpu{}", cpu) / "topology";
    const long package = ReadInt(topology / "physical_package_id");
    const long core = ReadInt(topology / "core_id");
    if (package < 0 || core < 0) return cpus.empty() ? 1 : static_cast<int>(cpus.size());
    cores.emplace(package, core);
  }
  return cores.empty() ? 1 : static_cast<int>(cores.size());
}

int CountCores(const std::string& sysfs_cpu_dir) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) return static_cast<int>(std::clamp(sysconf(_SC_NPROCESSORS_ONLN), 1L, 1L << 20));
  return CountCores(sysfs_cpu_dir, cpus);
}

}  // namespace gemmad::dist
