// The OpenCL backend: the first GPU or accelerator of any platform, else the first device
// (PoCL's CPU device in CI). Kernels are compiled at run time from the embedded source.
#pragma once

#include "core/backend/backend.h"

#include <memory>

namespace attnlab {

std::unique_ptr<Backend> makeOpenClBackend();

} // namespace attnlab
