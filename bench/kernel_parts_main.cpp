// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab-kernel-parts-<variant>'s entry, compiled like the rest of the program: the parts
// (kernel_parts_bench.cpp) are compiled for the variant, so they run only where the processor has
// its instructions (checked as kernel_dispatch.cpp checks them); elsewhere it says so and exits
// with status 77 rather than stopping on an illegal instruction.
#include "bench/kernel_parts.h"

#include <cstdio>

namespace {

bool processorRunsVariant() {
#if defined(ATTNLAB_PARTS_LEVEL) && ATTNLAB_PARTS_LEVEL >= 3
    __builtin_cpu_init();
    bool runs = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#if ATTNLAB_PARTS_LEVEL >= 4
    runs = runs && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
#endif
    return runs;
#else
    return true;
#endif
}

} // namespace

int main(int argc, char** argv) {
    if (!processorRunsVariant()) {
        std::fprintf(stderr, "%s: this processor lacks the instructions it was built for\n",
                     argv[0]);
        return 77;
    }
    return runKernelParts(argc, argv);
}
