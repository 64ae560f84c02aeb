// Model resolution and HF hub downloads against a local fake hub (fake_hub.py) started per test:
// cache layout, offline mode, tokens, a connection dropped halfway and resumed, sha checks.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "base/files.h"
#include "io/progress_bar.h"
#include "base/rng.h"
#include "io/hf_hub.h"
#include "io/sha256.h"

namespace gemmad::io {
namespace {

const char* kCommit = "0123456789abcdef0123456789abcdef01234567";
const char* kRepo = "google/gemma-4-E2B-it";

class FakeHub {
 public:
  FakeHub(const std::string& repo_dir, std::vector<std::string> extra) {
    int fds[2];
    GEMMAD_CHECK(pipe(fds) == 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], 1);
      close(fds[0]);
      std::vector<std::string> args = {GEMMAD_PYTHON, std::string(GEMMAD_SOURCE_DIR) + "/tests/hub/fake_hub.py",
                                       repo_dir, kRepo, kCommit};
      args.insert(args.end(), extra.begin(), extra.end());
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
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

class HubTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/gemmad_hub_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(std::system(("rm -rf " + root_ + " && mkdir -p " + root_ + "/repo " + root_ + "/cache").c_str()), 0);
    repo_ = root_ + "/repo";
    Write("config.json", R"({"model_type": "gemma4"})");
    Write("generation_config.json", R"({"eos_token_id": [1, 106]})");
    Write("tokenizer.json", R"({"version": "1.0"})");
    Write("README.md", "not downloaded");
    Rng rng(3);
    std::string weights(3 << 20, '\0');
    for (auto& ch : weights) ch = static_cast<char>(rng.Next());
    Write("model.safetensors", weights);
    settings_.cache_dir = root_ + "/cache";
    settings_.progress = false;
    log_ = root_ + "/hub.log";
  }
  void Write(const std::string& name, const std::string& data) {
    ASSERT_TRUE(WriteStringToFile(repo_ + "/" + name, data).ok());
  }
  std::string Snapshot() const {
    return settings_.cache_dir + "/models--google--gemma-4-E2B-it/snapshots/" + kCommit;
  }

