// SPDX-License-Identifier: GPL-3.0-or-later
// One level of CPU parallelism for the kernels and the property sweeps: a parallel loop over
// independent work items (OpenMP when built with it, else serial) that never nests: called
// from inside a parallel region it runs serially on the calling thread. An exception thrown by
// an item stops the remaining items and is rethrown on the calling thread.
#pragma once

#include "core/base/cancellation.h"
#include "core/base/cpu_quota.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnlab::kernels {

/// Threads a parallel loop started here would use: OpenMP's count, at most the control group's
/// CPU quota (cpu_quota.h); 1 inside a parallel region or without OpenMP.
inline int availableThreads() {
#ifdef _OPENMP
    if (omp_in_parallel()) return 1;
    const int threads = omp_get_max_threads();
    const std::optional<int> quota = cpuQuotaProcessors();
    return quota ? std::min(threads, *quota) : threads;
#else
    return 1;
#endif
}

/// Below this many multiply-adds a loop runs serially: waking threads costs more than it saves
/// (measured: a causality sweep at n = 256 took 1.2 s threaded, 0.15 s serial).
inline constexpr double kParallelWork = 1 << 24;

/// Threads parallelFor runs a loop of `work` multiply-adds on, where it has more than one item: 1
/// below kParallelWork, else availableThreads().
inline int loopThreads(double work) {
    return work >= kParallelWork ? availableThreads() : 1;
}

/// Calls body(i) for i in [0, count), dynamically scheduled across threads (each takes the next
/// item when done with one); no nesting. `work` estimates the loop's multiply-adds: a small loop
/// stays on the calling thread. Each item first polls the calling thread's cancel flag
/// (cancellation.h), which the items on other threads see as theirs.
template <class Body>
void parallelFor(long count, Body&& body, double work = kParallelWork) {
    std::exception_ptr failure;
    std::mutex guard; // guards `failure`
    std::atomic<bool> stop = false;
    const CancelScope::Flag* const cancelled = CancelScope::current();
#ifdef _OPENMP
    const int threads = count > 1 ? loopThreads(work) : 1;
#pragma omp parallel for schedule(dynamic, 1) if (threads > 1) num_threads(threads)
#endif
    for (long i = 0; i < count; ++i) {
        if (stop.load(std::memory_order_relaxed)) continue;
        try {
            const CancelScope scope(cancelled);
            pollCancellation();
            body(i);
        } catch (...) {
            std::lock_guard lock(guard);
            if (!failure) failure = std::current_exception();
            stop = true;
        }
    }
    (void)work;
    if (failure) std::rethrow_exception(failure);
}

} // namespace attnlab::kernels
