// Ranks as threads of one process: MakeInprocGroup(n) returns n communicators over one shared
// state, for unit tests of sharded models. Each communicator is used by its own thread, and every
// thread calls the same collectives in the same order (the Communicator contract).
#pragma once

#include <memory>
#include <vector>

#include "dist/communicator.h"

namespace gemmad::dist {

// result[r].rank() == r, result[r].size() == size (>= 1). The communicators may be destroyed in
// any order, after their threads stop calling them.
//
// Every collective is two barriers: each rank publishes its arguments, all check them (so a
// mismatch, say different sizes, is the same error on every rank and the group stays usable),
// each copies what it needs from the others, and none returns before all have copied. Waiting
// ranks block on a condition variable, so BroadcastIdle is Broadcast here (it never spins).
std::vector<std::unique_ptr<Communicator>> MakeInprocGroup(int size);

}  // namespace gemmad::dist
