// The process-wide settings of process_tuning.h.
#include "process_tuning.h"

#include <cstdlib> // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <unistd.h>
#endif

namespace attnlab {

void keepFreedMemoryForReuse() {
#if defined(__GLIBC__)
    mallopt(M_TOP_PAD, 16 << 20);
#endif
}

void restartWithIdleThreadsSleeping(char** argv) {
#if defined(__linux__)
    if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv("/proc/self/exe", argv); // returns only when it failed: run on as we are
#else
    (void)argv;
#endif
}

} // namespace attnlab
