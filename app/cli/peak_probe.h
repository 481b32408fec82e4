// The machine's single-precision FMA peak, measured: every thread runs independent chains of
// fused multiply-adds on full-width vectors. `bench` divides its rates by this number.
#pragma once

namespace attnlab::cli {

/// GFLOP/s (2 per FMA lane) of all CPU threads together, the best of a few short runs.
double measurePeakGflops();

} // namespace attnlab::cli
