// SPDX-License-Identifier: GPL-3.0-or-later
// Computing the original and transformed sides of a scenario and their difference for drawing.
#include "core/explore/side_by_side.h"

#include "core/backend/cpu/pooled_map.h"
#include "core/base/error.h"
#include "core/base/precision_dispatch.h"
#include "core/checks/check_support.h"
#include "core/explore/decode_transform.h"
#include "core/explore/resource_limits.h"
#include "core/explore/run_report.h"
#include "core/model/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab {

std::string ViewMatrix::text(Eigen::Index row, Eigen::Index col) const {
    if (!exactText.empty()) return exactText[std::size_t(row * values.cols() + col)];
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", values(row, col));
    return buffer;
}

namespace {

/// Each cell keeps the entry of largest magnitude in its block, so peaks of either sign survive
/// pooling. Exact maps are pooled from their float64 values.
template <class T>
ViewMatrix pooled(const Matrix<T>& m) {
    ViewMatrix v;
    v.rowBlock = int((m.rows() + kViewLimit - 1) / kViewLimit);
    v.colBlock = int((m.cols() + kViewLimit - 1) / kViewLimit);
    if constexpr (ScalarOps<T>::exact)
        v.values = kernels::maxPool<double>(toDoubleMatrix(m), kViewLimit, kViewLimit,
                                            kernels::PoolBy::Magnitude);
    else
        v.values = toDoubleMatrix(
            kernels::maxPool<T>(m, kViewLimit, kViewLimit, kernels::PoolBy::Magnitude));
    return v;
}

} // namespace

template <class T>
ViewMatrix view(const Matrix<T>& m) {
    if (m.rows() > kViewLimit || m.cols() > kViewLimit) return pooled(m);
    ViewMatrix v{toDoubleMatrix(m), {}, 1, 1};
    if constexpr (ScalarOps<T>::exact) {
        v.exactText.reserve(std::size_t(m.size()));
        for (Eigen::Index i = 0; i < m.rows(); ++i)
            for (Eigen::Index j = 0; j < m.cols(); ++j)
                v.exactText.push_back(rationalText(m(i, j)));
    }
    return v;
}

template ViewMatrix view<float>(const Matrix<float>&);
template ViewMatrix view<double>(const Matrix<double>&);
template ViewMatrix view<Rational>(const Matrix<Rational>&);

