// SPDX-License-Identifier: GPL-3.0-or-later
// The `gradient` property check (properties.md §2.14, cli.md): the reverse pass Jᵀδ against
// central finite differences and against the forward-mode identity ⟨J·u, δ⟩ = ⟨u, Jᵀ·δ⟩ on
// seeded random (δ, u). The VJP under test can be replaced (a testing hook, to show that the
// check fails for a wrong reverse pass).
#pragma once

#include "core/checks/property_check.h"
#include "core/model/backward.h"

#include <functional>
#include <memory>

namespace attnlab {

/// A reverse pass: (model, tokens, δ) -> Jᵀδ.
template <class T>
using VjpFunction =
    std::function<Matrix<T>(const Model<T>&, const Matrix<T>& tokens, const Matrix<T>& delta)>;

/// The reverse pass the check tests, per scalar type; an empty function means the real `vjp`.
struct VjpOverride {
    VjpFunction<float> f32;
    VjpFunction<double> f64;
    VjpFunction<Rational> exact;

    /// The same generic callable (e.g. a lambda taking `const auto&` arguments) for every type.
    template <class F>
    static VjpOverride everywhere(const F& f) {
        return {VjpFunction<float>(f), VjpFunction<double>(f), VjpFunction<Rational>(f)};
    }
};

/// The check with the real reverse pass (for the registry).
std::unique_ptr<PropertyCheck> makeGradientCheck();
/// The check testing `vjpUnderTest` instead (tests: a deliberately wrong reverse pass).
std::unique_ptr<PropertyCheck> makeGradientCheck(VjpOverride vjpUnderTest);

} // namespace attnlab
