// Hub GGUF references (see hf_gguf.h).
#include "io/hf_gguf.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "base/files.h"
#include "base/log.h"
#include "base/strings.h"
#include "io/hf_hub.h"

namespace gemmad::io {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Shards other than the first of "name-0000K-of-0000N.gguf".
bool IsLaterShard(const std::string& name) {
  const size_t of = name.rfind("-of-");
  if (of == std::string::npos || of < 6) return false;
  const std::string k = name.substr(of - 5, 5);
  return std::all_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; }) && k != "00001";
}

// The rest of a split set: same name with every shard number.
std::vector<std::string> ShardSet(const std::vector<std::string>& files, const std::string& first) {
  const size_t of = first.rfind("-of-");
  if (of == std::string::npos || of < 6 || first.substr(of - 5, 5) != "00001") return {first};
  const std::string stem = first.substr(0, of - 5), tail = first.substr(of);
  std::vector<std::string> out;
  for (const std::string& f : files) {
    if (f.size() == first.size() && f.starts_with(stem) && f.ends_with(tail)) out.push_back(f);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> SnapshotFiles(const std::string& snap) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(snap, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() > 2) continue;
    const std::string rel = it->path().lexically_relative(snap).string();  // no symlink resolution
    if (rel.ends_with(".gguf")) out.push_back(rel);
  }
  return out;
}

std::string AvailableTags(const std::vector<std::string>& files) {
  std::string out;
  for (const std::string& f : files) {
    if (!f.ends_with(".gguf") || Upper(BaseName(f)).find("MMPROJ") != std::string::npos || IsLaterShard(f)) continue;
    out += (out.empty() ? "" : ", ") + BaseName(f);
  }
  return out.empty() ? "none" : out;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> SplitGgufQuantTag(std::string_view model) {
  const size_t colon = model.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == model.size()) return std::nullopt;
  const std::string_view repo = model.substr(0, colon), tag = model.substr(colon + 1);
  if (tag.size() > 64 || !LooksLikeRepoId(repo)) return std::nullopt;
  for (char c : tag) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
  }
  return std::make_pair(std::string(repo), std::string(tag));
}

std::vector<std::string> MatchGgufFiles(const std::vector<std::string>& files, std::string_view tag) {
  const std::string want = Upper(tag);
  std::vector<std::string> out;
  for (const std::string& f : files) {
    const std::string base = Upper(BaseName(f));
    if (!base.ends_with(".GGUF") || base.find("MMPROJ") != std::string::npos || IsLaterShard(f)) continue;
    if (base.find(want) != std::string::npos) out.push_back(f);
  }
  // Shortest name first ("x-Q4_K.gguf" before "x-Q4_K_M.gguf" for tag Q4_K), then alphabetical.
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return out;
}

std::optional<std::string> PickMmprojName(std::vector<std::string> names, std::string_view self) {
  std::sort(names.begin(), names.end());
  const std::vector<bool (*)(const std::string&)> patterns = {
      [](const std::string& n) { return n == "mmproj.gguf"; },
      [](const std::string& n) { return n.starts_with("mmproj-") && n.ends_with(".gguf"); },
      [](const std::string& n) { return n.find("mmproj") != std::string::npos && n.ends_with(".gguf"); }};
  for (auto matches : patterns) {
    for (const std::string& n : names) {
      if (n != self && matches(n)) return n;
    }
  }
  return std::nullopt;
}

Result<std::string> ResolveGgufRepo(std::string_view repo, std::string_view tag, std::string_view revision,
                                    const HubSettings& settings) {
  if (revision.empty()) revision = "main";
  const std::string repo_dir = RepoCacheDir(settings, repo);
  std::string commit(revision);
  if (!IsCommitHash(revision)) {
    auto ref = ReadFileToString(JoinPath(repo_dir, "refs/" + std::string(revision)));
    commit = ref.ok() ? std::string(TrimAscii(*ref)) : "";
  }
  if (!commit.empty()) {
    const std::string snap = JoinPath(repo_dir, "snapshots/" + commit);
    const std::vector<std::string> cached = MatchGgufFiles(SnapshotFiles(snap), tag);
    if (!cached.empty()) return JoinPath(snap, cached.front());
  }
  const std::string ref = std::string(repo) + ":" + std::string(tag);
  if (settings.offline) {
    return NotFoundError(fmt::format("{} (revision {}) is not in the Hugging Face cache at {} and HF_HUB_OFFLINE=1 "
                                     "forbids downloading it", ref, revision, settings.cache_dir));
  }
  GEMMAD_ASSIGN_OR_RETURN(RepoListing listing, ListRevision(settings, repo, revision));
  const std::vector<std::string> match = MatchGgufFiles(listing.files, tag);
  if (match.empty()) {
    return NotFoundError(fmt::format("{}: no GGUF file of {} matches the tag '{}' (files: {})", ref, repo, tag,
                                     AvailableTags(listing.files)));
  }
  GEMMAD_LOG_INFO("downloading {} from {} (commit {}) into {}", match.front(), repo, listing.commit, repo_dir);
  for (const std::string& f : ShardSet(listing.files, match.front())) {
    GEMMAD_RETURN_IF_ERROR(FetchFile(settings, repo, listing.commit, f, repo_dir));
  }
  // The companion beside the chosen file in the repository (same directory), if there is one.
  const size_t slash = match.front().rfind('/');
  const std::string dir = slash == std::string::npos ? "" : match.front().substr(0, slash + 1);
  std::vector<std::string> siblings;
  for (const std::string& f : listing.files) {
    if (f.starts_with(dir) && f.find('/', dir.size()) == std::string::npos) siblings.push_back(f.substr(dir.size()));
  }
  if (auto mmproj = PickMmprojName(siblings)) {
    GEMMAD_LOG_INFO("downloading its mmproj companion {} (the vision/audio encoders)", dir + *mmproj);
    GEMMAD_RETURN_IF_ERROR(FetchFile(settings, repo, listing.commit, dir + *mmproj, repo_dir));
  }
  GEMMAD_RETURN_IF_ERROR(WriteRef(settings, repo, revision, listing.commit));
  return JoinPath(repo_dir, "snapshots/" + listing.commit + "/" + match.front());
}

}  // namespace gemmad::io
