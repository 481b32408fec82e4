// SPDX-License-Identifier: GPL-3.0-or-later
// The result of running a scenario (original input and, when a permutation is set, the permuted
// input; when asked, a decode step against a KV cache beside the full pass) as the JSON of
// cli.md's `run --json` and as readable text. The CLI prints these; the GUI
// exports the same JSON.
#pragma once

#include "core/model/decode.h"
#include "core/model/scenario.h"
#include "core/model/trace.h"

#include <nlohmann/json.hpp>

#include <string>

namespace attnlab {

/// A matrix as JSON rows: numbers in float modes, "p/q" strings in exact mode.
template <class T>
nlohmann::json matrixValuesJson(const Matrix<T>& m);

/// `run --json` for the scenario, computed on the backend it asks for: "backend" (what ran,
/// e.g. "opencl", "opencl+cpu"), "backend_requested", per layer "backend", and "notices";
/// with `decode`, also "decode": the step's trace (m x n maps, m rows), "queries", "cache",
/// "alignment" (or "mask": "file"), "difference" (decode − the full pass's last m output rows)
/// and "largest_difference". Throws InputError when the step does not fit.
nlohmann::json runJson(const Scenario& scenario, const DecodeStep* decode = nullptr);
/// What one forward pass of the scenario's tokens ran on: {"backend", "backend_requested",
/// "layer_backends", "notices"} (the `check --json` fields).
nlohmann::json backendJson(const Scenario& scenario);
/// Which backend ran each layer of `trace`, asked for as `requested`: {"backend",
/// "backend_requested", "layer_backends", "notices"} (the shape `backendJson` gives).
template <class T>
nlohmann::json traceBackendJson(const Trace<T>& trace, BackendChoice requested);
/// The same run as text for a terminal: input, per layer and head the weights, the output, and
/// for a permutation both sides and the largest |f(P X) - P f(X)|; with `decode`, the decode
/// step (rows named by the last m tokens) and its largest difference from the full pass.
std::string runText(const Scenario& scenario, const DecodeStep* decode = nullptr);

} // namespace attnlab
