// SPDX-License-Identifier: GPL-3.0-or-later
// Checking a function of sequences from the outside (properties.md §3, black boxes): the
// function (any program, or AttnLab's own model seen the same way), the plan of the sequences
// the chosen properties need, gathered from all of them and evaluated in as few calls as the
// function allows, the tolerances of a black box, and the interface of a property that can be
// measured this way. Each property's black-box form lives in its own folder beside its check.
#pragma once

#include "core/base/scalar.h"
#include "core/checks/property_check.h"
#include "core/checks/property_report.h"
#include "core/checks/report_builder.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

using Sequence = Eigen::MatrixXd; // n tokens x d features (or the outputs: rows x e)

/// A function of batches of sequences: one call takes sequences of one length and returns one
/// output each, of all their rows or of the last queries() of them (a decode step).
class SequenceFunction {
public:
    virtual ~SequenceFunction() = default;
    /// f of each sequence of `batch` (all of the same length), in one call.
    virtual std::vector<Sequence> call(const std::vector<Sequence>& batch,
                                       const std::function<bool()>& cancelled) = 0;
    /// How many sequences of n x d one call may take (at least 1).
    virtual long batchLimit(Eigen::Index n, Eigen::Index d) const = 0;
    /// The rows each output holds: the last `queries` (a decode step), or all when 0.
    virtual int queries() const { return 0; }
    /// The unit roundoff of the coarser of the function's input and output precisions, seen so
    /// far (2^-24 for float32): what its rounding is measured against.
    virtual double unitRoundoff() const = 0;
    /// In words, for the report ("float32 inputs, float16 outputs").
    virtual std::string precisionText() const = 0;
    /// Calls made so far, and sequences evaluated in them.
    long calls() const { return calls_; }
    long sequences() const { return sequences_; }

protected:
    void counted(std::size_t batchSize) {
        ++calls_;
        sequences_ += long(batchSize);
    }

private:
    long calls_ = 0, sequences_ = 0;
};

/// Where a planned sequence was evaluated: which call, its index in that call's batch, and the
/// batch's size (what batch invariance names).
struct Placement {
    int call = -1;
    long position = 0, batchSize = 0;
};

/// The sequences the chosen properties need, gathered before anything is evaluated, so that one
/// call serves all of them: handles now, outputs after evaluate().
class BlackBoxPlan {
public:
    using Handle = std::size_t;
    BlackBoxPlan(Sequence tokens, std::uint64_t seed) : tokens_(std::move(tokens)), seed_(seed) {}

    const Sequence& tokens() const { return tokens_; }
    std::uint64_t seed() const { return seed_; }
    /// The tokens themselves, planned once for every property.
    Handle baseline();
    /// A sequence the function may evaluate in any batch with others of its length.
    Handle add(Sequence x);
    /// A sequence evaluated alone, in a call of its own (a batch of one).
    Handle addAlone(Sequence x);
    /// A sequence made just before its call by `make`, whose output goes to `take` right after
    /// the call (after the outputs the plan keeps from the same call are stored) and is not kept:
    /// a sweep of thousands of sequences holds one call's worth at a time.
    void addStreamed(std::function<Sequence()> make, std::function<void(Sequence&&)> take);
    /// Evaluates what was added since the last evaluate(): the sequences of each length in as
    /// few calls as the function's batchLimit allows, in the order they were added; each alone
    /// in its own call. Checks `cancelled` between calls.
    /// `progress(done, calls, sequences)` after each call, when given.
    void evaluate(SequenceFunction& f, const std::function<bool()>& cancelled,
                  const std::function<void(int, int, long)>& progress = {});

    const Sequence& output(Handle h) const { return entries_.at(h).output; }
    const Placement& placement(Handle h) const { return entries_.at(h).placement; }

