// Shared body of the parser fuzz targets: byte 0 picks options and the split, the rest is model
// text. The text is parsed once whole and once cut into pieces; any contract violation
// (parse/stream_check.h) or any difference between the two (message, coalesced deltas)
// aborts.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/rng.h"
#include "parse/delta.h"
#include "parse/stream_check.h"

namespace gemmad::parse::fuzz {

struct Outcome {
  std::vector<Delta> deltas;
  ParsedMessage message;
};

inline std::vector<std::string_view> Cut(std::string_view text, uint8_t seed) {
  std::vector<std::string_view> pieces;
  Rng rng(seed);
  const uint64_t max_piece = 1 + (seed & 0x0F);
  for (size_t i = 0; i < text.size();) {
    const size_t n = 1 + rng.Below(max_piece);
    pieces.push_back(text.substr(i, n));
    i += n;
  }
  return pieces;
}

inline std::string Hex(std::string_view s) {
  std::string out;
  char buf[4];
  for (unsigned char c : s) {
    std::snprintf(buf, sizeof(buf), "%02x", c);
    out += buf;
  }
  return out;
}

[[noreturn]] inline void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "parser fuzz: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// `run(pieces)` parses the pieces with a fresh parser and returns its outcome.
template <typename RunFn>
void CheckInvariance(std::string_view text, uint8_t seed, bool check_markers, RunFn run) {
  const Outcome whole = run(std::vector<std::string_view>{text});
  const Outcome split = run(Cut(text, seed));
  for (const Outcome* o : {&whole, &split}) {
    std::string bad = ValidateDeltaStream(o->deltas);
    if (!bad.empty() && (check_markers || bad.find("marker") == std::string::npos)) {
      Fail("invalid delta stream", bad + "\ninput: " + Hex(text));
    }
  }
  if (!(whole.message == split.message)) Fail("split changed the message", Hex(text));
  if (!(CoalesceDeltas(whole.deltas) == CoalesceDeltas(split.deltas))) {
    Fail("split changed the event stream", Hex(text));
  }
}

}  // namespace gemmad::parse::fuzz
