// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a model's parts from a scenario file's JSON (scenario-format.md): the pieces
// scenario_reader.cpp assembles into a model. Each throws InputError naming the JSON path.
#pragma once

#include "core/formats/json_reader.h"
#include "core/spec/model_spec.h"

namespace attnlab::scenario_json {

/// The most tokens a scenario may have (and the bound of counts and offsets).
inline constexpr long kMaxTokens = 1L << 16;
/// The largest seed (integers above 2^53 do not survive a JSON double).
inline constexpr long kMaxSeed = 1L << 53;

MatrixSpec readMatrixSpec(const JsonReader& r);
/// A row vector (a bias or a norm's weight): a flat array of numbers, or a matrix spec.
MatrixSpec readRow(const JsonReader& r);
NormSpec readNorm(const JsonReader& r);
MlpSpec readMlp(const JsonReader& r);
MaskSpec readMask(const JsonReader& r);
MixerSpec readMixer(const JsonReader& r);
LayerSpec readLayer(const JsonReader& r);
PositionalSpec readPositional(const JsonReader& r);

} // namespace attnlab::scenario_json
