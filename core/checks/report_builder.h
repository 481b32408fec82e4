// SPDX-License-Identifier: GPL-3.0-or-later
// Building a property report: settling the verdict on a deviation against the precision's
// tolerance (and, for evaluations that differ only in the order of their sums, labelling the
// difference), what was checked, the witness when it fails, the explanation.
#pragma once

#include "core/checks/comparison.h"
#include "core/checks/property_report.h"

#include <string>
#include <vector>

namespace attnlab {

/// Sets verdict, exactness, deviation, tolerance and rule from `d` (fails when d.largest > tol).
template <class T>
void settle(PropertyReport& report, const Deviation<T>& d, long depth) {
    const T tol = tolerance<T>(d.magnitude, depth);
    report.exact = ScalarOps<T>::exact;
    report.maxDeviation = ReportNumber::of(d.largest);
    report.tolerance = ReportNumber::of(tol);
    report.toleranceRule = toleranceRule<T>(depth);
    report.verdict = d.largest > tol ? Verdict::Fails : Verdict::Holds;
}

/// settle() for two evaluations that are equal in exact arithmetic and differ only in the order
/// of their sums (a split into parts, a batch): also labels the difference in
/// `report.difference` (none, rounding within the tolerance, beyond rounding) with, in
/// float modes, how many ulps apart the values with the largest difference are, and returns a
/// sentence saying so for the explanation; `order` names what changes the order (e.g. "the
/// all-reduce over 2 parts").
template <class T>
std::string settleOrderOnly(PropertyReport& report, const Deviation<T>& d, long depth,
                            const std::string& order) {
    settle(report, d, depth);
    using Kind = OrderDifference::Kind;
    OrderDifference& difference = report.difference.emplace();
    difference.kind = d.largest == T(0)                  ? Kind::None
                      : report.verdict == Verdict::Holds ? Kind::Rounding
                                                         : Kind::BeyondRounding;
    if (!report.exact && report.verdict == Verdict::Holds) difference.ulps = d.ulps;
    if (d.largest == T(0)) return report.exact ? "equal exactly" : "bit-for-bit equal (0 ulps)";
    // The sentence quotes the numbers as JSON writes them ("p/q" with its quotes).
    const std::string sizes = report.maxDeviation.json().dump() +
                              (report.exact ? "" : ", " + std::to_string(d.ulps) + " ulps");
    if (report.verdict == Verdict::Holds)
        return "equal up to rounding (largest difference " + sizes + ", within the tolerance " +
               report.tolerance.json().dump() + "): " + order +
               " changes the order of the sums; this is rounding, not an error";
    return "different by more than rounding (largest difference " + sizes + ", tolerance " +
           report.tolerance.json().dump() + ")";
}

/// `parts` joined by "; " (the causes an explanation lists).
std::string joinedCauses(const std::vector<std::string>& parts);

/// A report assembled in the order a check finds things out: the verdict first (settle), then
/// what was checked and the details, the witness when it fails, and the explanation last.
class ReportBuilder {
public:
    explicit ReportBuilder(std::string name) { report_.name = std::move(name); }

    template <class T>
    ReportBuilder& settle(const Deviation<T>& d, long depth) {
        attnlab::settle(report_, d, depth);
        return *this;
    }
    /// attnlab::settleOrderOnly on the report; returns its sentence.
    template <class T>
    std::string settleOrderOnly(const Deviation<T>& d, long depth, const std::string& order) {
        return attnlab::settleOrderOnly(report_, d, depth, order);
    }
    /// Settles on a deviation and tolerance the check derives itself (e.g. relative errors):
    /// exactness, both as report values, the rule in words, and whether it fails.
    ReportBuilder& settleOn(bool exact, ReportNumber deviation, ReportNumber tolerance,
                            std::string rule, bool fails);
    /// Appends to the tolerance rule (e.g. which magnitude it scales with).
    ReportBuilder& extendToleranceRule(const std::string& more);
    /// Fails for a reason the deviation does not show (e.g. a weight that must be exactly 0).
    ReportBuilder& fail();
    bool fails() const { return report_.verdict == Verdict::Fails; }
    bool exact() const { return report_.exact; }

    ReportBuilder& checked(nlohmann::json checked);
    ReportBuilder& checked(const std::string& key, nlohmann::json value);
    ReportBuilder& details(nlohmann::json details);
    ReportBuilder& witness(Witness witness);
    ReportBuilder& shrunkWitness(std::optional<Witness> witness);
    /// The explanation: `whenHolds` or `whenFails` by the verdict.
    ReportBuilder& explain(const std::string& whenHolds, const std::string& whenFails);
    ReportBuilder& explain(std::string explanation);

    PropertyReport build() && { return std::move(report_); }

private:
    PropertyReport report_;
};

} // namespace attnlab
