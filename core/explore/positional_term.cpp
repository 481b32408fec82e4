// SPDX-License-Identifier: GPL-3.0-or-later
// The positional term on its own and a row of scores against the key-minus-query offset.
#include "core/explore/positional_term.h"

#include "core/base/error.h"
#include <algorithm>
#include <cmath>
#include <sstream>

namespace attnlab {

namespace {

// The slope as a fraction when it is rational (1/16), else to six digits.
std::string slopeText(const PositionalSpec& spec, int head, int heads) {
    try {
        return rationalText(alibiSlope<Rational>(spec, head, heads));
    } catch (const InputError&) {
        std::ostringstream text;
        text.precision(6);
        text << alibiSlope<double>(spec, head, heads);
        return text.str();
    }
}

std::string positionsNote(int n, int shown) {
    return shown < n
               ? " (positions 0.." + std::to_string(shown - 1) + " of " + std::to_string(n) + ")"
               : std::string();
}

PositionalTerm absoluteTerm(const PositionalSpec& spec, int n, int d) {
    PositionalTerm term{"the " + spec.describe() + " table added to the tokens",
                        "position i",
                        "feature j",
                        {},
                        "An absolute method adds row i of this table to token i before the first "
                        "layer, so a token's features depend on where it stands: permuting the "
                        "tokens does not permute this table, and equivariance breaks."};
    try {
        term.matrix = view(absolutePositions<double>(spec, n, d));
    } catch (const InputError& e) {
        term.explanation = e.what();
    }
    return term;
}

PositionalTerm alibiTerm(const PositionalSpec& spec, int n, int head, int heads) {
    const int shown = std::min(n, kViewLimit);
    return {"ALiBi bias of head " + std::to_string(head) + ": −" + slopeText(spec, head, heads) +
                "·" + (spec.causal ? "(s − t)" : "|s − t|") + positionsNote(n, shown),
            "query s", "key t", view(alibiBias<double>(spec, shown, head, heads)),
            "ALiBi adds this bias to every layer's scores. It depends on s − t only, so every "
            "diagonal is constant: shifting all positions changes nothing, and a query prefers "
            "nearby keys by the slope."};
}

PositionalTerm ropeTerm(const PositionalSpec& spec, int n, int head, int headWidth) {
    const std::vector<double> theta = ropeFrequencies(spec, headWidth);
    const int shown = std::min(n, kViewLimit);
    Eigen::MatrixXd angles(shown, Eigen::Index(theta.size()));
    for (int i = 0; i < shown; ++i)
        for (std::size_t k = 0; k < theta.size(); ++k)
            angles(i, Eigen::Index(k)) = std::cos(double(i + spec.offset) * theta[k]);
    return {"RoPE: cos of the angle (i + offset)·θ_k of head " + std::to_string(head) +
                "'s pair k" + positionsNote(n, shown),
            "position i", "pair k", view(Matrix<double>(angles)),
            "RoPE rotates pair k of each query and key at position i by the angle i·θ_k (fast "
            "pairs on the left, slow ones on the right). The rotations of a query and a key "
            "compose to a rotation by their difference: scores depend on t − s only."};
}

} // namespace

PositionalTerm positionalTerm(const PositionalSpec& spec, int n, int d, int head, int heads,
                              int headWidth) {
    switch (spec.kind) {
    case PositionalSpec::Kind::None:
        return {"no positional information",
                "",
                "",
                {},
                "The model sees the tokens as a set: nothing tells it where a token stands, so "
                "permuting the tokens permutes every map (equivariance)."};
    case PositionalSpec::Kind::Alibi:
        return alibiTerm(spec, n, head, heads);
    case PositionalSpec::Kind::Rope:
        return ropeTerm(spec, n, head, headWidth);
    default:
        return absoluteTerm(spec, n, d);
    }
}

OffsetCurve scoresByOffset(const ViewMatrix& scores, const BoolMatrix& mask, int row) {
    OffsetCurve curve;
    const Eigen::MatrixXd& v = scores.values;
    if (scores.pooled() || row < 0 || row >= v.rows()) return curve;
    const bool masked = mask.rows() == v.rows() && mask.cols() == v.cols();
    for (Eigen::Index t = 0; t < v.cols(); ++t) {
        if (masked && !mask(row, t)) continue;
        curve.offsets.push_back(double(t - row));
        curve.scores.push_back(v(row, t));
    }
    return curve;
}

} // namespace attnlab
