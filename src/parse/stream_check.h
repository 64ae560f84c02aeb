// ValidateDeltaStream: checks the contract of delta.h on a whole delta stream (used by tests,
// fuzz targets, and available to the server for debug checks).
#pragma once

#include <string>
#include <vector>

#include "parse/delta.h"

namespace gemmad::parse {

// Returns "" when `deltas` satisfies the contract, else a description of the first violation:
// exactly one member per delta; no empty content; text members valid UTF-8 without Gemma 4
// protocol markers; a call's first delta has id and a non-empty name and arguments "", later
// ones neither id nor name and non-empty arguments; call indices 0, 1, 2, ... in order.
std::string ValidateDeltaStream(const std::vector<Delta>& deltas);

}  // namespace gemmad::parse
