// SPDX-License-Identifier: GPL-3.0-or-later
// A probe: the black-box properties chosen (or the default set for the intended mask) measured
// on a SequenceFunction (the user's program, program_function.h) at its tokens, all planned
// together so that one call serves them, then reported as `check` reports. What the CLI's `probe`
// and the window's File > Probe Program... both run.
#pragma once

#include "core/checks/black_box.h"
#include "core/model/scenario.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

struct ProbeRequest {
    int tokens = 16, features = 8; // n, d of the drawn input
    std::uint64_t seed = 1;
    /// The input itself (the window's token editor); none: n x d standard normals from `seed`.
    std::optional<Sequence> input;
    std::vector<CheckSpec> properties; // empty: defaultProbeProperties
    std::string mask;                  // the intended mask's SPEC; empty: maskMatrix or none
    /// The intended mask as cells (the window's mask editor), used when `mask` is empty: n x n,
    /// or queries x n for a decode step. `maskMatrixText` names it in the reports.
    std::optional<BoolMatrix> maskMatrix;
    std::string maskMatrixText;
    int queries = 0;                 // a decode step's rows; 0: all rows
    std::optional<double> tolerance; // fixed; none: the precision's rule
    std::function<bool()> cancelled;
    /// After each call: calls done, calls planned, sequences in them (before any shrinking).
    std::function<void(int, int, long)> progress;
};

struct ProbeResult {
    Sequence tokens;
    std::optional<BoolMatrix> intendedMask;
    std::string intendedMaskText;
    std::vector<PropertyReport> reports;
    long calls = 0, sequences = 0; // made by this probe, shrinking included
    std::string precision;         // the function's precisionText
};

/// The intended mask over n tokens from SPEC: `all`, `causal`, `window:R`, `causal_window:R`,
/// `prefix:P`, a scenario-format mask object (`{"kind": "window", "radius": 2}`), or a .npy
/// file (n x n, or queries x n for a decode step). Throws InputError naming what is wrong.
BoolMatrix parseIntendedMask(const std::string& spec, int n, int queries);

/// The properties a probe runs when none are named: batch-invariance, and by the intended mask:
/// mask; causality and prefix-consistency when it lets no query read a later key (also when no
/// mask is given); locality when it has a radius below n - 1; the permutation properties when
/// it is all-true. Those that do not apply to a decode step are left out.
std::vector<std::string> defaultProbeProperties(const std::optional<BoolMatrix>& mask, int n,
                                                int queries);

/// The properties runProbe runs for `request`, in its order: those named, else the default set
/// for its intended mask. Throws InputError for a bad mask.
std::vector<std::string> probeProperties(const ProbeRequest& request);

/// Runs the probe. Throws InputError for a bad request (unknown property or parameter, a bad
/// mask), ProgramError when the program fails, CancelledError when cancelled.
ProbeResult runProbe(const ProbeRequest& request, SequenceFunction& function);

} // namespace attnlab
