// HF cache lookups (filesystem only; downloads live in hf_hub.cc).
#include "io/hf_cache.h"

#include <cctype>
#include <cstdlib>

#include "base/files.h"
#include "base/strings.h"

namespace gemmad::io {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

bool Truthy(const std::string& v) {
  std::string l = ToLowerAscii(v);
  return l == "1" || l == "true" || l == "yes" || l == "on";
}

}  // namespace

HubSettings HubSettingsFromEnv() {
  HubSettings s;
  std::string home = Env("HF_HOME");
  if (home.empty()) {
    std::string xdg = Env("XDG_CACHE_HOME");
    home = JoinPath(xdg.empty() ? JoinPath(Env("HOME"), ".cache") : xdg, "huggingface");
  }
  s.cache_dir = Env("HF_HUB_CACHE");
  if (s.cache_dir.empty()) s.cache_dir = Env("HUGGINGFACE_HUB_CACHE");
  if (s.cache_dir.empty()) s.cache_dir = JoinPath(home, "hub");
  std::string endpoint = Env("HF_ENDPOINT");
  if (!endpoint.empty()) {
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    s.endpoint = endpoint;
  }
  s.token = Env("HF_TOKEN");
  if (s.token.empty()) s.token = Env("HUGGING_FACE_HUB_TOKEN");
  if (s.token.empty()) {
    auto t = ReadFileToString(JoinPath(home, "token"));
    if (t.ok()) s.token = std::string(TrimAscii(*t));
  }
  s.offline = Truthy(Env("HF_HUB_OFFLINE")) || Truthy(Env("TRANSFORMERS_OFFLINE"));
  if (Truthy(Env("HF_HUB_DISABLE_PROGRESS_BARS"))) s.progress = false;
  return s;
}

bool LooksLikeRepoId(std::string_view s) {
  if (s.empty() || s.front() == '/' || s.front() == '.' || s.back() == '/') return false;
  int slashes = 0;
  for (char c : s) {
    if (c == '/') {
      ++slashes;
    } else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return slashes <= 1 && s.find("..") == std::string_view::npos;
}

std::string RepoCacheDir(const HubSettings& s, std::string_view repo_id) {
  std::string folder = "models--";
  for (char c : repo_id) {
    if (c == '/') {
      folder += "--";
    } else {
      folder += c;
    }
  }
  return JoinPath(s.cache_dir, folder);
}

bool IsCommitHash(std::string_view s) {
  if (s.size() != 40) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::optional<std::string> FindCachedSnapshot(const HubSettings& s, std::string_view repo_id,
                                              std::string_view revision) {
  std::string repo_dir = RepoCacheDir(s, repo_id);
  std::string commit;
  if (IsCommitHash(revision)) {
    commit = std::string(revision);
  } else {
    auto ref = ReadFileToString(JoinPath(repo_dir, "refs/" + std::string(revision)));
    if (!ref.ok()) return std::nullopt;
    commit = std::string(TrimAscii(*ref));
  }
  std::string snap = JoinPath(repo_dir, "snapshots/" + commit);
  if (!FileExists(JoinPath(snap, "config.json"))) return std::nullopt;
  return snap;
}

}  // namespace gemmad::io
