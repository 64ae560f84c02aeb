// The choice of the decode kernels' streaming parameters (kernels/stream_params.h) for this
// machine: GEMMAD_STREAM overrides (e.g. "ahead_short=8192,ahead_long=4096,level=l2"), else a
// per-family table of measured values (docs/cpu-performance.md, "Streaming parameters";
// bench/stream_sweep.py measures the candidates on a machine and prints the row to put there).
// ChooseStreamParams is applied once, before the first kernel call, by the first
// ActiveStreamParams(); the CLI logs the choice at start.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "kernels/stream_params.h"

namespace gemmad::kernels {

struct CpuFacts {
  std::string vendor;      // /proc/cpuinfo vendor_id: "AuthenticAMD", "GenuineIntel"; "" elsewhere
  int family = 0;          // cpu family (AMD Zen 3/4: 25, Zen 5: 26; Intel Core/Xeon: 6)
  std::string model_name;  // for the log line
  int64_t l1d_bytes = 0;   // per core, from /sys/devices/system/cpu/cpu0/cache; 0 when unknown
  int64_t l2_bytes = 0;
};

// Read from /proc/cpuinfo and sysfs (Linux); empty / zero fields where not available.
CpuFacts ReadCpuFacts();

// "key=value,..." over ahead_short, ahead_long, long_row (bytes, 0..1 MiB; k/K suffix allowed),
// level (off|l1|l2); keys not named keep the values of `base`.
Result<StreamParams> ParseStreamParams(std::string_view spec, const StreamParams& base = {});
std::string FormatStreamParams(const StreamParams& params);

// The table: the row for this CPU's vendor and family, else the defaults of StreamParams.
// `row` (optional) gets the row's name.
StreamParams StreamParamsForCpu(const CpuFacts& cpu, std::string* row = nullptr);

struct StreamChoice {
  StreamParams params;
  std::string why;  // "GEMMAD_STREAM", or the table row and the CPU it was read for
  std::string error;  // a GEMMAD_STREAM that did not parse (the table row is used; the CLI refuses to start)
};
// GEMMAD_STREAM when set and valid, else the table (also when it is invalid: see `error`).
StreamChoice ChooseStreamParams();
// The choice ActiveStreamParams() applied (computed on first use).
const StreamChoice& AppliedStreamChoice();

}  // namespace gemmad::kernels