namespace {

template <class T>
SideView sideView(const Trace<T>& trace, std::vector<std::string> labels) {
    SideView side{view(trace.input), {}, view(trace.output), std::move(labels), {}, {}};
    for (const LayerTrace<T>& layer : trace.layers)
        side.layers.push_back({view(layer.output)});
    return side;
}

/// How the original side is carried over to compare with the transformed one: P_σ on rows and
/// P_σ·A·P_σᵀ on maps for a permutation, the last m rows of both for a decode step of m
/// queries, unchanged for a shift or a perturbation.
struct Carry {
    std::optional<Permutation> sigma;
    int lastRows = 0;        // > 0: a decode step of this many queries
    bool transposed = false; // the transformed side shows the original's maps transposed
    template <class T>
    Matrix<T> rows(const Matrix<T>& m) const {
        return sigma ? sigma->applyRows(m) : lastRows ? Matrix<T>(m.bottomRows(lastRows)) : m;
    }
    template <class T>
    Matrix<T> map(const Matrix<T>& m) const {
        return sigma ? sigma->applyBoth(m) : rows(m);
    }
    /// A map of the transformed side as drawn: transposed when comparing S with Sᵀ.
    template <class T>
    Matrix<T> shown(const Matrix<T>& m) const {
        return transposed ? Matrix<T>(m.transpose()) : m;
    }
    /// Token labels in the transformed order (row i of P X is row σ(i) of X); a decode step's
    /// are the last m tokens' (their indices when the tokens have no labels).
    std::vector<std::string> labels(const std::vector<std::string>& original, int n) const {
        if (lastRows) {
            const std::vector<std::string> all = keyLabels(original, n);
            return {all.end() - lastRows, all.end()};
        }
        if (!sigma || original.size() != std::size_t(sigma->size())) return original;
        std::vector<std::string> out(original.size());
        for (int i = 0; i < sigma->size(); ++i)
            out[std::size_t(i)] = original[std::size_t((*sigma)(i))];
        return out;
    }
    /// carriedRows of SideBySide: the original's row behind each transformed row (empty: the
    /// same).
    std::vector<int> carriedRows(int n) const {
        if (sigma) return sigma->images();
        std::vector<int> rows;
        for (int r = 0; r < lastRows; ++r)
            rows.push_back(n - lastRows + r);
        return rows;
    }
    /// The labels of the transformed side's keys when they are not its rows' (a decode step:
    /// every token's, indices when the tokens have none), else empty.
    std::vector<std::string> keyLabels(const std::vector<std::string>& original, int n) const {
        if (!lastRows) return {};
        if (!original.empty()) return original;
        std::vector<std::string> indices;
        for (int i = 0; i < n; ++i)
            indices.push_back(std::to_string(i));
        return indices;
    }
};

/// The view of a - b, with the tolerance a check allows for values as large as theirs after
/// `depth` accumulations (comparison.h; 0 in exact mode).
template <class T>
ViewMatrix differenceOf(const Matrix<T>& a, const Matrix<T>& b, long depth) {
    ViewMatrix v = view<T>(a - b);
    if constexpr (!ScalarOps<T>::exact) {
        const T magnitude = std::max(a.size() ? a.cwiseAbs().maxCoeff() : T(0),
                                     b.size() ? b.cwiseAbs().maxCoeff() : T(0));
        v.tolerance = double(tolerance<T>(magnitude, depth));
    }
    return v;
}

template <class T>
SideView differenceView(const Trace<T>& original, const Trace<T>& transformed, const Carry& c,
                        const std::vector<std::string>& labels, long depth) {
    const int n = int(original.input.rows());
    SideView side{differenceOf<T>(transformed.input, c.rows(original.input), depth),
                  {},
                  differenceOf<T>(transformed.output, c.rows(original.output), depth),
                  c.labels(labels, n),
                  c.keyLabels(labels, n),
                  {}};
    for (std::size_t l = 0; l < original.layers.size(); ++l)
        side.layers.push_back({differenceOf<T>(transformed.layers[l].output,
                                               c.rows(original.layers[l].output), depth)});
    return side;
}

/// The per-head maps of an original and a transformed trace (the same trace when the
/// transformation changes nothing), the difference made per head as it is drawn.
template <class T>
class TraceMaps final : public HeadMaps {
public:
    TraceMaps(std::shared_ptr<const Trace<T>> original, std::shared_ptr<const Trace<T>> transformed,
              Carry carry, long depth)
        : original_(std::move(original)), transformed_(std::move(transformed)),
          carry_(std::move(carry)), depth_(depth) {}

    std::size_t layerCount() const override { return original_->layers.size(); }
    int headCount(std::size_t layer) const override {
        return int(original_->layers.at(layer).heads.size());
    }
    HeadView head(Side side, std::size_t layer, int h) const override {
        return {map(side, layer, h, &HeadTrace<T>::scores),
                map(side, layer, h, &HeadTrace<T>::weights)};
    }
    ViewMatrix weights(Side side, std::size_t layer, int h) const override {
        return map(side, layer, h, &HeadTrace<T>::weights);
    }

private:
    ViewMatrix map(Side side, std::size_t layer, int h, Matrix<T> HeadTrace<T>::*which) const {
        const auto of = [&](const Trace<T>& t) -> const Matrix<T>& {
            return t.layers.at(layer).heads.at(std::size_t(h)).*which;
        };
        if (side != Side::Original && transformed_->layers.at(layer).heads.empty())
            return {}; // evaluated without forming maps (e.g. tiled): outputs only
        switch (side) {
        case Side::Original:
            return view<T>(of(*original_));
        case Side::Transformed:
            return view<T>(carry_.shown(of(*transformed_)));
        case Side::Difference:
            break;
        }
        return differenceOf<T>(carry_.shown(of(*transformed_)), carry_.map(of(*original_)), depth_);
    }

