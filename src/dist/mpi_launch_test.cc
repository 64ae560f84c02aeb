#include "dist/mpi_launch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/test_temp_path.h"
#include "dist/mpi_communicator.h"

namespace gemmad::dist {
namespace {

using Argv = std::vector<std::string>;

MpirunPlan Plan() {
  MpirunPlan plan;
  plan.num_ranks = 2;
  plan.program = "/usr/bin/gemmad";
  plan.args = {"serve", "google/gemma-4-E2B-it", "--tensor-parallel-size", "2"};
  plan.num_numa_nodes = 2;
  plan.num_cpus = 16;
  return plan;
}

TEST(MpirunArgv, OneRankPerNumaNodeBoundToIt) {
  EXPECT_EQ(MpirunArgv(Plan()),
            (Argv{"mpirun", "-np", "2", "--map-by", "numa", "--bind-to", "numa", "--mca",
                  "btl_vader_single_copy_mechanism", "none", "-x", "GEMMAD_TP_LAUNCHED=1", "/usr/bin/gemmad",
                  "serve", "google/gemma-4-E2B-it", "--tensor-parallel-size", "2"}));
}

TEST(MpirunArgv, FewerNumaNodesThanRanksBindsNothing) {
  MpirunPlan plan = Plan();
  plan.num_numa_nodes = 1;
  plan.num_ranks = 4;
  EXPECT_EQ(MpirunArgv(plan),
            (Argv{"mpirun", "-np", "4", "--bind-to", "none", "--mca", "btl_vader_single_copy_mechanism", "none",
                  "-x", "GEMMAD_TP_LAUNCHED=1", "/usr/bin/gemmad", "serve", "google/gemma-4-E2B-it",
                  "--tensor-parallel-size", "2"}));
}

TEST(MpirunArgv, RootAndMoreRanksThanCpusAddTheirFlags) {
  MpirunPlan plan = Plan();
  plan.mpirun = "/opt/openmpi/bin/mpirun";
  plan.as_root = true;
  plan.num_cpus = 2;
  plan.num_ranks = 3;
  plan.num_numa_nodes = 1;
  plan.args = {};
  EXPECT_EQ(MpirunArgv(plan), (Argv{"/opt/openmpi/bin/mpirun", "-np", "3", "--allow-run-as-root",
                                    "--oversubscribe", "--bind-to", "none", "--mca",
                                    "btl_vader_single_copy_mechanism", "none", "-x", "GEMMAD_TP_LAUNCHED=1",
                                    "/usr/bin/gemmad"}));
  plan.num_ranks = 2;  // as many ranks as CPUs: no oversubscription
  const Argv argv = MpirunArgv(plan);
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--oversubscribe"), 0);
}

TEST(MpirunArgv, ArgumentsPassThroughUnchanged) {
  MpirunPlan plan = Plan();
  plan.args = {"--prompt", "two words", "", "-x", "--mca"};
  const Argv argv = MpirunArgv(plan);
  ASSERT_GE(argv.size(), plan.args.size() + 1);
  EXPECT_EQ(Argv(argv.end() - static_cast<ptrdiff_t>(plan.args.size()) - 1, argv.end()),
            (Argv{"/usr/bin/gemmad", "--prompt", "two words", "", "-x", "--mca"}));
}

TEST(ExecMpirun, AMissingMpirunIsAnErrorSayingWhatToInstall) {
  MpirunPlan plan = Plan();
  plan.mpirun = "/nonexistent/gemmad-test/mpirun";
  const Status s = ExecMpirun(plan);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent/gemmad-test/mpirun"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("openmpi-bin"), std::string::npos) << s.message();
}

void Touch(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

TEST(CountNumaNodes, CountsNodeDirectoriesOnly) {
  const std::filesystem::path dir = TestTempPath("numa");
  EXPECT_EQ(CountNumaNodes(dir.string()), 1);  // missing directory: no NUMA
  for (const char* name : {"node0", "node1", "node12"}) std::filesystem::create_directories(dir / name);
  Touch(dir / "online", "0-1");
  std::filesystem::create_directories(dir / "nodeX");
  EXPECT_EQ(CountNumaNodes(dir.string()), 3);
  EXPECT_GE(CountNumaNodes(), 1);
}

TEST(CountCores, CountsDistinctPackageAndCorePairs) {
  const std::filesystem::path dir = TestTempPath("cpus");
  // cpu0/cpu2 and cpu1/cpu3 are hyperthreads of cores 0 and 1 of package 0; cpu4 is package 1.
  const int package[] = {0, 0, 0, 0, 1}, core[] = {0, 1, 0, 1, 0};
  for (int cpu = 0; cpu < 5; ++cpu) {
    Touch(dir / ("cpu" + std::to_string(cpu)) / "topology" / "physical_package_id", std::to_string(package[cpu]));
    Touch(dir / ("cpu" + std::to_string(cpu)) / "topology" / "core_id", std::to_string(core[cpu]));
  }
  EXPECT_EQ(CountCores(dir.string(), {0, 1, 2, 3, 4}), 3);
  EXPECT_EQ(CountCores(dir.string(), {0, 2}), 1);
  EXPECT_EQ(CountCores(dir.string(), {0, 1, 7}), 3);  // cpu7 has no topology: count CPUs instead
  EXPECT_EQ(CountCores(dir.string(), {}), 1);
  EXPECT_GE(CountCores(), 1);
}

TEST(LaunchedByMpi, ReadsTheLaunchersEnvironment) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) unsetenv(name);
  EXPECT_FALSE(LaunchedByMpi());
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    setenv(name, "2", 1);
    EXPECT_TRUE(LaunchedByMpi()) << name;
    unsetenv(name);
  }
}

}  // namespace
}  // namespace gemmad::dist