    /// Something several properties share (the dependency sweep), made once by `make`.
    template <class Shared, class Make>
    std::shared_ptr<Shared> shared(const std::string& key, Make&& make) {
        auto& slot = shared_[key];
        if (!slot) slot = std::shared_ptr<Shared>(make());
        return std::static_pointer_cast<Shared>(slot);
    }

private:
    struct Entry {
        Sequence input, output;
        std::function<Sequence()> make;       // streamed: makes the input
        std::function<void(Sequence&&)> take; // streamed: takes the output
        bool alone = false, evaluated = false;
        Placement placement;
    };
    Sequence tokens_;
    std::uint64_t seed_;
    std::optional<Handle> baseline_;
    std::vector<Entry> entries_;
    int calls_ = 0;
    std::map<std::string, std::shared_ptr<void>> shared_;
};

/// How a black box's results are compared (properties.md §3): equality up to the rounding of its
/// precision (16·ε·(n + d)·max(1, |value|), or the user's fixed tolerance), and dependence: an
/// output row "moves" when it changes by more than 64·ε·max(1, |row|). A perturbation moves a
/// token by about max(1, max |X|) per feature, far above that; rows a change cannot reach are
/// recomputed by the same arithmetic and do not move at all.
struct BlackBoxTolerance {
    double unitRoundoff = 0x1.0p-24;
    long depth = 1; // n + d
    std::optional<double> fixed;
    std::string precision; // SequenceFunction::precisionText

    double equality(double magnitude) const;
    /// How far `d` is beyond (above 1) or within its equality tolerance: which of several
    /// comparisons is the worst.
    double equalityRatio(const Deviation<double>& d) const;
    /// Settles `report` on `worst`, the worst comparison of evaluations that must agree: its
    /// deviation, its equality tolerance and rule; fails beyond it, or when `failsAnyway`.
    void settleEquality(ReportBuilder& report, const Deviation<double>& worst,
                        bool failsAnyway = false) const;
    double dependence(double magnitude) const;
    std::string equalityRule() const;
    std::string dependenceRule() const;
};

/// What a black-box property is asked.
struct BlackBoxRequest {
    nlohmann::json params = nlohmann::json::object();
    /// The mask the user meant (true: query s may read key t), n x n; its last queries() rows
    /// are a decode step's. None: not given.
    std::optional<BoolMatrix> intendedMask;
    std::string intendedMaskText; // how it was given, for reports
    int queries = 0;              // a decode step's query rows; 0: all rows
    BlackBoxTolerance tolerance;
    std::function<bool()> cancelled;
    SequenceFunction* function = nullptr; // for follow-up calls (shrinking)
};

/// A property's analysis once its sequences are evaluated.
class BlackBoxAnalysis {
public:
    virtual ~BlackBoxAnalysis() = default;
    /// The report; may evaluate more (smaller) sequences through request.function to shrink a
    /// witness.
    virtual PropertyReport report(const BlackBoxPlan& plan, const BlackBoxRequest& request) = 0;
};

/// A property measurable on a black box (properties.md §3: 2.1-2.4, 2.11, 2.16, 2.17).
class BlackBoxProperty {
public:
    virtual ~BlackBoxProperty() = default;
    virtual std::string name() const = 0;
    virtual std::vector<CheckParameter> parameters() const { return {}; }
    /// Its section of properties.md ("2.17") when only a black box is checked for it; empty for
    /// a unit's black-box form, whose unit says.
    virtual std::string section() const { return {}; }
    /// Why it cannot be measured with this request (a decode step, no intended mask); nullopt
    /// when it can.
    virtual std::optional<std::string> notApplicable(const BlackBoxRequest&) const { return {}; }
    /// Adds the sequences it needs to `plan` and returns what reads their outputs.
    virtual std::unique_ptr<BlackBoxAnalysis> plan(BlackBoxPlan& plan,
                                                   const BlackBoxRequest& request) const = 0;
};

/// Refuses parameters a property does not declare, naming them (InputError).
void refuseUndeclared(const BlackBoxProperty& property, const nlohmann::json& params);

/// The queries' rows of a square map over n tokens: its last `queries` rows (all when 0).
BoolMatrix queryRows(const BoolMatrix& map, int queries);
/// The position among the n tokens of output row `row` of a call answering `queries` rows.
inline Eigen::Index queryPosition(Eigen::Index row, Eigen::Index n, int queries) {
    return queries > 0 ? n - queries + row : row;
}

} // namespace attnlab
