// SPDX-License-Identifier: GPL-3.0-or-later
// The process-wide settings of process_tuning.h.
#include "core/base/process_tuning.h"

#include <cstdlib> // defines __GLIBC__ where the C library is glibc
#include <string_view>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <unistd.h>
#endif

namespace attnlab {

void keepFreedMemoryForReuse() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest: smaller blocks come from the heap
    mallopt(M_TRIM_THRESHOLD, 256 << 20); // the heap gives memory back above 256 MiB free
#endif
}

void restartWithIdleThreadsSleeping(char** argv) {
#if defined(__linux__) && defined(_OPENMP)
    if (std::getenv("OMP_WAIT_POLICY") != nullptr || argv == nullptr || argv[0] == nullptr) return;
    // Only a program started directly is started again: run through the dynamic loader
    // (ld-linux.so ./attnlab), /proc/self/exe is the loader, which would take argv[1] for the
    // program.
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return;
    self[length] = '\0';
    const auto name = [](std::string_view path) { return path.substr(path.rfind('/') + 1); };
    if (name(self) != name(argv[0])) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv(self, argv); // returns only when it failed: run on as we are
#else
    (void)argv;
#endif
}

} // namespace attnlab
