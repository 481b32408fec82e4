// SPDX-License-Identifier: GPL-3.0-or-later
// A black box's dependency map (properties.md §2.3, §3): each token perturbed in turn, twice, by
// generic vectors about as large as the tokens themselves, and which output rows moved beyond the
// dependence threshold. Planned once and shared by causality, locality and the mask check; the
// pairs that break a rule, found with their query positions (a decode step's rows are the last
// queries of the n tokens).
#pragma once

#include "core/checks/black_box.h"
#include "core/checks/properties/shared/dependency_measurement.h"

#include <array>
#include <functional>
#include <memory>

namespace attnlab {

class BlackBoxDependencies {
public:
    /// The sweep of `plan`, planned on first use. `fixed` is the request's fixed tolerance, if
    /// any: it decides which of a token's two perturbations moved a row more.
    static std::shared_ptr<BlackBoxDependencies> in(BlackBoxPlan& plan,
                                                    std::optional<double> fixed);

    /// The measured map (rows: the outputs' rows; columns: the tokens) under `tol`.
    const Dependencies<double>& measure(const BlackBoxTolerance& tol);
    /// What the sweep did, for a report's `checked`.
    nlohmann::json checked(const BlackBoxTolerance& tol) const;

    /// The pair (output row, token) breaking `violates(position, token)` whose change is worst,
    /// and the nearest such pair (smallest |position - token|) that the map marks as moved.
    Violations violations(const BlackBoxTolerance& tol, int queries,
                          const std::function<bool(Eigen::Index, Eigen::Index)>& violates) const;
    /// The witness of output row s moving with token t ("output_row", "input_token", with the
    /// query's position among the n tokens for a decode step).
    Witness witness(Eigen::Index s, Eigen::Index t, int queries) const;
    /// Settles `report` on the worst of `v` (0 when nothing breaks the rule) against the
    /// dependence threshold, with the worst pair as witness and the nearest as shrunk witness.
    void settle(ReportBuilder& report, const Violations& v, const BlackBoxTolerance& tol,
                int queries) const;

private:
    BlackBoxDependencies(BlackBoxPlan& plan, std::optional<double> fixed);
    // The outputs of token t's k-th perturbation, recorded as they arrive.
    void take(const BlackBoxPlan& plan, Eigen::Index t, int k, Sequence&& output);

    BlackBoxPlan::Handle baseline_;
    long tokens_ = 0;
    double size_ = 1; // max(1, max |X|)
    // Which of two changes of a row is the larger, whatever the tolerance's constant: the
    // change against max(1, |row|), or against the fixed tolerance.
    RowTolerance<double> order_;
    Sequence pending_; // the first perturbation's output, until the second's arrives
    Dependencies<double> measured_;
};

/// The radius of a (possibly rectangular, decode) dependency or mask map: the largest
/// |position - token| it marks.
int blackBoxRadius(const BoolMatrix& map, Eigen::Index n, int queries);

} // namespace attnlab
