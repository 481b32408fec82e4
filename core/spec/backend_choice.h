// Where a computation is asked to run: `--backend auto|cpu|opencl|cuda` (cli.md). A choice is
// a wish; what actually ran each layer is recorded in the trace.
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

enum class BackendChoice { Auto, Cpu, OpenCl, Cuda };

/// "auto", "cpu", "opencl" or "cuda".
std::string backendChoiceName(BackendChoice choice);
/// Parses a backend name; throws InputError for anything else.
BackendChoice parseBackendChoice(std::string_view text);

} // namespace attnlab