    std::shared_ptr<const Trace<T>> original_, transformed_;
    Carry carry_;
    long depth_; // behind the difference's tolerance
};

template <class T>
T largestMagnitude(const Matrix<T>& diff) {
    T largest = T(0);
    for (Eigen::Index i = 0; i < diff.size(); ++i)
        largest = std::max<T>(largest, diff(i) < T(0) ? T(-diff(i)) : T(diff(i)));
    return largest;
}

template <class T>
std::string magnitudeText(const T& largest) {
    if constexpr (ScalarOps<T>::exact) {
        return rationalText(largest);
    } else {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.3g", double(largest));
        return buffer;
    }
}

void checkTransform(const Transform& t, const Scenario& s) {
    if (t.kind != Transform::Kind::Perturbation) return;
    if (t.token < 0 || t.token >= s.n())
        throw InputError("transform.token", "token " + std::to_string(t.token) + " is outside 0.." +
                                                std::to_string(s.n() - 1));
    if (t.feature < 0 || t.feature >= s.d())
        throw InputError("transform.feature", "feature " + std::to_string(t.feature) +
                                                  " is outside 0.." + std::to_string(s.d() - 1));
}

/// What every comparison adds once its sides are made: the masks, the warnings and notices, the
/// backend, the per-head maps and the cost of exact mode.
template <class T>
void finish(SideBySide& out, const Scenario& s, const Model<T>& model,
            std::shared_ptr<const Trace<T>> original, std::shared_ptr<const Trace<T>> transformed,
            Carry carry) {
    out.positional = s.model.positional;
    out.tokenWidth = s.d();
    for (std::size_t l = 0; l < model.layerCount(); ++l)
        out.headWidths.push_back(int(model.weights(l).wq.cols()) / s.model.layers[l].heads);
    for (const LayerSpec& layer : s.model.layers) {
        BoolMatrix mask = buildMask(layer.mask, s.n());
        out.maskedRows.push_back(allMaskedRows(mask));
        out.masks.push_back(s.n() <= kViewLimit ? std::move(mask) : BoolMatrix());
    }
    out.warnings.insert(out.warnings.begin(), original->warnings.begin(), original->warnings.end());
    out.warnings.insert(out.warnings.end(), original->notices.begin(), original->notices.end());
    out.backend = traceBackendJson(*original, s.backend);
    out.maps = std::make_shared<const TraceMaps<T>>(std::move(original), std::move(transformed),
                                                    std::move(carry), accumulationDepth(s));
    if (auto warning = exactCostWarning(s)) out.warnings.push_back(*warning);
}

/// The three sides of an original and a transformed trace compared through `carry`.
template <class T>
void assemble(SideBySide& out, const Scenario& s, const Model<T>& model,
              std::shared_ptr<const Trace<T>> original, std::shared_ptr<const Trace<T>> transformed,
              Carry carry) {
    out.original = sideView(*original, s.tokens.labels);
    out.transformed = sideView(*transformed, carry.labels(s.tokens.labels, s.n()));
    out.transformed.keyLabels = carry.keyLabels(s.tokens.labels, s.n());
    out.difference =
        differenceView(*original, *transformed, carry, s.tokens.labels, accumulationDepth(s));
    out.largestDifference =
        magnitudeText(largestMagnitude<T>(transformed->output - carry.rows(original->output)));
    out.carriedRows = carry.carriedRows(s.n());
    out.carriedKeys = carry.sigma.has_value();
    out.witnessRowsOriginal = carry.lastRows > 0;
    finish(out, s, model, std::move(original), std::move(transformed), std::move(carry));
}

template <class T>
SideBySide compute(const Scenario& s, const Transform& t) {
    checkTransform(t, s);
    checkMapMemory(s, 2);
    const Model<T> model(s.model, s.d(), s.backend);
    const Matrix<T> x = s.tokens.materialize<T>();
    const auto original = std::make_shared<const Trace<T>>(model.forward(x));
    const Permutation sigma = s.permutation.resolve(s.n());

    SideBySide out;
    out.precision = s.precision;
    std::shared_ptr<const Trace<T>> transformed;
    const auto forward = [&](auto&&... args) {
        return std::make_shared<const Trace<T>>(model.forward(args...));
    };
    Carry carry;
    switch (t.kind) {
    case Transform::Kind::Permutation:
        // The identity σ (no permutation set yet) transforms nothing: one forward serves both.
        transformed = sigma.isIdentity() ? original : forward(sigma.applyRows(x));
        carry.sigma = sigma;
        out.transformedLabel = "f(P X)";
        out.transformText = "σ = " + sigma.cycles();
        out.differenceLabel = "f(P X) − P f(X)";
        break;
    case Transform::Kind::Shift:
        transformed = forward(x, Maps::Keep, t.shift);
        out.transformedLabel = "f(X), positions + " + std::to_string(t.shift);
        out.differenceLabel = "shifted − unshifted";
        out.transformText = t.describe();
        break;
    case Transform::Kind::Decode: {
        const DecodeStep step = decodeStepOf(t);
        transformed = std::make_shared<const Trace<T>>(decode(model, x, step));
        carry.lastRows = step.queries;
        out.transformedMasks = decodeMasks(s, step, kViewLimit);
        const std::string m = std::to_string(step.queries),
                          c = std::to_string(s.n() - step.queries);
        // Short enough for a column title at 1600 px: "decode 4 of 6, top-left".
        out.transformedLabel = "decode " + m + " of " + std::to_string(s.n()) + ", " +
                               (t.maskFile.empty() ? alignmentName(t.alignment) : "mask file");
        out.differenceLabel = "decode − f(X) rows " + c + ".." + std::to_string(s.n() - 1);
        out.transformText = t.describe(s.n());
        for (const std::string& w : transformed->warnings)
            out.warnings.push_back("decode: " + w);
        break;
    }
    case Transform::Kind::Perturbation: {
        Matrix<T> xp = x;
        xp(t.token, t.feature) += ScalarOps<T>::fromRational(t.delta);
        transformed = forward(xp);
        out.transformedLabel = "f(X'), " + t.describe();
        out.differenceLabel = "f(X') − f(X)";
        out.transformText = t.describe();
        break;
    }
    }
    assemble(out, s, model, std::move(original), std::move(transformed), std::move(carry));
    return out;
}

/// The scenario's tokens `x` evaluated as `e` says, on `scenarioModel` unless `e` names another.
template <class T>
std::shared_ptr<const Trace<T>> evaluated(const Scenario& s, const Model<T>& scenarioModel,
                                          const Matrix<T>& x, const Evaluated& e, Maps maps) {
    std::optional<Model<T>> own;
    if (e.model) own.emplace(*e.model, s.d(), s.backend);
    const Model<T>& model = own ? *own : scenarioModel;
    if (e.batchMates.empty() && e.how == Evaluation{})
        return std::make_shared<const Trace<T>>(model.forward(x, maps));
    std::vector<Matrix<T>> batch{x};
    for (const TokenSpec& mate : e.batchMates)
        batch.push_back(mate.materialize<T>());
    return std::make_shared<const Trace<T>>(
        std::move(model.forwardBatch(batch, maps, e.how).front()));
}

/// The scenario's tokens evaluated as `original` says beside the same tokens evaluated as `other`.
template <class T>
SideBySide computeEvaluations(const Scenario& s, const Evaluated& original,
                              const Evaluated& other) {
    checkMapMemory(s, int(1 + original.batchMates.size()) +
                          (other.maps ? int(1 + other.batchMates.size()) : 0));
    const Matrix<T> x = s.tokens.materialize<T>();
    const Model<T> model(s.model, s.d(), s.backend);
    auto first = evaluated(s, model, x, original, Maps::Keep);
    auto second = evaluated(s, model, x, other, other.maps ? Maps::Keep : Maps::Drop);
    SideBySide out;
    out.precision = s.precision;
    for (const std::string& w : second->warnings)
        out.warnings.push_back(w);
    assemble(out, s, model, std::move(first), std::move(second), Carry());
    if (!other.maps)
        out.transformed.emptyNote = out.difference.emptyNote = "outputs only: no maps formed";
    return out;
}

/// S beside Sᵀ: one forward, whose maps the transformed side shows transposed (the masks too)
/// and the difference as Sᵀ − S (Aᵀ − A); the outputs have no transposed counterpart and stay
/// empty.
template <class T>
SideBySide computeTransposed(const Scenario& s) {
    checkMapMemory(s, 1);
    const Model<T> model(s.model, s.d(), s.backend);
    const auto original =
        std::make_shared<const Trace<T>>(model.forward(s.tokens.materialize<T>()));
    SideBySide out;
    out.precision = s.precision;
    out.original = sideView(*original, s.tokens.labels);
    const SideView none{{}, std::vector<LayerView>(original->layers.size()),
                        {}, s.tokens.labels,
                        {}, "no output: S and A only"};
    out.transformed = out.difference = none;
    out.transformedLabel = "transposed";
    out.differenceLabel = "transposed − f(X)";
    out.transformText = "S beside its transpose Sᵀ, every layer and head";
    T largest = T(0);
    for (const LayerTrace<T>& layer : original->layers)
        for (const HeadTrace<T>& head : layer.heads)
            largest = std::max<T>(
                largest, largestMagnitude<T>(Matrix<T>(head.scores.transpose()) - head.scores));
    out.largestDifference = magnitudeText(largest);
    Carry carry;
    carry.transposed = true;
    finish(out, s, model, original, original, std::move(carry));
    for (const BoolMatrix& mask : out.masks)
        out.transformedMasks.push_back(mask.transpose());
    return out;
}

} // namespace

