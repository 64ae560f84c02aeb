// The signals that end a server: SIGINT and SIGTERM, blocked in the calling thread and every thread
// it starts later, so that one thread receives them with sigwait (or nobody does: tensor-parallel
// worker ranks, which rank 0 stops).
#pragma once

#include <csignal>

namespace gemmad::cli {

sigset_t BlockShutdownSignals();

}  // namespace gemmad::cli
