// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenCL kernel source embedded in the binary (generated from attention.cl).
#pragma once

namespace attnlab {

/// The OpenCL C 1.2 text of the attention kernels, with the shared .inc files inlined.
const char* openClKernelSource();

} // namespace attnlab
