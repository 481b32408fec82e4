// Checks read off the per-head maps of one forward pass: row-sums (weights of softmax and
// softmax_like rows sum to 1), logit-symmetry (S = Sᵀ per layer and head, explained by Wq·Wkᵀ and
// the bias), and shift-invariance (scores with positions offset by c equal those at offset 0).
#include "core/base/error.h"
#include "core/base/precision_dispatch.h"
#include "core/checks/check_factories.h"
#include "core/checks/check_support.h"

#include <algorithm>

namespace attnlab {

namespace {

std::string at(std::size_t layer, std::size_t head) {
    return "layer " + std::to_string(layer) + " head " + std::to_string(head);
}

// The worst of compare(layer, head) over every head of every layer of `trace` and where it is;
// a comparison whose row is -1 (a skipped head) counts for nothing.
template <class T>
struct WorstHead {
    Deviation<T> deviation;
    std::size_t layer = 0, head = 0;
    bool found() const { return deviation.row >= 0; }
};

template <class T, class Compare>
WorstHead<T> worstOverHeads(const Trace<T>& trace, Compare&& compare) {
    WorstHead<T> worst;
    for (std::size_t l = 0; l < trace.layers.size(); ++l)
        for (std::size_t h = 0; h < trace.layers[l].heads.size(); ++h) {
            const Deviation<T> d = compare(l, h);
            if (d.row >= 0 && (!worst.found() || d.largest > worst.deviation.largest)) {
                worst.layer = l;
                worst.head = h;
            }
            worst.deviation.merge(d);
        }
    return worst;
}

class RowSumsCheck : public PropertyCheck {
public:
    std::string name() const override { return "row-sums"; }
    std::string parameters() const override { return "(none)"; }
    PropertyReport run(const CheckRequest& request) const override {
        expectParams(request, {});
        const Scenario& s = request.scenario;
        std::vector<std::size_t> layers;
        for (std::size_t l = 0; l < s.model.layers.size(); ++l) {
            const auto kind = s.model.layers[l].mixer.kind;
            if (kind == MixerSpec::Kind::Softmax || kind == MixerSpec::Kind::SoftmaxLike)
                layers.push_back(l);
        }
        if (layers.empty())
            return notApplicable(name(), "rows sum to 1 only for softmax and softmax_like; these "
                                         "layers use raw or ssm mixers");
        return withScalar(s.precision, [&]<class T>() {
            const CheckSetup<T> setup(s);
            const Trace<T> trace = setup.model.forward(setup.tokens);
            PropertyReport report;
            report.name = name();
            long rows = 0;
            const WorstHead<T> worst = worstOverHeads(trace, [&](std::size_t l, std::size_t h) {
                if (std::find(layers.begin(), layers.end(), l) == layers.end())
                    return Deviation<T>{};
                const Matrix<T>& w = trace.layers[l].heads[h].weights;
                const BoolMatrix mask = buildMask(s.model.layers[l].mask, s.n());
                Matrix<T> sums = w.rowwise().sum(), ones = Matrix<T>::Ones(w.rows(), 1);
                for (Eigen::Index i = 0; i < w.rows(); ++i)
                    if (!mask.row(i).any())
                        sums(i, 0) = ones(i, 0) = T(0); // all-masked: 0 by design
                    else
                        ++rows;
                return compareMatrices<T>(sums, ones);
            });
            const std::string where =
                at(worst.layer, worst.head) + " row " + std::to_string(worst.deviation.row);
            settle(report, worst.deviation, setup.depth);
            report.checked = {{"rows", rows}, {"layers", layers}};
            if (report.verdict == Verdict::Fails) report.witness = {{"where", where}};
            report.explanation =
                report.verdict == Verdict::Holds
                    ? "every row with an allowed key sums to 1 (all-masked rows are 0 by design)"
                    : "a row does not sum to 1 at " + where;
            return report;
        });
    }
};

class LogitSymmetryCheck : public PropertyCheck {
public:
    std::string name() const override { return "logit-symmetry"; }
    std::string parameters() const override { return "(none; per layer and head)"; }
    PropertyReport run(const CheckRequest& request) const override {
        expectParams(request, {});
        const Scenario& s = request.scenario;
        return withScalar(s.precision, [&]<class T>() {
            const CheckSetup<T> setup(s);
            const Trace<T> trace = setup.model.forward(setup.tokens);
            PropertyReport report;
            report.name = name();
            nlohmann::json perHead = nlohmann::json::array();
            std::vector<std::string> causes;
            const WorstHead<T> worst = worstOverHeads(trace, [&](std::size_t l, std::size_t h) {
                const LayerWeights<T>& w = setup.model.weights(l);
                const auto p = w.wq.cols() / s.model.layers[l].heads;
                const Matrix<T>& scores = trace.layers[l].heads[h].scores;
                const Deviation<T> d = compareMatrices<T>(scores, scores.transpose());
                const Matrix<T> form = w.wq.middleCols(Eigen::Index(h) * p, p) *
                                       w.wk.middleCols(Eigen::Index(h) * p, p).transpose();
                const bool formSymmetric =
                    compareMatrices<T>(form, form.transpose()).largest == T(0);
                perHead.push_back({{"layer", l},
                                   {"head", h},
                                   {"deviation", scalarJson<T>(d.largest)},
                                   {"wq_wk_symmetric", formSymmetric}});
                if (!formSymmetric) causes.push_back(at(l, h) + ": Wq·Wkᵀ is not symmetric");
                return d;
            });
            const std::string worstAt = at(worst.layer, worst.head);
            const PositionalSpec& pos = s.model.positional;
            if (pos.kind == PositionalSpec::Kind::Alibi && pos.causal)
                causes.push_back("the causal ALiBi bias -m·(s - t) is antisymmetric");
            if (pos.kind == PositionalSpec::Kind::Rope)
                causes.push_back(
                    "RoPE rotates q and k by different angles (the logit depends on j - i)");
            settle(report, worst.deviation, setup.depth);
            report.checked = {{"heads", perHead.size()}};
            report.details = {{"per_head", perHead}};
            std::string why;
            for (const auto& c : causes)
                why += (why.empty() ? "" : "; ") + c;
            if (report.verdict == Verdict::Fails) {
                report.witness = {{"where", worstAt},
                                  {"row", worst.deviation.row},
                                  {"column", worst.deviation.col}};
                report.explanation = why.empty() ? "S is not symmetric at " + worstAt : why;
            } else {
                report.explanation = why.empty()
                                         ? "S = Sᵀ in every head: Wq·Wkᵀ and the bias are symmetric"
                                         : "S = Sᵀ on these inputs, although in general: " + why;
            }
            return report;
        });
    }
};

class ShiftInvarianceCheck : public PropertyCheck {
public:
    std::string name() const override { return "shift-invariance"; }
    std::string parameters() const override { return "offset [1, 7] (an integer or a list)"; }
    PropertyReport run(const CheckRequest& request) const override {
        expectParams(request, {"offset"});
        const Scenario& s = request.scenario;
        std::vector<long> offsets = {1, 7};
        if (request.params.contains("offset")) {
            const auto& o = request.params.at("offset");
            offsets.clear();
            for (const auto& v : o.is_array() ? o : nlohmann::json::array({o})) {
                if (!v.is_number_integer())
                    throw InputError("offset: must be an integer or a list of integers");
                offsets.push_back(v.get<long>());
            }
        }
        return withScalar(s.precision, [&]<class T>() {
            const CheckSetup<T> setup(s);
            const Trace<T> base = setup.model.forward(setup.tokens);
            PropertyReport report;
            report.name = name();
            Deviation<T> worst;
            nlohmann::json witness;
            for (long c : offsets) {
                pollCancel(request);
                const Trace<T> shifted = setup.model.forward(setup.tokens, Maps::Keep, c);
                const auto scores = [](const Trace<T>& t, std::size_t l, std::size_t h) -> auto& {
                    return t.layers[l].heads[h].scores;
                };
                const WorstHead<T> w = worstOverHeads(base, [&](std::size_t l, std::size_t h) {
                    return compareMatrices<T>(scores(shifted, l, h), scores(base, l, h));
                });
                if (witness.is_null() || w.deviation.largest > worst.largest) {
                    const Eigen::Index row = w.deviation.row, col = w.deviation.col;
                    witness = {
                        {"offset", c},
                        {"layer", w.layer},
                        {"head", w.head},
                        {"row", row},
                        {"column", col},
                        {"shifted", scalarJson<T>(scores(shifted, w.layer, w.head)(row, col))},
                        {"unshifted", scalarJson<T>(scores(base, w.layer, w.head)(row, col))}};
                }
                worst.merge(w.deviation);
            }
            settle(report, worst, setup.depth);
            report.checked = {{"offsets", offsets}};
            const PositionalSpec& pos = s.model.positional;
            if (report.verdict == Verdict::Fails) {
                report.witness = witness;
                report.explanation = pos.isAbsolute() ? "absolute positions (" + pos.describe() +
                                                            ") change the scores when shifted"
                                                      : "the scores depend on absolute position";
            } else {
                report.explanation = pos.isRelative() ? "relative positions (" + pos.describe() +
                                                            ") make scores depend only on t - s"
                                     : pos.kind == PositionalSpec::Kind::None
                                         ? "no positional information: nothing to shift"
                                         : "the scores did not change under the offsets checked";
            }
            return report;
        });
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeRowSumsCheck() {
    return std::make_unique<RowSumsCheck>();
}
std::unique_ptr<PropertyCheck> makeLogitSymmetryCheck() {
    return std::make_unique<LogitSymmetryCheck>();
}
std::unique_ptr<PropertyCheck> makeShiftInvarianceCheck() {
    return std::make_unique<ShiftInvarianceCheck>();
}

} // namespace attnlab
