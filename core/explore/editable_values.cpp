// SPDX-License-Identifier: GPL-3.0-or-later
// Exact values of tokens and weights, and table edits.
#include "core/explore/editable_values.h"

#include "core/base/precision_dispatch.h"
#include "core/model/model.h"

#include <algorithm>

namespace attnlab {

namespace {

template <class T>
Matrix<Rational> exactValues(const Matrix<T>& values) {
    if constexpr (ScalarOps<T>::exact)
        return values;
    else
        return decimalValues(values.template cast<double>());
}

template <class T>
std::optional<Matrix<T>> weightOf(const LayerWeights<T>& w, LayerWeight which) {
    switch (which) {
    case LayerWeight::Wq:
        return w.wq;
    case LayerWeight::Wk:
        return w.wk;
    case LayerWeight::Wv:
        return w.wv;
    case LayerWeight::Wo:
        return w.wo;
    default:
        return w.ffn;
    }
}

} // namespace

Matrix<Rational> decimalValues(const Eigen::MatrixXd& values) {
    return values.unaryExpr([](double v) { return decimalRational(v); });
}

Matrix<Rational> tokenValues(const Scenario& scenario) {
    if (scenario.tokens.kind == TokenSpec::Kind::Values || scenario.precision == Precision::Exact)
        return scenario.tokens.materialize<Rational>();
    return decimalValues(scenario.tokens.materialize<double>());
}

std::optional<Matrix<Rational>> weightValues(const Scenario& scenario, std::size_t layer,
                                             LayerWeight which) {
    return withScalar(scenario.precision, [&]<class T>() -> std::optional<Matrix<Rational>> {
        const Model<T> model(scenario.model, scenario.d());
        const std::optional<Matrix<T>> m = weightOf(model.weights(layer), which);
        if (!m) return std::nullopt;
        return exactValues(*m);
    });
}

Matrix<Rational> resizedValues(const Matrix<Rational>& values, Eigen::Index rows,
                               Eigen::Index cols) {
    Matrix<Rational> next = Matrix<Rational>::Zero(rows, cols);
    const Eigen::Index r = std::min(rows, values.rows()), c = std::min(cols, values.cols());
    next.topLeftCorner(r, c) = values.topLeftCorner(r, c);
    return next;
}

Matrix<Rational> pastedValues(const Matrix<Rational>& values, const Matrix<Rational>& block,
                              Eigen::Index row, Eigen::Index column) {
    Matrix<Rational> next = resizedValues(values, std::max(values.rows(), row + block.rows()),
                                          std::max(values.cols(), column + block.cols()));
    next.block(row, column, block.rows(), block.cols()) = block;
    return next;
}

} // namespace attnlab
