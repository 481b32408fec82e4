// SPDX-License-Identifier: GPL-3.0-or-later
// Derivatives of a model's forward pass with respect to its tokens (properties.md §2.14): the
// reverse pass (vector-Jacobian product Jᵀδ) and forward-mode differentiation (Jacobian-vector
// product J·u), for every layer the forward supports. ReLU-type kinks use the convention
// relu'(0) = 0 in both directions, so ⟨J·u, δ⟩ = ⟨u, Jᵀ·δ⟩ holds exactly in exact arithmetic.
#pragma once

#include "core/model/model.h"

#include <optional>
#include <string>
#include <vector>

namespace attnlab {

/// Why the passes below cannot differentiate `spec` (they cover attention, the ffn pre-map,
/// projections and residuals, not norms, biases, grouped heads or MLPs), or nothing.
std::optional<std::string> undifferentiablePart(const ModelSpec& spec);

/// Jᵀδ: the gradient of ⟨f(tokens), δ⟩ with respect to the tokens, where f is
/// `model.forward(tokens, ·, extraOffset).output` and δ has the output's shape. Absolute
/// positions are a constant shift, so the gradient is the same before and after them.
/// Throws InputError where the forward would (exp, sin, cos in exact mode; bad shapes).
template <class T>
Matrix<T> vjp(const Model<T>& model, const Matrix<T>& tokens, const Matrix<T>& delta,
              long extraOffset = 0);

/// J·u: the directional derivative of f at `tokens` along `direction` (same shape as tokens),
/// by forward-mode differentiation (tangents propagated through every layer, not differences).
template <class T>
Matrix<T> jvp(const Model<T>& model, const Matrix<T>& tokens, const Matrix<T>& direction,
              long extraOffset = 0);

/// Jᵀδ for every δ of `deltas`, and J·u for every u of `directions`: the forward and each
/// layer's intermediates are computed once for all of them, the passes spread over the threads.
template <class T>
std::vector<Matrix<T>> vjp(const Model<T>& model, const Matrix<T>& tokens,
                           const std::vector<Matrix<T>>& deltas, long extraOffset = 0);
template <class T>
std::vector<Matrix<T>> jvp(const Model<T>& model, const Matrix<T>& tokens,
                           const std::vector<Matrix<T>>& directions, long extraOffset = 0);

/// The sign pattern of every ReLU-type argument of the forward pass ([x > 0] for each ffn
/// pre-activation and each allowed softmax_like score), layer by layer. f is smooth between two
/// inputs whose patterns agree, so finite differences are only meaningful there.
template <class T>
std::vector<bool> activationPattern(const Model<T>& model, const Matrix<T>& tokens,
                                    long extraOffset = 0);

} // namespace attnlab