  std::string root_, repo_, log_;
  HubSettings settings_;
};

TEST_F(HubTest, DownloadsIntoCacheLayoutThenServesFromCache) {
  {
    FakeHub hub(repo_, {"--log", log_});
    settings_.endpoint = hub.endpoint();
    auto dir = ResolveModelPath(kRepo, "main", settings_);
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    EXPECT_EQ(*dir, Snapshot());
  }
  for (const char* f : {"config.json", "generation_config.json", "tokenizer.json", "model.safetensors"}) {
    EXPECT_EQ(*ReadFileToString(Snapshot() + "/" + f), *ReadFileToString(repo_ + "/" + f)) << f;
    struct stat st {};
    ASSERT_EQ(lstat((Snapshot() + "/" + f).c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << f << " should link into blobs/";
  }
  EXPECT_FALSE(FileExists(Snapshot() + "/README.md"));
  EXPECT_EQ(*ReadFileToString(settings_.cache_dir + "/models--google--gemma-4-E2B-it/refs/main"), kCommit);
  std::string sha = *Sha256FileHex(repo_ + "/model.safetensors");
  EXPECT_TRUE(FileExists(settings_.cache_dir + "/models--google--gemma-4-E2B-it/blobs/" + sha));

  // The hub is gone: a cached model resolves without the network, also offline and by commit.
  settings_.endpoint = "http://127.0.0.1:1";
  settings_.offline = true;
  EXPECT_EQ(*ResolveModelPath(kRepo, "main", settings_), Snapshot());
  EXPECT_EQ(*ResolveModelPath(kRepo, kCommit, settings_), Snapshot());
}

// Outside a terminal (ctest's stderr is a pipe) each download reports in log lines: the file,
// its size, the rate, and when it is done.
TEST_F(HubTest, DownloadProgressGoesToTheLogWhenStderrIsNoTerminal) {
  ASSERT_FALSE(io::ProgressBar::StderrIsTerminal());
  FakeHub hub(repo_, {"--log", log_});
  settings_.endpoint = hub.endpoint();
  settings_.progress = true;
  ::testing::internal::CaptureStderr();
  auto dir = ResolveModelPath(kRepo, "main", settings_);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  const uint64_t size = std::filesystem::file_size(repo_ + "/model.safetensors");
  EXPECT_NE(err.find("INFO"), std::string::npos) << err;
  EXPECT_NE(err.find("Downloading model.safetensors: done, 100% (" + fmt::format("{:.2f}GB of {:.2f}GB", size / 1e9,
                                                                                  size / 1e9)),
            std::string::npos)
      << err;
  EXPECT_NE(err.find(" MB/s"), std::string::npos) << err;
  EXPECT_EQ(err.find('\r'), std::string::npos) << "no terminal bar in a log";
}

TEST_F(HubTest, OfflineWithoutCacheIsAClearError) {
  settings_.offline = true;
  auto dir = ResolveModelPath(kRepo, "main", settings_);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), StatusCode::kNotFound);
  EXPECT_NE(dir.status().message().find("HF_HUB_OFFLINE=1"), std::string::npos) << dir.status().message();
}

TEST_F(HubTest, ResumesAConnectionDroppedHalfway) {
  FakeHub hub(repo_, {"--drop-after", "1000000", "--log", log_});
  settings_.endpoint = hub.endpoint();
  auto dir = ResolveModelPath(kRepo, "main", settings_);
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_EQ(*ReadFileToString(*dir + "/model.safetensors"), *ReadFileToString(repo_ + "/model.safetensors"));
  std::string log = *ReadFileToString(log_);
  EXPECT_NE(log.find("GET /cdn/model.safetensors range=bytes="), std::string::npos) << log;
}

TEST_F(HubTest, CorruptPartialFileFailsTheShaCheck) {
  std::string sha = *Sha256FileHex(repo_ + "/model.safetensors");
  std::string blobs = settings_.cache_dir + "/models--google--gemma-4-E2B-it/blobs";
  ASSERT_EQ(std::system(("mkdir -p " + blobs).c_str()), 0);
  ASSERT_TRUE(WriteStringToFile(blobs + "/" + sha + ".incomplete", std::string(1000, 'x')).ok());
  FakeHub hub(repo_, {});
  settings_.endpoint = hub.endpoint();
  auto dir = ResolveModelPath(kRepo, "main", settings_);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(dir.status().message().find("sha256"), std::string::npos) << dir.status().message();
  // The corrupt partial file was removed: the next attempt succeeds.
  EXPECT_TRUE(ResolveModelPath(kRepo, "main", settings_).ok());
}

TEST_F(HubTest, TokenIsSentAndRequired) {
  FakeHub hub(repo_, {"--token", "s3cret"});
  settings_.endpoint = hub.endpoint();
  auto denied = ResolveModelPath(kRepo, "main", settings_);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(denied.status().message().find("HF_TOKEN"), std::string::npos);
  settings_.token = "s3cret";
  EXPECT_TRUE(ResolveModelPath(kRepo, "main", settings_).ok());
}

TEST_F(HubTest, UnknownModelOrRevision) {
  FakeHub hub(repo_, {});
  settings_.endpoint = hub.endpoint();
  auto r = ResolveModelPath("google/no-such-model", "main", settings_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(ResolveModelPath(kRepo, "v9", settings_).ok());
  EXPECT_FALSE(ResolveModelPath("/no/such/dir", "main", settings_).ok());
}

TEST_F(HubTest, LocalDirectoryAndSettings) {
  EXPECT_EQ(*ResolveModelPath(repo_, "main", settings_), repo_);
  // A tokenizer directory needs tokenizer.json, not config.json (`--tokenizer DIR`).
  EXPECT_EQ(*ResolveModelPath(repo_, "main", settings_, "tokenizer.json"), repo_);
  auto missing = ResolveModelPath(repo_, "main", settings_, "tokenizer.model");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), ::testing::HasSubstr("has no tokenizer.model"));
  EXPECT_TRUE(LooksLikeRepoId("google/gemma-4-E2B-it"));
  EXPECT_TRUE(LooksLikeRepoId("gpt2"));
  EXPECT_FALSE(LooksLikeRepoId("./models/x"));
  EXPECT_FALSE(LooksLikeRepoId("a/b/c"));
  EXPECT_TRUE(WantedRepoFile("model-00001-of-00002.safetensors"));
  EXPECT_TRUE(WantedRepoFile("chat_template.jinja"));
  EXPECT_FALSE(WantedRepoFile("README.md"));
  setenv("HF_HOME", "/tmp/hfhome", 1);
  unsetenv("HF_HUB_CACHE");
  setenv("HF_HUB_OFFLINE", "1", 1);
  setenv("HF_ENDPOINT", "http://mirror.local/", 1);
  HubSettings s = HubSettingsFromEnv();
  EXPECT_EQ(s.cache_dir, "/tmp/hfhome/hub");
  EXPECT_TRUE(s.offline);
  EXPECT_EQ(s.endpoint, "http://mirror.local");
  setenv("HF_HUB_CACHE", "/tmp/elsewhere", 1);
  EXPECT_EQ(HubSettingsFromEnv().cache_dir, "/tmp/elsewhere");
  unsetenv("HF_HOME");
  unsetenv("HF_HUB_CACHE");
  unsetenv("HF_HUB_OFFLINE");
  unsetenv("HF_ENDPOINT");
}

}  // namespace
}  // namespace gemmad::io
