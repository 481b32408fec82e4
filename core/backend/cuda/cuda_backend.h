// The CUDA backend: device 0 of the CUDA runtime. No driver or no device means zero devices
// and a status line saying which, never an abort.
#pragma once

#include "core/backend/backend.h"

#include <memory>

namespace attnlab {

std::unique_ptr<Backend> makeCudaBackend();

} // namespace attnlab
