// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA backend: every GPU of the CUDA runtime, `cuda:i` computing on GPU i and plain `cuda`
// on GPU 0. No driver or no device means zero devices and a status line saying which, never an
// abort.
#pragma once

#include "core/backend/backend.h"

#include <memory>

namespace attnlab {

std::unique_ptr<Backend> makeCudaBackend();

} // namespace attnlab
