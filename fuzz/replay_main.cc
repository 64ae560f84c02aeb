// Replay driver for fuzz targets built without libFuzzer: runs every corpus file through
// LLVMFuzzerTestOneInput; with --mutate N also runs N seeded random mutations (bit flips,
// byte insertions/deletions, splices of two corpus entries). A crash or abort fails the test.
#include <dirent.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/rng.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::string> ReadCorpus(const std::string& dir) {
  std::vector<std::string> names, out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') names.emplace_back(e->d_name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    std::ifstream in(dir + "/" + n, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

void Run(const std::string& s) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

std::string Mutate(gemmad::Rng& rng, const std::vector<std::string>& corpus) {
  std::string s = corpus.empty() ? std::string() : corpus[rng.Below(corpus.size())];
  int edits = 1 + static_cast<int>(rng.Below(8));
  for (int k = 0; k < edits; ++k) {
    switch (rng.Below(5)) {
      case 0:
        if (!s.empty()) s[rng.Below(s.size())] ^= static_cast<char>(1u << rng.Below(8));
        break;
      case 1:
        s.insert(s.begin() + static_cast<long>(s.empty() ? 0 : rng.Below(s.size() + 1)),
                 static_cast<char>(rng.Below(256)));
        break;
      case 2:
        if (!s.empty()) s.erase(rng.Below(s.size()), 1 + rng.Below(8));
        break;
      case 3:
        if (!corpus.empty()) {
          const std::string& o = corpus[rng.Below(corpus.size())];
          if (!o.empty()) {
            size_t a = rng.Below(o.size());
            s.insert(s.empty() ? 0 : rng.Below(s.size() + 1), o.substr(a, 1 + rng.Below(64)));
          }
        }
        break;
      default:
        if (!s.empty()) s[rng.Below(s.size())] = "{}[]\"\\:,<>|0123456789 \n"[rng.Below(24)];
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  long mutations = 0;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mutate") == 0 && i + 1 < argc) {
      mutations = std::atol(argv[++i]);
    } else {
      dirs.emplace_back(argv[i]);
    }
  }
  std::vector<std::string> corpus;
  for (const auto& d : dirs) {
    auto c = ReadCorpus(d);
    corpus.insert(corpus.end(), c.begin(), c.end());
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "replay: no corpus files in the given directories\n");
    return 1;
  }
  for (const auto& s : corpus) Run(s);
  gemmad::Rng rng(12345);
  for (long i = 0; i < mutations; ++i) Run(Mutate(rng, corpus));
  std::printf("replayed %zu corpus files, %ld mutations\n", corpus.size(), mutations);
  return 0;
}
