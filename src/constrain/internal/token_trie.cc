// TokenTrie construction from sorted token byte strings (token_trie.h).
#include "constrain/internal/token_trie.h"

#include <algorithm>

namespace gemmad::constrain::internal {

TokenTrie TokenTrie::Build(std::vector<std::pair<std::string, int32_t>> tokens) {
  std::sort(tokens.begin(), tokens.end());
  TokenTrie t;
  t.nodes.push_back({});
  std::vector<int32_t> path = {0};  // node index per depth of the current prefix
  std::string prev;
  for (const auto& [bytes, id] : tokens) {
    size_t common = 0;
    while (common < prev.size() && common < bytes.size() && prev[common] == bytes[common]) ++common;
    // Close the nodes deeper than the common prefix.
    while (path.size() > common + 1) {
      t.nodes[static_cast<size_t>(path.back())].subtree_end = static_cast<int32_t>(t.nodes.size());
      path.pop_back();
    }
    for (size_t d = common; d < bytes.size(); ++d) {
      TrieNode n;
      n.byte = static_cast<uint8_t>(bytes[d]);
      n.depth = static_cast<uint8_t>(d + 1);
      path.push_back(static_cast<int32_t>(t.nodes.size()));
      t.nodes.push_back(n);
    }
    TrieNode& leaf = t.nodes[static_cast<size_t>(path.back())];
    // Tokens with identical bytes are adjacent after sorting, so this node's range stays contiguous.
    if (leaf.token_end == leaf.token_begin) leaf.token_begin = static_cast<int32_t>(t.token_ids.size());
    t.token_ids.push_back(id);
    leaf.token_end = static_cast<int32_t>(t.token_ids.size());
    prev = bytes;
  }
  while (!path.empty()) {
    t.nodes[static_cast<size_t>(path.back())].subtree_end = static_cast<int32_t>(t.nodes.size());
    path.pop_back();
  }
  return t;
}

}  // namespace gemmad::constrain::internal
