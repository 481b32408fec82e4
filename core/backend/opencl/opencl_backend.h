// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenCL backend: every device of every platform, `opencl:i` computing on device i; plain
// `opencl` computes on the first GPU or accelerator, else the first device (PoCL's CPU device in
// CI). Kernels are compiled at run time from the embedded source.
#pragma once

#include "core/backend/backend.h"

#include <memory>

namespace attnlab {

std::unique_ptr<Backend> makeOpenClBackend();

} // namespace attnlab
