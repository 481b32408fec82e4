// SPDX-License-Identifier: GPL-3.0-or-later
// The numbers the explorer's editors show and edit, as exact values: the tokens and weights the
// model computes with (floats by their decimals, so that editing a cell keeps the others as
// shown), and the matrices that resizing or pasting into a table makes.
#pragma once

#include "core/model/scenario.h"

#include <cstddef>
#include <optional>

namespace attnlab {

/// One weight matrix of a layer (model_spec.h's LayerSpec).
enum class LayerWeight { Wq, Wk, Wv, Wo, Ffn };

/// Each entry by its shortest decimal (a value read from a float file or computed in floats).
Matrix<Rational> decimalValues(const Eigen::MatrixXd& values);

/// The tokens as the scenario computes with them: given values and exact mode as they are,
/// generated tokens in floats by their decimals.
Matrix<Rational> tokenValues(const Scenario& scenario);

/// The weight `which` of layer `layer` as the model computes with it in the scenario's
/// precision; nothing when the layer has no such matrix. Throws InputError when the model
/// cannot be built (a shape that does not fit the tokens).
std::optional<Matrix<Rational>> weightValues(const Scenario& scenario, std::size_t layer,
                                             LayerWeight which);

/// `values` resized to rows x cols: the entries that still fit are kept, new ones are 0.
Matrix<Rational> resizedValues(const Matrix<Rational>& values, Eigen::Index rows,
                               Eigen::Index cols);

/// `values` with `block` written over it from (row, column), grown with zeros to hold it.
Matrix<Rational> pastedValues(const Matrix<Rational>& values, const Matrix<Rational>& block,
                              Eigen::Index row, Eigen::Index column);

} // namespace attnlab
