// SPDX-License-Identifier: GPL-3.0-or-later
// The parts of a block around attention, materialised in scalar type T: biases, norms and the
// MLP (core/spec/block_spec.h), with their forward evaluation.
#pragma once

#include "core/spec/block_spec.h"

#include <optional>
#include <string>

namespace attnlab {

template <class T>
using RowVector = Eigen::Matrix<T, 1, Eigen::Dynamic>;

/// The rows x cols matrix of `spec`; a shape error names `path` (e.g. `layers[1].wq`).
template <class T>
Matrix<T> materializeAt(const MatrixSpec& spec, int rows, int cols, const std::string& path);

/// A 1 x width row (a bias or a norm's weight) from its spec; throws InputError naming `path`
/// when the spec is not 1 x width.
template <class T>
RowVector<T> materializeRow(const MatrixSpec& spec, int width, const std::string& path);

/// x with `bias` added to every row (nothing when the bias is empty).
template <class T>
Matrix<T> withBias(Matrix<T> x, const RowVector<T>& bias);

template <class T>
struct NormWeights {
    NormSpec::Kind kind = NormSpec::Kind::LayerNorm;
    T eps{};
    RowVector<T> weight, bias; // empty: ones, zeros

    /// Throws InputError naming `path` when a weight or bias is not 1 x d.
    NormWeights(const NormSpec& spec, int d, const std::string& path);
    /// Each row of x normalised.
    Matrix<T> apply(const Matrix<T>& x) const;
};

template <class T>
struct MlpWeights {
    MlpSpec::Activation activation = MlpSpec::Activation::Relu;
    Matrix<T> up, down;
    std::optional<Matrix<T>> gate;
    RowVector<T> upBias, gateBias, downBias; // empty: none

    /// For inputs of width d; the hidden width is up's (and gate's) column count, given values
    /// or a tensor fixing it, else d. Throws InputError naming `path` when shapes disagree.
    MlpWeights(const MlpSpec& spec, int d, const std::string& path);
    /// The MLP of each row of x; `parts` > 1 splits it as tensor parallelism does (up and gate
    /// column-parallel, down row-parallel).
    Matrix<T> apply(const Matrix<T>& x, int parts = 1) const;
};

/// The activation applied to every entry of x (float modes; exact mode has only relu).
template <class T>
Matrix<T> activate(MlpSpec::Activation activation, Matrix<T> x);

} // namespace attnlab