SideBySide compareSides(const Scenario& scenario, const Transform& transform) {
    return withScalar(scenario.precision,
                      [&]<class T>() { return compute<T>(scenario, transform); });
}

SideBySide compareEvaluations(const Scenario& scenario, const Evaluated& original,
                              const Evaluated& other) {
    return withScalar(scenario.precision,
                      [&]<class T>() { return computeEvaluations<T>(scenario, original, other); });
}

std::array<std::optional<MapCell>, 3> SideBySide::witnessCells(MapCell cell, bool onMap) const {
    const auto carried = [&](int i) {
        return carriedRows.empty() || i < 0 || i >= int(carriedRows.size())
                   ? i
                   : carriedRows[std::size_t(i)];
    };
    std::optional<MapCell> original = cell, transformed = cell;
    if (witnessRowsOriginal) { // the transformed row whose original is the witness's
        const auto at = std::find(carriedRows.begin(), carriedRows.end(), cell.row);
        transformed = at == carriedRows.end()
                          ? std::nullopt
                          : std::optional<MapCell>({int(at - carriedRows.begin()), cell.column});
    } else {
        original =
            MapCell{carried(cell.row), onMap && carriedKeys ? carried(cell.column) : cell.column};
    }
    return {original, transformed, transformed};
}

SideBySide compareTransposed(const Scenario& scenario) {
    return withScalar(scenario.precision,
                      [&]<class T>() { return computeTransposed<T>(scenario); });
}

} // namespace attnlab
