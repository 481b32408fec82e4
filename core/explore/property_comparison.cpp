// SPDX-License-Identifier: GPL-3.0-or-later
// Asking a property's unit for its comparison, drawing a shrunk witness on the tokens it keeps, and
// computing a comparison.
#include "core/explore/property_comparison.h"

#include "core/base/error.h"
#include "core/base/precision_dispatch.h"
#include "core/checks/check_registry.h"
#include "core/checks/check_support.h"

namespace attnlab {

namespace {

/// The scenario on `rows` of its tokens (exact values, or the shortest decimals that give the
/// same floats back), each labelled by its index or its own label; no permutation or batch.
Scenario onTokens(const Scenario& s, const std::vector<int>& rows) {
    for (int r : rows)
        if (r < 0 || r >= s.n())
            throw InputError("witness.tokens", "token " + std::to_string(r) + " is outside 0.." +
                                                   std::to_string(s.n() - 1));
    Scenario sub = s;
    Matrix<Rational> kept(Eigen::Index(rows.size()), s.d());
    withScalar(s.precision, [&]<class T>() {
        const Matrix<T> x = s.tokens.materialize<T>();
        for (std::size_t i = 0; i < rows.size(); ++i)
            for (int j = 0; j < s.d(); ++j) {
                const T& v = x(rows[i], j);
                if constexpr (ScalarOps<T>::exact)
                    kept(Eigen::Index(i), j) = v;
                else
                    kept(Eigen::Index(i), j) = decimalRational(double(v));
            }
    });
    sub.tokens = TokenSpec::given(kept);
    for (int r : rows)
        sub.tokens.labels.push_back(s.tokens.labels.empty() ? "x" + std::to_string(r)
                                                            : s.tokens.labels[std::size_t(r)]);
    sub.permutation = {};
    sub.batch.clear();
    return sub;
}

/// The comparison the property's unit chooses; the permutation for a name no property has.
PropertyComparison chooseComparison(const Scenario& scenario, const std::string& property,
                                    const PropertyReport* report) {
    const PropertyUnit* unit = findPropertyUnit(property);
    const ComparisonSource source{scenario, report, property, propertyDisplayName(property)};
    PropertyComparison c = unit ? unit->comparison(source) : permutationComparison(source);
    c.property = source.displayName;
    return c;
}

} // namespace

PropertyComparison comparisonFor(const Scenario& scenario, const std::string& property,
                                 const PropertyReport* report, bool shrunk) {
    if (!shrunk || !report || !report->shrunkWitness)
        return chooseComparison(scenario, property, report);
    PropertyReport smallest = *report;
    smallest.witness = report->shrunkWitness;
    const nlohmann::json& kept = smallest.witness->value("tokens");
    std::vector<int> tokens;
    if (kept.is_array())
        for (const nlohmann::json& t : kept)
            if (t.is_number_integer()) tokens.push_back(t.get<int>());
    if (tokens.empty() || int(tokens.size()) >= scenario.n())
        return chooseComparison(scenario, property, &smallest);
    const Scenario sub = onTokens(scenario, tokens);
    PropertyComparison c = chooseComparison(sub, property, &smallest);
    c.tokens = tokens;
    std::string names;
    for (int t : tokens)
        names += (names.empty() ? "" : ", ") + std::to_string(t);
    c.summary =
        (c.summary.empty() ? c.property : c.summary) + " · smallest witness: tokens " + names;
    return c;
}

namespace {

/// A Kind::Split comparison's two evaluations, computed and labelled.
SideBySide compareSplit(const Scenario& s, const PropertyComparison& c) {
    Evaluated original, other;
    SideBySide out;
    switch (c.split) {
    case PropertyComparison::SplitKind::TensorParallel:
        other.how.parts = c.parts;
        out = compareEvaluations(s, original, other);
        out.transformedLabel = "split in " + std::to_string(c.parts) + " parts";
        out.differenceLabel = "split − whole";
        break;
    case PropertyComparison::SplitKind::Batch:
        other.batchMates = batchMates(s, c.seed);
        out = compareEvaluations(s, original, other);
        out.transformedLabel = "in a batch of " + std::to_string(1 + other.batchMates.size());
        out.differenceLabel = "in batch − alone";
        break;
    case PropertyComparison::SplitKind::DataParallel: {
        // The check's first worker holds the first half of the batch, the tokens among them.
        original.batchMates = batchMates(s, c.seed);
        const std::size_t half = (original.batchMates.size() + 2) / 2;
        other.batchMates.assign(original.batchMates.begin(),
                                original.batchMates.begin() + long(half - 1));
        out = compareEvaluations(s, original, other);
        const std::string size = std::to_string(1 + original.batchMates.size());
        out.originalLabel = "whole batch (" + size + ")";
        out.transformedLabel = "worker 0 (" + std::to_string(half) + " of " + size + ")";
        out.differenceLabel = "worker − whole";
        break;
    }
    case PropertyComparison::SplitKind::Unmasked:
        other.how.unmasked = true;
        out = compareEvaluations(s, original, other);
        out.transformedLabel = "no mask";
        out.differenceLabel = "unmasked − masked";
        for (const BoolMatrix& mask : out.masks) // the unmasked side consults no mask
            out.transformedMasks.push_back(BoolMatrix::Constant(mask.rows(), mask.cols(), true));
        break;
    }
    return out;
}

} // namespace

SideBySide compare(const Scenario& whole, const PropertyComparison& comparison) {
    const Scenario scenario =
        comparison.tokens.empty() ? whole : onTokens(whole, comparison.tokens);
    SideBySide out;
    if (comparison.kind == PropertyComparison::Kind::Transpose) {
        out = compareTransposed(scenario);
    } else if (comparison.kind == PropertyComparison::Kind::Blocks) {
        const bool chunkwise = comparison.blocks == PropertyComparison::BlockKind::Chunks;
        // As the check evaluates it: without maps, on the fused kernel in float modes.
        Evaluated blocks;
        blocks.model = evaluatedInBlocks(scenario.model, chunkwise, comparison.blockSize);
        blocks.maps = false;
        out = compareEvaluations(scenario, {}, blocks);
        const std::string b = std::to_string(comparison.blockSize);
        out.transformedLabel = chunkwise ? "chunks of " + b : "key tiles of " + b;
        out.differenceLabel = chunkwise ? "chunked − recurrent" : "tiled − untiled";
    } else if (comparison.kind == PropertyComparison::Kind::Split) {
        out = compareSplit(scenario, comparison);
    } else if (comparison.permutation) {
        Scenario permuted = scenario;
        permuted.permutation = *comparison.permutation;
        out = compareSides(permuted, comparison.transform);
    } else {
        out = compareSides(scenario, comparison.transform);
    }
    if (!comparison.summary.empty()) out.transformText = comparison.summary;
    if (!comparison.note.empty()) out.warnings.insert(out.warnings.begin(), comparison.note);
    return out;
}

} // namespace attnlab
