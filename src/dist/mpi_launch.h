// Relaunching this program under mpirun for tensor parallelism: the argv (a pure function of a
// plan, unit-tested), the exec, and the host facts the plan needs (NUMA nodes, cores).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace gemmad::dist {

// Set to "1" on every rank by MpirunArgv (-x), so a relaunched program does not relaunch again.
inline constexpr char kTpLaunchedEnv[] = "GEMMAD_TP_LAUNCHED";

struct MpirunPlan {
  std::string mpirun = "mpirun";   // a path, or a name looked up on PATH
  int num_ranks = 2;               // -np
  std::string program;             // what each rank runs (e.g. /proc/self/exe resolved)
  std::vector<std::string> args;   // the program's arguments, passed through unchanged
  bool as_root = false;            // adds --allow-run-as-root (Open MPI refuses root without it)
  int num_numa_nodes = 1;          // on this host: CountNumaNodes()
  int num_cpus = 1;                // the slots mpirun counts, cores by default: CountCores()
  std::vector<std::string> export_env;  // NAME=value pairs set on every rank (-x)
};

// The plan for `num_ranks` ranks of `program args...` on this host (euid, NUMA nodes, cores).
MpirunPlan PlanForThisHost(int num_ranks, std::string program, std::vector<std::string> args);

// mpirun -np N [--allow-run-as-root] [--oversubscribe] (--map-by numa --bind-to numa | --bind-to
// none) --mca btl_vader_single_copy_mechanism none -x GEMMAD_TP_LAUNCHED=1 program args...
// One rank per NUMA node, bound to it, when there are at least as many nodes as ranks; otherwise
// no binding (our thread pool places its own threads). --oversubscribe only when num_ranks >
// num_cpus. The vader BTL's single-copy mechanism (CMA) needs ptrace rights containers rarely
// grant, so it is off. No OMP_* variables: gemmad has its own pool.
std::vector<std::string> MpirunArgv(const MpirunPlan& plan);

// execvp(MpirunArgv(plan)): returns only when the exec fails (mpirun missing: install
// openmpi-bin), flushing stdio first.
Status ExecMpirun(const MpirunPlan& plan);

// The nodeN directories under `sysfs_node_dir`; 1 when there are none (no NUMA support).
int CountNumaNodes(const std::string& sysfs_node_dir = "/sys/devices/system/node");

// Distinct (package, core) pairs among the CPUs this process may run on (sched_getaffinity),
// from `sysfs_cpu_dir`/cpuN/topology: what Open MPI counts as slots. Falls back to the number of
// allowed CPUs where the topology is missing; at least 1.
int CountCores(const std::string& sysfs_cpu_dir = "/sys/devices/system/cpu");
// The same over an explicit list of logical CPU ids (for tests).
int CountCores(const std::string& sysfs_cpu_dir, const std::vector<int>& cpus);

}  // namespace gemmad::dist
