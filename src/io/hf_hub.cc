// Hub download: list the revision's files, fetch each into blobs/ and link it from snapshots/.
#include "io/hf_hub.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "base/files.h"
#include "base/log.h"
#include "io/hf_gguf.h"
#include "io/http_client.h"
#include "io/progress_bar.h"
#include "io/sha256.h"

namespace gemmad::io {
namespace {

Status MakeDirs(const std::string& path) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty() && !IsDirectory(cur) && ::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) {
        return IoError("cannot create directory " + cur);
      }
    }
    if (i < path.size()) cur += path[i];
  }
  return OkStatus();
}

std::vector<std::string> AuthHeaders(const HubSettings& s) {
  if (s.token.empty()) return {};
  return {"Authorization: Bearer " + s.token};
}

std::string StripEtag(std::string etag) {
  if (etag.rfind("W/", 0) == 0) etag.erase(0, 2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return etag;
}

bool IsSha256Hex(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

uint64_t FileSizeOf(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : UINT64_MAX;
}

}  // namespace

Result<RepoListing> ListRevision(const HubSettings& s, std::string_view repo, std::string_view revision) {
  HttpRequest req;
  req.url = s.endpoint + "/api/models/" + std::string(repo) + "/revision/" + std::string(revision);
  req.headers = AuthHeaders(s);
  GEMMAD_ASSIGN_OR_RETURN(HttpResponse resp, HttpFetch(req));
  if (resp.status == 401 || resp.status == 403) {
    return PermissionDeniedError("access to " + std::string(repo) + " denied by " + s.endpoint +
                                 " (HTTP " + std::to_string(resp.status) +
                                 "): a gated or private model needs HF_TOKEN");
  }
  if (resp.status == 404) {
    return NotFoundError("'" + std::string(repo) + "' is neither a local directory nor a model on " +
                         s.endpoint + " (revision " + std::string(revision) + ")");
  }
  if (resp.status != 200) {
    return UnavailableError("listing " + std::string(repo) + " failed: HTTP " + std::to_string(resp.status));
  }
  auto j = nlohmann::json::parse(resp.body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("sha") || !j["sha"].is_string()) {
    return DataLossError("unexpected answer from " + req.url + " (no commit sha)");
  }
  RepoListing out;
  out.commit = j["sha"].get<std::string>();
  if (!IsCommitHash(out.commit)) return DataLossError("bad commit sha from " + req.url);
  if (j.contains("siblings") && j["siblings"].is_array()) {
    for (const auto& sib : j["siblings"]) {
      if (sib.is_object() && sib.contains("rfilename") && sib["rfilename"].is_string()) {
        out.files.push_back(sib["rfilename"].get<std::string>());
      }
    }
  }
  return out;
}

// Downloads one file into blobs/ (resumable, verified) and links snapshots/<commit>/<file> to it.
Status FetchFile(const HubSettings& s, std::string_view repo, const std::string& commit,
                 const std::string& file, const std::string& repo_dir) {
  std::string url = s.endpoint + "/" + std::string(repo) + "/resolve/" + commit + "/" + file;
  HttpRequest head;
  head.url = url;
  head.headers = AuthHeaders(s);
  head.follow_redirects = false;
  GEMMAD_ASSIGN_OR_RETURN(HttpResponse meta, HttpFetch(head, /*head_only=*/true));
  if (meta.status >= 400) {
    return UnavailableError("HEAD " + url + ": HTTP " + std::to_string(meta.status));
  }
  std::string etag = StripEtag(meta.headers.count("x-linked-etag") ? meta.headers["x-linked-etag"]
                                                                   : meta.headers["etag"]);
  if (etag.empty() || etag.find('/') != std::string::npos) return DataLossError("no usable ETag for " + url);
  uint64_t size = UINT64_MAX;
  std::string size_str = meta.headers.count("x-linked-size") ? meta.headers["x-linked-size"]
                                                             : meta.headers["content-length"];
  if (!size_str.empty()) size = std::stoull(size_str);

  std::string blob = JoinPath(repo_dir, "blobs/" + etag);
  GEMMAD_RETURN_IF_ERROR(MakeDirs(JoinPath(repo_dir, "blobs")));
  if (FileSizeOf(blob) == UINT64_MAX || (size != UINT64_MAX && FileSizeOf(blob) != size)) {
    std::string part = blob + ".incomplete";
    HttpRequest get;
    get.url = url;
    get.headers = AuthHeaders(s);
    ProgressBar bar("Downloading " + file, size == UINT64_MAX ? 0 : size, s.progress, /*bytes=*/true);
    GEMMAD_RETURN_IF_ERROR(DownloadResumable(get, part, 5, [&](uint64_t d, uint64_t t) {
      if (t != 0) bar.SetTotal(t);
      bar.Set(d);
    }));
    bar.Finish();
    uint64_t got = FileSizeOf(part);
    if (size != UINT64_MAX && got != size) {
      return DataLossError(file + ": downloaded " + std::to_string(got) + " bytes, expected " + std::to_string(size));
    }
    if (IsSha256Hex(etag)) {
      GEMMAD_ASSIGN_OR_RETURN(std::string sha, Sha256FileHex(part));
      if (sha != etag) {
        std::remove(part.c_str());
        return DataLossError(file + ": sha256 " + sha + " does not match the hub's " + etag);
      }
    }
    if (std::rename(part.c_str(), blob.c_str()) != 0) return IoError("cannot rename " + part);
  }
  std::string link = JoinPath(repo_dir, "snapshots/" + commit + "/" + file);
  GEMMAD_RETURN_IF_ERROR(MakeDirs(link.substr(0, link.rfind('/'))));
  std::string target = "../../blobs/" + etag;
  for (char c : file) {
    if (c == '/') target = "../" + target;
  }
  ::unlink(link.c_str());
  if (::symlink(target.c_str(), link.c_str()) != 0) return IoError("cannot link " + link);
  return OkStatus();
}

Status WriteRef(const HubSettings& s, std::string_view repo, std::string_view revision, const std::string& commit) {
  if (IsCommitHash(revision)) return OkStatus();
  const std::string repo_dir = RepoCacheDir(s, repo);
  GEMMAD_RETURN_IF_ERROR(MakeDirs(JoinPath(repo_dir, "refs")));
  return WriteStringToFile(JoinPath(repo_dir, "refs/" + std::string(revision)), commit);
}

namespace {

Result<std::string> Download(const HubSettings& s, std::string_view repo, std::string_view revision) {
  GEMMAD_ASSIGN_OR_RETURN(RepoListing listing, ListRevision(s, repo, revision));
  std::set<std::string> wanted;
  bool has_index = false;
  for (const auto& f : listing.files) {
    if (f == "model.safetensors.index.json") has_index = true;
  }
  for (const auto& f : listing.files) {
    if (!WantedRepoFile(f)) continue;
    if (has_index && f.size() > 12 && f.substr(f.size() - 12) == ".safetensors") continue;  // from the index
    wanted.insert(f);
  }
  if (wanted.count("config.json") == 0) {
    return NotFoundError(std::string(repo) + "@" + listing.commit + " has no config.json");
  }
  std::string repo_dir = RepoCacheDir(s, repo);
  GEMMAD_LOG_INFO("downloading {} (revision {}, commit {}) into {}", repo, revision, listing.commit, repo_dir);
  for (const auto& f : wanted) GEMMAD_RETURN_IF_ERROR(FetchFile(s, repo, listing.commit, f, repo_dir));
  if (has_index) {
    std::string snap = JoinPath(repo_dir, "snapshots/" + listing.commit);
    GEMMAD_ASSIGN_OR_RETURN(std::string text, ReadFileToString(JoinPath(snap, "model.safetensors.index.json")));
    auto idx = nlohmann::json::parse(text, nullptr, false);
    if (idx.is_discarded() || !idx.contains("weight_map") || !idx["weight_map"].is_object()) {
      return DataLossError("model.safetensors.index.json: no weight_map");
    }
    std::set<std::string> shards;
    for (const auto& [name, shard] : idx["weight_map"].items()) {
      if (shard.is_string()) shards.insert(shard.get<std::string>());
    }
    for (const auto& f : shards) GEMMAD_RETURN_IF_ERROR(FetchFile(s, repo, listing.commit, f, repo_dir));
  }
  GEMMAD_RETURN_IF_ERROR(WriteRef(s, repo, revision, listing.commit));
  return JoinPath(repo_dir, "snapshots/" + listing.commit);
}

}  // namespace

bool WantedRepoFile(std::string_view f) {
  auto ends = [&](std::string_view suf) { return f.size() >= suf.size() && f.substr(f.size() - suf.size()) == suf; };
  if (f.find('/') != std::string_view::npos) return false;  // top level only (no onnx/, gguf/ trees)
  return ends(".json") || ends(".jinja") || ends(".safetensors") || f == "tokenizer.model";
}

Result<std::string> ResolveModelPath(std::string_view model, std::string_view revision,
                                     const HubSettings& settings, std::string_view required_file) {
  std::string m(model);
  if (m.ends_with(".gguf") && FileExists(m) && !IsDirectory(m)) return m;  // a local GGUF file
  if (auto ref = SplitGgufQuantTag(model)) return ResolveGgufRepo(ref->first, ref->second, revision, settings);
  if (IsDirectory(m)) {
    if (!FileExists(JoinPath(m, std::string(required_file)))) {
      return NotFoundError(m + " has no " + std::string(required_file));
    }
    return m;
  }
  if (revision.empty()) revision = "main";
  if (!LooksLikeRepoId(model)) {
    return NotFoundError("model '" + m + "' is not a directory and not a Hugging Face repo id");
  }
  if (auto cached = FindCachedSnapshot(settings, model, revision)) return *cached;
  if (settings.offline) {
    return NotFoundError("model '" + m + "' (revision " + std::string(revision) +
                         ") is not in the Hugging Face cache at " + settings.cache_dir +
                         " and HF_HUB_OFFLINE=1 forbids downloading it");
  }
  return Download(settings, model, revision);
}

}  // namespace gemmad::io
