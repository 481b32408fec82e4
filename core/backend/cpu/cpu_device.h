// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU device: this machine as it reports itself, computing every request in every
// precision with the core's own Eigen code (mixer.h) and, for whole layers that keep no maps,
// the fused kernels (layer_attention.h); in float and double through the variant of the CPU
// kernels chosen for this CPU (kernel_dispatch.h).
#pragma once

#include "core/backend/device.h"

#include <memory>

namespace attnlab {

std::unique_ptr<Device> makeCpuDevice();

} // namespace attnlab
