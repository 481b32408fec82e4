// SPDX-License-Identifier: GPL-3.0-or-later
// Where a computation is asked to run: `--backend auto|cpu|opencl|cuda`, optionally with the
// index of one of the backend's devices (`cuda:1`, `opencl:0`; cli.md). A choice is a wish;
// what actually ran each layer is recorded in the trace.
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

enum class BackendKind { Auto, Cpu, OpenCl, Cuda };

struct BackendChoice {
    // BackendChoice::Cuda names the kind.
    static constexpr BackendKind Auto = BackendKind::Auto, Cpu = BackendKind::Cpu,
                                 OpenCl = BackendKind::OpenCl, Cuda = BackendKind::Cuda;

    constexpr BackendChoice(BackendKind kind = BackendKind::Cpu, int device = -1)
        : kind(kind), device(device) {}
    bool operator==(const BackendChoice&) const = default;

    BackendKind kind;
    /// The index of the device among the backend's (`attnlab-cli devices`); -1: the one the
    /// backend picks itself.
    int device;
};

/// "auto", "cpu", "opencl" or "cuda".
std::string backendKindName(BackendKind kind);
/// The choice as `--backend` takes it: the kind's name, then ":INDEX" when a device is named.
std::string backendChoiceName(BackendChoice choice);
/// Parses `auto`, `cpu`, `opencl` or `cuda`, the last three optionally followed by `:INDEX`
/// (decimal digits); throws InputError for anything else.
BackendChoice parseBackendChoice(std::string_view text);

} // namespace attnlab
