// Hub GGUF references ("org/repo:QUANT", io/hf_gguf.h) against the fake hub: only the file the tag
// names is downloaded (into the HF cache layout), the cache answers offline afterwards, split sets
// come whole, and a tag that matches nothing names the files that exist.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "base/files.h"
#include "io/hf_gguf.h"
#include "io/hf_hub.h"

namespace gemmad::io {
namespace {

const char* kCommit = "89abcdef0123456789abcdef0123456789abcdef";
const char* kRepo = "unsloth/gemma-3-270m-it-GGUF";

class FakeHub {
 public:
  explicit FakeHub(const std::string& repo_dir) {
    int fds[2];
    GEMMAD_CHECK(pipe(fds) == 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], 1);
      close(fds[0]);
      std::vector<std::string> args = {GEMMAD_PYTHON, std::string(GEMMAD_SOURCE_DIR) + "/tests/hub/fake_hub.py",
                                       repo_dir, kRepo, kCommit};
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(fds[1]);
    std::string line;
    char c;
    while (read(fds[0], &c, 1) == 1 && c != '\n') line += c;
    close(fds[0]);
    port_ = std::atoi(line.c_str());
  }
  ~FakeHub() {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

TEST(GgufQuantTag, Splits) {
  auto r = SplitGgufQuantTag("unsloth/gemma-3-270m-it-GGUF:Q4_K_M");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, "unsloth/gemma-3-270m-it-GGUF");
  EXPECT_EQ(r->second, "Q4_K_M");
  EXPECT_FALSE(SplitGgufQuantTag("google/gemma-4-E2B-it"));
  EXPECT_FALSE(SplitGgufQuantTag("./dir:Q4_K_M"));
  EXPECT_FALSE(SplitGgufQuantTag("org/repo:"));
  EXPECT_FALSE(SplitGgufQuantTag("org/repo:Q4-K"));
}

TEST(GgufQuantTag, MatchesCaseInsensitivelyWithoutMmprojOrLaterShards) {
  const std::vector<std::string> files = {"gemma-Q4_K_M.gguf", "gemma-q4_k.gguf", "mmproj-Q4_K_M.gguf",
                                          "BF16/gemma-BF16-00002-of-00002.gguf", "BF16/gemma-BF16-00001-of-00002.gguf",
                                          "README.md"};
  EXPECT_EQ(MatchGgufFiles(files, "q4_k_m"), std::vector<std::string>{"gemma-Q4_K_M.gguf"});
  EXPECT_EQ(MatchGgufFiles(files, "Q4_K"), (std::vector<std::string>{"gemma-q4_k.gguf", "gemma-Q4_K_M.gguf"}));
  EXPECT_EQ(MatchGgufFiles(files, "BF16"), std::vector<std::string>{"BF16/gemma-BF16-00001-of-00002.gguf"});
  EXPECT_TRUE(MatchGgufFiles(files, "Q8_0").empty());
}

class HubGgufTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/gemmad_hub_gguf_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(std::system(("rm -rf " + root_ + " && mkdir -p " + root_ + "/repo/BF16 " + root_ + "/cache").c_str()), 0);
    repo_ = root_ + "/repo";
    for (const char* f : {"gemma-3-270m-it-Q4_K_M.gguf", "gemma-3-270m-it-Q8_0.gguf", "mmproj-F16.gguf",
                          "BF16/gemma-3-270m-it-BF16-00001-of-00002.gguf", "BF16/gemma-3-270m-it-BF16-00002-of-00002.gguf",
                          "README.md"}) {
      ASSERT_TRUE(WriteStringToFile(repo_ + "/" + f, std::string("GGUF contents of ") + f).ok());
    }
    settings_.cache_dir = root_ + "/cache";
    settings_.progress = false;
  }
  std::string Snapshot() const {
    return settings_.cache_dir + "/models--unsloth--gemma-3-270m-it-GGUF/snapshots/" + kCommit;
  }
  std::string root_, repo_;
  HubSettings settings_;
};

TEST(GgufQuantTag, PicksTheMmprojAsVllmLooksForIt) {
  EXPECT_EQ(PickMmprojName({"model.gguf", "mmproj-F32.gguf", "x-mmproj.gguf", "mmproj-BF16.gguf"}), "mmproj-BF16.gguf");
  EXPECT_EQ(PickMmprojName({"mmproj-F32.gguf", "mmproj.gguf"}), "mmproj.gguf");
  EXPECT_EQ(PickMmprojName({"x-mmproj.gguf", "mmproj.txt"}), "x-mmproj.gguf");
  EXPECT_EQ(PickMmprojName({"a-mmproj.gguf"}, "a-mmproj.gguf"), std::nullopt);
  EXPECT_EQ(PickMmprojName({"model.gguf", "README.md"}), std::nullopt);
}

TEST_F(HubGgufTest, DownloadsTheTaggedFileAndItsMmprojThenResolvesOffline) {
  {
    FakeHub hub(repo_);
    settings_.endpoint = hub.endpoint();
    auto path = ResolveModelPath(std::string(kRepo) + ":Q8_0", "main", settings_);
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    EXPECT_EQ(*path, Snapshot() + "/gemma-3-270m-it-Q8_0.gguf");
    EXPECT_EQ(*ReadFileToString(*path), "GGUF contents of gemma-3-270m-it-Q8_0.gguf");
    EXPECT_FALSE(FileExists(Snapshot() + "/gemma-3-270m-it-Q4_K_M.gguf"));
    EXPECT_EQ(*ReadFileToString(Snapshot() + "/mmproj-F16.gguf"), "GGUF contents of mmproj-F16.gguf");

    auto split = ResolveModelPath(std::string(kRepo) + ":bf16", "main", settings_);
    ASSERT_TRUE(split.ok()) << split.status().ToString();
    EXPECT_EQ(*split, Snapshot() + "/BF16/gemma-3-270m-it-BF16-00001-of-00002.gguf");
    EXPECT_TRUE(FileExists(Snapshot() + "/BF16/gemma-3-270m-it-BF16-00002-of-00002.gguf"));

    auto none = ResolveModelPath(std::string(kRepo) + ":IQ2_XS", "main", settings_);
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.status().message().find("no GGUF file"), std::string::npos) << none.status().message();
    EXPECT_NE(none.status().message().find("gemma-3-270m-it-Q4_K_M.gguf"), std::string::npos);
  }
  settings_.endpoint = "http://127.0.0.1:1";
  settings_.offline = true;
  EXPECT_EQ(*ResolveModelPath(std::string(kRepo) + ":q8_0", "main", settings_),
            Snapshot() + "/gemma-3-270m-it-Q8_0.gguf");
  auto missing = ResolveModelPath(std::string(kRepo) + ":Q4_K_M", "main", settings_);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("HF_HUB_OFFLINE"), std::string::npos);
}

}  // namespace
}  // namespace gemmad::io
