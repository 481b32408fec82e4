// SPDX-License-Identifier: GPL-3.0-or-later
// The black-box plan's evaluation in few calls, and a black box's tolerances (black_box.h).
#include "core/checks/black_box.h"

#include "core/base/error.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

BlackBoxPlan::Handle BlackBoxPlan::baseline() {
    if (!baseline_) baseline_ = add(tokens_);
    return *baseline_;
}

BlackBoxPlan::Handle BlackBoxPlan::add(Sequence x) {
    entries_.push_back({.input = std::move(x)});
    return entries_.size() - 1;
}

BlackBoxPlan::Handle BlackBoxPlan::addAlone(Sequence x) {
    entries_.push_back({.input = std::move(x), .alone = true});
    return entries_.size() - 1;
}

void BlackBoxPlan::addStreamed(std::function<Sequence()> make,
                               std::function<void(Sequence&&)> take) {
    const Eigen::Index n = tokens_.rows();
    // Its length and width are the tokens'; the input is made when its call is.
    entries_.push_back({.input = Sequence(n, 0), .make = std::move(make), .take = std::move(take)});
}

void BlackBoxPlan::evaluate(SequenceFunction& f, const std::function<bool()>& cancelled,
                            const std::function<void(int, int, long)>& progress) {
    // The calls: the batchable sequences grouped by length (in the order lengths first appear),
    // each group cut at the function's limit; then each sequence to be evaluated alone.
    std::vector<std::vector<Handle>> calls;
    std::map<Eigen::Index, std::size_t> open; // length -> the call being filled
    for (Handle h = 0; h < entries_.size(); ++h) {
        const Entry& e = entries_[h];
        if (e.evaluated) continue;
        if (e.alone) {
            calls.push_back({h});
            continue;
        }
        const Eigen::Index n = e.input.rows();
        const long limit = std::max(1L, f.batchLimit(n, tokens_.cols()));
        auto at = open.find(n);
        if (at == open.end() || long(calls[at->second].size()) >= limit) {
            calls.emplace_back();
            at = open.insert_or_assign(n, calls.size() - 1).first;
        }
        calls[at->second].push_back(h);
    }
    long sequences = 0;
    for (const std::vector<Handle>& call : calls)
        sequences += long(call.size());
    int done = 0;
    for (const std::vector<Handle>& call : calls) {
        if (cancelled && cancelled()) throw CancelledError();
        // The inputs move into the batch: nothing reads them once evaluated.
        std::vector<Sequence> batch;
        batch.reserve(call.size());
        for (Handle h : call) {
            Entry& e = entries_[h];
            batch.push_back(e.make ? e.make() : std::move(e.input));
            e.input = Sequence();
        }
        std::vector<Sequence> outputs = f.call(batch, cancelled);
        batch.clear();
        for (std::size_t i = 0; i < call.size(); ++i) {
            Entry& e = entries_[call[i]];
            if (!e.take) e.output = std::move(outputs.at(i));
            e.evaluated = true;
            e.placement = {calls_, long(i), long(call.size())};
        }
        for (std::size_t i = 0; i < call.size(); ++i) {
            Entry& e = entries_[call[i]];
            if (!e.take) continue;
            e.take(std::move(outputs[i]));
            e.make = {};
            e.take = {};
        }
        ++calls_;
        if (progress) progress(++done, int(calls.size()), sequences);
    }
}

double BlackBoxTolerance::equality(double magnitude) const {
    return fixed ? *fixed : 16.0 * unitRoundoff * double(depth) * std::max(1.0, magnitude);
}

double BlackBoxTolerance::equalityRatio(const Deviation<double>& d) const {
    return d.largest / equality(d.magnitude);
}

void BlackBoxTolerance::settleEquality(ReportBuilder& report, const Deviation<double>& worst,
                                       bool failsAnyway) const {
    const double limit = equality(worst.magnitude);
    report.settleOn(false, ReportNumber::of(worst.largest), ReportNumber::of(limit), equalityRule(),
                    failsAnyway || worst.largest > limit);
}

double BlackBoxTolerance::dependence(double magnitude) const {
    return fixed ? *fixed : 64.0 * unitRoundoff * std::max(1.0, magnitude);
}

namespace {
// "ε = 2^-24 (float32 inputs and outputs)"
std::string epsilonText(double u, const std::string& precision) {
    const int exponent = int(std::lround(std::log2(u)));
    return "ε = 2^" + std::to_string(exponent) + (precision.empty() ? "" : " (" + precision + ")");
}
} // namespace

std::string BlackBoxTolerance::equalityRule() const {
    if (fixed) return "the fixed tolerance given (--tolerance)";
    return "16·ε·(n + d)·max(1, |value|) with " + epsilonText(unitRoundoff, precision) +
           ", n + d = " + std::to_string(depth);
}

std::string BlackBoxTolerance::dependenceRule() const {
    if (fixed) return "an output row moves when it changes by more than the fixed tolerance";
    return "an output row moves when it changes by more than 64·ε·max(1, |row|) with " +
           epsilonText(unitRoundoff, precision);
}

void refuseUndeclared(const BlackBoxProperty& property, const nlohmann::json& params) {
    const auto declared = property.parameters();
    for (const auto& item : params.items()) {
        const std::string key = item.key();
        if (std::none_of(declared.begin(), declared.end(),
                         [&](const CheckParameter& p) { return p.name == key; }))
            throw InputError(property.name() + ": unknown parameter '" + key + "'" +
                             (declared.empty() ? " (it takes none)" : ""));
    }
}

BoolMatrix queryRows(const BoolMatrix& map, int queries) {
    return queries > 0 ? BoolMatrix(map.bottomRows(queries)) : map;
}

} // namespace attnlab
