// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend: one device, the host CPU (cpu_device.h), which computes every request.
#pragma once

#include "core/backend/backend.h"

#include <memory>

namespace attnlab {

std::unique_ptr<Backend> makeCpuBackend();

} // namespace attnlab
