// SPDX-License-Identifier: GPL-3.0-or-later
// Which variant of the CPU kernels this process runs (cmake/CpuKernels.cmake): on x86-64 the
// highest instruction set this CPU has, chosen once at run time; ATTNLAB_CPU_PATH=<variant>
// forces a lower one (testing). The public kernels (fused_attention.h, layer_attention.h,
// pooled_map.h, matrix_product.h) and the CPU device call through its table.
#pragma once

#include "core/backend/cpu/kernel_table.h"

#include <string>
#include <vector>

namespace attnlab::kernels {

/// One variant built into this program.
struct CpuKernelVariant {
    std::string name;         // "x86-64-v3", as ATTNLAB_CPU_PATH names it
    std::string instructions; // "AVX2+FMA"
    bool runs = false;        // whether this CPU has its instruction set
};

/// Every variant built in, lowest instruction set first.
std::vector<CpuKernelVariant> cpuKernelVariants();

/// The variant chosen.
const CpuKernelVariant& chosenCpuKernels();

/// "kernels x86-64-v4 (AVX-512), chosen at run time; variants: x86-64, x86-64-v3, x86-64-v4".
std::string cpuKernelsSummary();

/// The chosen variant's table.
const KernelTable& cpuKernels();

} // namespace attnlab::kernels
