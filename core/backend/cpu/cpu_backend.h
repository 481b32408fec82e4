// The CPU backend: the core's own Eigen code (mixer.h), every request in every precision.
#pragma once

#include "core/backend/backend.h"

#include <memory>

namespace attnlab {

std::unique_ptr<Backend> makeCpuBackend();

} // namespace attnlab
