// SPDX-License-Identifier: GPL-3.0-or-later
// Choosing and computing the comparison each property is drawn with.
#include "core/explore/property_comparison.h"

#include "core/base/error.h"
#include "core/base/precision_dispatch.h"
#include "core/checks/check_support.h"

#include <algorithm>
#include <map>

namespace attnlab {

namespace {

using Kind = Transform::Kind;

const nlohmann::json& witnessValue(const PropertyReport* report, const std::string& key) {
    static const nlohmann::json none;
    return report && report->witness ? report->witness->value(key) : none;
}

/// The first integer of `value` (an integer or a list of them), if any.
std::optional<long> firstInteger(const nlohmann::json& value) {
    if (value.is_number_integer()) return value.get<long>();
    if (value.is_array() && !value.empty() && value.front().is_number_integer())
        return value.front().get<long>();
    return std::nullopt;
}

/// The scenario's parameter `key` of the check `property` (null when it sets none).
const nlohmann::json& parameter(const Scenario& s, const std::string& property,
                                const std::string& key) {
    static const nlohmann::json none;
    for (const CheckSpec& check : s.checks)
        if (check.name == property && check.params.contains(key)) return check.params.at(key);
    return none;
}

PropertyComparison permutationComparison(const Scenario& s, const std::string& property,
                                         const PropertyReport* report) {
    PropertyComparison c;
    c.property = property;
    const nlohmann::json& images = witnessValue(report, "permutation");
    if (s.permutation.isSet()) {
        c.summary =
            property + ": f(P X) beside P f(X), σ = " + s.permutation.resolve(s.n()).cycles();
    } else if (images.is_array() && int(images.size()) == s.n()) {
        c.permutation = PermutationSpec();
        c.permutation->kind = PermutationSpec::Kind::Images;
        c.permutation->images = images.get<std::vector<int>>();
        c.summary = property + ": the witness's σ = " + c.permutation->resolve(s.n()).cycles();
    } else {
        c.permutation = PermutationSpec();
        c.permutation->kind = PermutationSpec::Kind::Reverse;
        c.summary = property + ": σ reverses the tokens (the scenario sets none)";
    }
    return c;
}

PropertyComparison shiftComparison(const Scenario& s, const PropertyReport* report) {
    PropertyComparison c;
    c.property = "shift-invariance";
    c.transform.kind = Kind::Shift;
    std::optional<long> offset = firstInteger(witnessValue(report, "offset"));
    if (!offset && report && report->checked.contains("offsets"))
        offset = firstInteger(report->checked.at("offsets"));
    if (!offset) offset = firstInteger(parameter(s, c.property, "offset"));
    c.transform.shift = offset.value_or(1);
    c.summary = "shift-invariance: " + c.transform.describe();
    return c;
}

/// Locality and causality: one token perturbed, the witness's when there is one, else the last
/// (causality: no earlier output may move) or the middle one (locality: the band that moves).
PropertyComparison perturbationComparison(const Scenario& s, const std::string& property,
                                          const PropertyReport* report) {
    PropertyComparison c;
    c.property = property;
    c.transform.kind = Kind::Perturbation;
    const bool causality = property == "causality";
    int token = causality ? s.n() - 1 : s.n() / 2;
    std::string which = causality ? "the last token" : "the middle token";
    if (report && report->witness && report->witness->cell() &&
        report->witness->cell()->map == WitnessCell::Map::Dependency) {
        const WitnessCell& cell = *report->witness->cell();
        token = cell.column;
        which = "the witness's token";
    } else if (auto from = firstInteger(witnessValue(report, "perturbed_tokens_from"))) {
        token = int(*from);
        which = "first of the witness's suffix";
    }
    c.transform.token = std::clamp(token, 0, std::max(0, s.n() - 1));
    c.summary = property + ": " + c.transform.describe() + " (" + which + ")";
    return c;
}

PropertyComparison decodeComparison(const Scenario& s, const PropertyReport* report) {
    PropertyComparison c;
    c.property = "kv-cache";
    c.transform.kind = Kind::Decode;
    std::optional<long> m = firstInteger(witnessValue(report, "queries"));
    if (!m) m = firstInteger(parameter(s, c.property, "queries"));
    c.transform.queries = int(std::clamp<long>(m.value_or(1), 1, std::max(1, s.n())));
    nlohmann::json alignment = witnessValue(report, "alignment");
    if (!alignment.is_string()) alignment = parameter(s, c.property, "alignment");
    try { // a word the check refuses (and says so) leaves the default
        if (alignment.is_string())
            c.transform.alignment = parseAlignment(alignment.get<std::string>());
    } catch (const InputError&) {
    }
    c.summary = "kv-cache: " + c.transform.describe(s.n());
    return c;
}

/// Tiling and chunkwise: the witness's size, the scenario's, else the smallest ragged one.
PropertyComparison blocksComparison(const Scenario& s, const std::string& property,
                                    const PropertyReport* report) {
    PropertyComparison c;
    c.kind = PropertyComparison::Kind::Blocks;
    c.property = property;
    const bool chunkwise = property == "chunkwise";
    const std::string key = chunkwise ? "chunk" : "tile";
    std::optional<long> size = firstInteger(witnessValue(report, key));
    if (!size) size = firstInteger(parameter(s, property, key));
    for (int b = 2; !size && b < s.n(); ++b)
        if (s.n() % b != 0) size = b;
    c.blockSize = int(std::clamp<long>(size.value_or(1), 1, std::max(1, s.n())));
    c.summary = property + ": " + (chunkwise ? "chunks of " : "key tiles of ") +
                std::to_string(c.blockSize);
    const bool any =
        std::any_of(s.model.layers.begin(), s.model.layers.end(),
                    [&](const LayerSpec& l) { return evaluatedInBlocks(l, chunkwise); });
    if (!any)
        c.note = property + ": no layer here is " +
                 (chunkwise ? "an ssm layer to scan in chunks" : "an attention layer to tile") +
                 ", so both sides are the same";
    return c;
}

/// The batch properties and all-true-mask: the tokens evaluated the check's other way beside the
/// plain evaluation. The maps show the scenario's tokens, the first sequence of the batch; a
/// witness in another sequence is named in the note.
PropertyComparison splitComparison(const Scenario& s, const std::string& property,
                                   const PropertyReport* report) {
    PropertyComparison c;
    c.kind = PropertyComparison::Kind::Split;
    c.property = property;
    if (report && report->checked.contains("seed") && report->checked.at("seed").is_number())
        c.seed = report->checked.at("seed").get<std::uint64_t>();
    const std::size_t batch = 1 + batchMates(s, c.seed).size();
    const std::string sequences =
        std::to_string(batch) + " sequences (" +
        (s.batch.empty() ? "the tokens and " + std::to_string(kDrawnSequences) + " drawn"
                         : "the scenario's batch") +
        ")";
    if (property == "tensor-parallel") {
        std::optional<long> parts = firstInteger(witnessValue(report, "parts"));
        if (!parts && report && report->checked.contains("parts"))
            parts = firstInteger(report->checked.at("parts"));
        if (!parts) parts = firstInteger(parameter(s, property, "parts"));
        c.parts = int(std::clamp<long>(parts.value_or(2), 1, 64));
        c.summary = "tensor-parallel: the model split across " + std::to_string(c.parts) +
                    " parts beside the whole model";
    } else if (property == "batch-invariance") {
        c.summary = "batch-invariance: the tokens alone beside the same tokens first in a batch "
                    "of " +
                    sequences;
    } else if (property == "data-parallel") {
        c.summary = "data-parallel: the tokens in their worker's half beside the whole batch of " +
                    sequences;
        c.note = "data-parallel also compares the loss and the input gradients (not drawn)";
    } else {
        c.summary = "all-true-mask: the unmasked code path beside the masked one";
        c.note = "all-true-mask also compares the input gradients (not drawn)";
    }
    if (auto example = firstInteger(witnessValue(report, "example")); example && *example > 0)
        c.note += std::string(c.note.empty() ? "" : "; ") + "the witness is in sequence " +
                  std::to_string(*example) + " of the batch, the maps show sequence 0 (the tokens)";
    return c;
}

/// What the checks without a drawn comparison of their own compare.
const std::map<std::string, std::string>& undrawn() {
    static const std::map<std::string, std::string> what = {
        {"row-sums", "each row of A's sum with 1 (read it on the A maps)"},
        {"gradient", "the reverse pass with finite differences"},
    };
    return what;
}

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

PropertyComparison chooseComparison(const Scenario& scenario, const std::string& property,
                                    const PropertyReport* report) {
    if (property == "logit-symmetry") {
        PropertyComparison c;
        c.kind = PropertyComparison::Kind::Transpose;
        c.property = property;
        c.summary = "logit-symmetry: S beside Sᵀ";
        return c;
    }
    if (property == "shift-invariance") return shiftComparison(scenario, report);
    if (property == "locality" || property == "causality")
        return perturbationComparison(scenario, property, report);
    if (property == "kv-cache") return decodeComparison(scenario, report);
    if (property == "tiling" || property == "chunkwise")
        return blocksComparison(scenario, property, report);
    if (property == "tensor-parallel" || property == "batch-invariance" ||
        property == "data-parallel" || property == "all-true-mask")
        return splitComparison(scenario, property, report);
    PropertyComparison c = permutationComparison(scenario, property, report);
    if (auto what = undrawn().find(property); what != undrawn().end())
        c.note = property + " compares " + what->second + "; not drawn as maps yet, so the views " +
                 "show the permutation";
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
    c.summary = (c.summary.empty() ? property : c.summary) + " · smallest witness: tokens " + names;
    return c;
}

namespace {

/// A Kind::Split comparison's two evaluations, computed and labelled.
SideBySide compareSplit(const Scenario& s, const PropertyComparison& c) {
    Evaluated original, other;
    SideBySide out;
    if (c.property == "tensor-parallel") {
        other.how.parts = c.parts;
        out = compareEvaluations(s, original, other);
        out.transformedLabel = "split in " + std::to_string(c.parts) + " parts";
        out.differenceLabel = "split − whole";
    } else if (c.property == "batch-invariance") {
        other.batchMates = batchMates(s, c.seed);
        out = compareEvaluations(s, original, other);
        out.transformedLabel = "in a batch of " + std::to_string(1 + other.batchMates.size());
        out.differenceLabel = "in batch − alone";
    } else if (c.property == "data-parallel") {
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
    } else { // all-true-mask
        other.how.unmasked = true;
        out = compareEvaluations(s, original, other);
        out.transformedLabel = "no mask";
        out.differenceLabel = "unmasked − masked";
        for (const BoolMatrix& mask : out.masks) // the unmasked side consults no mask
            out.transformedMasks.push_back(BoolMatrix::Constant(mask.rows(), mask.cols(), true));
    }
    return out;
}

} // namespace

bool PropertyComparison::drawsSameAs(const PropertyComparison& other) const {
    PropertyComparison a = *this, b = other;
    for (PropertyComparison* c : {&a, &b}) {
        c->summary.clear();
        c->note.clear();
        if (c->kind != Kind::Blocks && c->kind != Kind::Split) c->property.clear();
    }
    return a == b;
}

SideBySide compare(const Scenario& whole, const PropertyComparison& comparison) {
    const Scenario scenario =
        comparison.tokens.empty() ? whole : onTokens(whole, comparison.tokens);
    SideBySide out;
    if (comparison.kind == PropertyComparison::Kind::Transpose) {
        out = compareTransposed(scenario);
    } else if (comparison.kind == PropertyComparison::Kind::Blocks) {
        const bool chunkwise = comparison.property == "chunkwise";
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
