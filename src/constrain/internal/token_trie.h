// TokenTrie: the ordinary tokens of a vocabulary (not special, not stop, non-empty) as a byte trie
// stored in preorder. Walking it depth-first lets the mask precomputation share the work for
// common prefixes and skip whole subtrees once a prefix is rejected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemmad::constrain::internal {

struct TrieNode {
  uint8_t byte = 0;         // the byte on the edge into this node (root: 0)
  uint8_t depth = 0;        // bytes from the root (root: 0)
  int32_t subtree_end = 0;  // index one past the last node of this node's subtree
  int32_t token_begin = 0;  // tokens ending exactly here: token_ids[token_begin, token_end)
  int32_t token_end = 0;
};

struct TokenTrie {
  std::vector<TrieNode> nodes;     // nodes[0] is the root
  std::vector<int32_t> token_ids;  // grouped by node, in preorder
  // Builds the trie of (bytes, id) pairs (bytes non-empty, at most 255 long).
  static TokenTrie Build(std::vector<std::pair<std::string, int32_t>> tokens);
};

}  // namespace gemmad::constrain::internal
