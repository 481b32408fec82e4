// SPDX-License-Identifier: GPL-3.0-or-later
// Runs a generic lambda with the scalar type that a runtime Precision names:
// withScalar(p, [&]<class T>() { ... }) so callers write one template, not three branches.
#pragma once

#include "core/base/scalar.h"

namespace attnlab {

template <class F>
decltype(auto) withScalar(Precision precision, F&& f) {
    switch (precision) {
    case Precision::Float32:
        return f.template operator()<float>();
    case Precision::Float64:
        return f.template operator()<double>();
    case Precision::Exact:
        break;
    }
    return f.template operator()<Rational>();
}

} // namespace attnlab
