// Minimal CUDA device queries shared by launchers and gpu tests (no CUDA types in this header).
#pragma once

#include "base/status.h"

namespace gemmad::kernels::cuda {

// Number of usable CUDA devices; 0 when there is no driver or no device.
int DeviceCount();
// Maps the last CUDA error to a Status naming `what`.
Status LastError(const char* what);

}  // namespace gemmad::kernels::cuda
