// SPDX-License-Identifier: GPL-3.0-or-later
// The single-precision FMA peak the CPU kernels could reach, measured: every thread runs
// independent chains of fused multiply-adds on the widest vectors the kernels use. `attnlab-cli
// bench` divides its rates by this number.
#pragma once

namespace attnlab {

/// The peak, per wall-clock second (all threads together) and per CPU second (one thread's
/// rate while it runs: robust on a machine shared with other work).
struct PeakRate {
    double gflops = 0;
    double gflopsPerCpuSecond = 0;
    int vectorBits = 0; // the width of the vectors measured
};

/// GFLOP (2 per FMA lane) per second of all CPU threads, the best of a few short runs, on the
/// vectors the chosen variant of the kernels runs on (its KernelTable says which).
PeakRate measurePeak();

/// CPU seconds this process has used so far, all threads together.
double processCpuSeconds();

} // namespace attnlab
