// SPDX-License-Identifier: GPL-3.0-or-later
// shift-invariance: the scores with positions offset by c equal those at offset 0, for each
// offset checked.
#include "core/checks/properties/shift_invariance/shift_invariance_check.h"

#include "core/base/error.h"
#include "core/checks/check_support.h"
#include "core/checks/parameter_text.h"
#include "core/checks/properties/shared/worst_head.h"

namespace attnlab {

const CheckParameter& shiftOffsetParameter() {
    static const CheckParameter p{"offset", CheckParameter::Type::IntegerOrList, "1, 7",
                                  "(an integer or a list)"};
    return p;
}

namespace {

// The `offset` parameter: an integer or a list of them, each no farther than a scenario's own
// positions may be offset (larger ones would check float rounding of huge angles, or overflow
// the position once added to the scenario's offset).
std::vector<long> offsetsOf(const CheckRequest& request) {
    const CheckParameter& p = shiftOffsetParameter();
    const std::vector<long> offsets =
        integerList(request.params.contains(p.name) ? request.params.at(p.name)
                                                    : parameterValue(p, p.defaultValue),
                    p.name);
    for (const long c : offsets)
        if (c < -kMaxPositionOffset || c > kMaxPositionOffset)
            throw InputError(p.name, "c = " + std::to_string(c) + " is outside " +
                                         std::to_string(-kMaxPositionOffset) + ".." +
                                         std::to_string(kMaxPositionOffset) +
                                         " (as far as a scenario's positions may be offset)");
    return offsets;
}

std::string explanation(const PositionalSpec& pos, bool fails) {
    if (fails)
        return pos.isAbsolute()
                   ? "absolute positions (" + pos.describe() + ") change the scores when shifted"
                   : "the scores depend on absolute position";
    return pos.isRelative()
               ? "relative positions (" + pos.describe() + ") make scores depend only on t - s"
           : pos.kind == PositionalSpec::Kind::None
               ? "no positional information: nothing to shift"
               : "the scores did not change under the offsets checked";
}

class ShiftInvarianceCheck : public TypedCheck<ShiftInvarianceCheck> {
public:
    std::string name() const override { return "shift-invariance"; }
    std::vector<CheckParameter> parameters() const override { return {shiftOffsetParameter()}; }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const std::vector<long> offsets = offsetsOf(request);
        const CheckSetup<T> setup(request);
        const Trace<T> base = setup.model.forward(setup.tokens);
        const auto scores = [](const Trace<T>& t, std::size_t l, std::size_t h) -> auto& {
            return t.layers[l].heads[h].scores;
        };
        Deviation<T> worst;
        std::optional<Witness> witness;
        for (long c : offsets) {
            pollCancel(request);
            const Trace<T> shifted = setup.model.forward(setup.tokens, Maps::Keep, c);
            const WorstHead<T> w = worstOverHeads(base, [&](std::size_t l, std::size_t h) {
                return compareMatrices<T>(scores(shifted, l, h), scores(base, l, h));
            });
            if (!witness || w.deviation.largest > worst.largest) {
                const Eigen::Index row = w.deviation.row, col = w.deviation.col;
                witness =
                    Witness(
                        {WitnessCell::Map::Scores, int(w.layer), int(w.head), int(row), int(col)},
                        CellKeys::RowColumn)
                        .with("offset", c)
                        .with("shifted", scalarJson<T>(scores(shifted, w.layer, w.head)(row, col)))
                        .with("unshifted", scalarJson<T>(scores(base, w.layer, w.head)(row, col)));
            }
            worst.merge(w.deviation);
        }
        ReportBuilder report(name());
        report.settle(worst, setup.depth).checked({{"offsets", offsets}});
        if (report.fails()) report.witness(*witness);
        report.explain(explanation(s.model.positional, report.fails()));
        return std::move(report).build();
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeShiftInvarianceCheck() {
    return std::make_unique<ShiftInvarianceCheck>();
}

} // namespace attnlab
