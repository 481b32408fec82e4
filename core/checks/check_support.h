// Pieces every check shares: the model and tokens of a scenario in scalar type T, the accumulation
// depth behind tolerances, parameter reading, and filling a report from a deviation.
#pragma once

#include "checks/comparison.h"
#include "checks/property_check.h"
#include "model.h"

#include <string>

namespace attnlab {

template <class T>
struct CheckSetup {
    Model<T> model;
    Matrix<T> tokens;
    long depth; // accumulation length behind the float tolerance: (n + width) per layer

    explicit CheckSetup(const Scenario& s)
        : model(s.model, s.d(), s.backend), tokens(s.tokens.materialize<T>()),
          depth(long(s.n() + s.d()) * long(s.model.layers.size())) {}

    Matrix<T> output(const Matrix<T>& x) const { return model.forward(x, Maps::Drop).output; }
};

/// Reads an integer parameter (default `fallback`), refusing values outside [lo, hi].
long integerParam(const CheckRequest& request, const std::string& key, long fallback, long lo,
                  long hi);
/// Throws InputError when the request has parameters other than `allowed`.
void expectParams(const CheckRequest& request, std::initializer_list<std::string_view> allowed);
/// Throws CancelledError when the request was cancelled.
void pollCancel(const CheckRequest& request);

/// Sets verdict, exactness, deviation, tolerance and rule from `d` (fails when d.largest > tol).
template <class T>
void settle(PropertyReport& report, const Deviation<T>& d, long depth) {
    const T tol = tolerance<T>(d.magnitude, depth);
    report.exact = ScalarOps<T>::exact;
    report.maxDeviation = scalarJson<T>(d.largest);
    report.tolerance = scalarJson<T>(tol);
    report.toleranceRule = toleranceRule<T>(depth);
    report.verdict = d.largest > tol ? Verdict::Fails : Verdict::Holds;
}

/// A report that does not apply to this scenario, saying why.
PropertyReport notApplicable(const std::string& name, const std::string& why);

/// Why a model is not permutation-equivariant, naming each cause (positions, masks, ssm).
std::string equivarianceBreakers(const Scenario& scenario);

} // namespace attnlab
