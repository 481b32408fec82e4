// SPDX-License-Identifier: GPL-3.0-or-later
// The parts of a transformer block around attention (properties.md §1.3): a normalisation of
// each token's features and the position-wise MLP, as real models (GPT-2, Llama, GPT-NeoX,
// BLOOM) state them.
#pragma once

#include "core/base/enum_names.h"
#include "core/spec/matrix_spec.h"

#include <optional>
#include <string>

namespace attnlab {

/// layernorm: (x - mean(x)) / sqrt(var(x) + eps) · weight + bias; rmsnorm: x / sqrt(mean(x²) +
/// eps) · weight. Over the features of each token; weight and bias are 1 x d (absent: ones,
/// zeros).
struct NormSpec {
    enum class Kind { LayerNorm, RmsNorm };
    Kind kind = Kind::LayerNorm;
    std::optional<MatrixSpec> weight, bias;
    double eps = 1e-5;

    /// "layernorm" or "rmsnorm".
    std::string describe() const;
    /// Throws InputError in exact mode (a square root).
    void checkPrecision(Precision precision) const;
    bool operator==(const NormSpec&) const = default;
};

/// The position-wise MLP: act(x·Wup + bup)·Wdown + bdown, or gated (Llama's SwiGLU):
/// (act(x·Wgate + bgate) ⊙ (x·Wup + bup))·Wdown + bdown. Biases are 1 x width rows.
struct MlpSpec {
    /// gelu: x·Φ(x) (erf); gelu_tanh: its tanh approximation (GPT-2's gelu_new); silu: x·σ(x).
    enum class Activation { Relu, Gelu, GeluTanh, Silu };
    Activation activation = Activation::Relu;
    MatrixSpec up, down;
    std::optional<MatrixSpec> gate; // present: gated
    std::optional<MatrixSpec> upBias, gateBias, downBias;

    /// "gelu_tanh", "silu (gated)", ...
    std::string describe() const;
    /// Throws InputError in exact mode unless the activation is relu.
    void checkPrecision(Precision precision) const;
    bool operator==(const MlpSpec&) const = default;
};

/// The words the scenario format uses.
inline constexpr EnumName<NormSpec::Kind> kNormKindNames[] = {
    {NormSpec::Kind::LayerNorm, "layernorm"}, {NormSpec::Kind::RmsNorm, "rmsnorm"}};
inline constexpr EnumName<MlpSpec::Activation> kActivationNames[] = {
    {MlpSpec::Activation::Relu, "relu"},
    {MlpSpec::Activation::Gelu, "gelu"},
    {MlpSpec::Activation::GeluTanh, "gelu_tanh"},
    {MlpSpec::Activation::Silu, "silu"}};

} // namespace attnlab
