// SPDX-License-Identifier: GPL-3.0-or-later
// A black box's dependency map, planned once per plan (black_box_dependencies.h).
#include "core/checks/properties/shared/black_box_dependencies.h"

#include <cmath>

namespace attnlab {

namespace {

// The k-th (0 or 1) move of every token of an n x d input: entries between 0.5 and 1.5 times
// `size` with signs that vary over tokens and features, so that every token moves about as far
// as the largest token is long and no change cancels by chance.
Sequence blackBoxMove(Eigen::Index n, Eigen::Index d, double size, int k) {
    Sequence move(n, d);
    for (Eigen::Index t = 0; t < n; ++t)
        for (Eigen::Index j = 0; j < d; ++j) {
            const long mixed = (3 + 2 * k + 5 * j) * (7 + 3 * t + j + 11 * k);
            const double sign = ((t + 2 * j + k) % 3 == 0) ? -1.0 : 1.0;
            move(t, j) = sign * size * (0.5 + double(mixed % 97) / 97.0);
        }
    return move;
}

} // namespace

std::shared_ptr<BlackBoxDependencies> BlackBoxDependencies::in(BlackBoxPlan& plan,
                                                               std::optional<double> fixed) {
    return plan.shared<BlackBoxDependencies>("dependencies",
                                             [&] { return new BlackBoxDependencies(plan, fixed); });
}

BlackBoxDependencies::BlackBoxDependencies(BlackBoxPlan& plan, std::optional<double> fixed)
    : baseline_(plan.baseline()), tokens_(long(plan.tokens().rows())),
      order_([fixed](const double& m) { return fixed ? *fixed : std::max(1.0, m); }) {
    const Sequence& x = plan.tokens();
    size_ = std::max(1.0, x.cwiseAbs().maxCoeff());
    measured_.changes.resize(std::size_t(tokens_));
    // The moves are made once; each perturbed input only when its call is, and its output is
    // recorded and dropped right after it: n = 2048 tokens never hold 4096 outputs at once.
    auto moves = std::make_shared<std::array<Sequence, 2>>(std::array<Sequence, 2>{
        blackBoxMove(x.rows(), x.cols(), size_, 0), blackBoxMove(x.rows(), x.cols(), size_, 1)});
    for (Eigen::Index t = 0; t < x.rows(); ++t)
        for (int k = 0; k < 2; ++k)
            plan.addStreamed(
                [&plan, moves, t, k] {
                    Sequence xp = plan.tokens();
                    xp.row(t) += (*moves)[std::size_t(k)].row(t);
                    return xp;
                },
                [this, &plan, t, k](Sequence&& out) { take(plan, t, k, std::move(out)); });
}

void BlackBoxDependencies::take(const BlackBoxPlan& plan, Eigen::Index t, int k,
                                Sequence&& output) {
    if (k == 0) {
        pending_ = std::move(output);
        return;
    }
    const Sequence& fx = plan.output(baseline_);
    if (measured_.map.size() == 0) measured_.map = BoolMatrix::Constant(fx.rows(), tokens_, false);
    recordTokenChanges(measured_, t, fx, {std::move(pending_), std::move(output)}, order_);
    pending_ = Sequence();
}

const Dependencies<double>& BlackBoxDependencies::measure(const BlackBoxTolerance& tol) {
    const RowTolerance<double> rule([tol](const double& m) { return tol.dependence(m); });
    for (Eigen::Index t = 0; t < measured_.map.cols(); ++t)
        for (Eigen::Index s = 0; s < measured_.map.rows(); ++s)
            measured_.map(s, t) = measured_.at(s, t).exceeds(rule);
    return measured_;
}

nlohmann::json BlackBoxDependencies::checked(const BlackBoxTolerance& tol) const {
    return {{"perturbed_tokens", tokens_},
            {"perturbations_per_token", 2},
            {"perturbation", "each token moved by a generic vector with entries of 0.5 to 1.5 "
                             "times max(1, max |X|) = " +
                                 ReportNumber::of(size_).text()},
            {"dependence", tol.dependenceRule()}};
}

Violations BlackBoxDependencies::violations(
    const BlackBoxTolerance& tol, int queries,
    const std::function<bool(Eigen::Index, Eigen::Index)>& violates) const {
    const Dependencies<double>& dep = measured_;
    const RowTolerance<double> rule([tol](const double& m) { return tol.dependence(m); });
    const Eigen::Index n = dep.map.cols();
    Violations v;
    auto distance = [&](std::pair<Eigen::Index, Eigen::Index> p) {
        return std::abs(queryPosition(p.first, n, queries) - p.second);
    };
    for (Eigen::Index s = 0; s < dep.map.rows(); ++s)
        for (Eigen::Index t = 0; t < n; ++t) {
            if (!violates(queryPosition(s, n, queries), t)) continue;
            if (!v.worst || dep.at(s, t).worseThan(dep.at(v.worst->first, v.worst->second), rule))
                v.worst = {s, t};
            if (dep.map(s, t) && (!v.nearest || distance({s, t}) < distance(*v.nearest)))
                v.nearest = {s, t};
        }
    return v;
}

Witness BlackBoxDependencies::witness(Eigen::Index s, Eigen::Index t, int queries) const {
    const Eigen::Index position = queryPosition(s, measured_.map.cols(), queries);
    Witness w = pairWitness(measured_, s, t).with("distance", std::abs(position - t));
    if (queries > 0) w.with("query_position", position);
    return w;
}

void BlackBoxDependencies::settle(ReportBuilder& report, const Violations& v,
                                  const BlackBoxTolerance& tol, int queries) const {
    RowChange<double> worst;
    if (v.worst) worst = measured_.at(v.worst->first, v.worst->second);
    const double limit = tol.dependence(worst.magnitude);
    report.settleOn(false, ReportNumber::of(worst.largest), ReportNumber::of(limit),
                    tol.dependenceRule(), worst.largest > limit);
    if (!report.fails()) return;
    report.witness(witness(v.worst->first, v.worst->second, queries));
    if (v.nearest) report.shrunkWitness(witness(v.nearest->first, v.nearest->second, queries));
}

int blackBoxRadius(const BoolMatrix& map, Eigen::Index n, int queries) {
    if (queries <= 0) return dependencyRadius(map);
    BoolMatrix full = BoolMatrix::Constant(n, n, false);
    full.bottomRows(map.rows()) = map;
    return dependencyRadius(full);
}

} // namespace attnlab
