// SPDX-License-Identifier: GPL-3.0-or-later
// Biases, norms and the MLP in each scalar type. Exact mode has no square root, erf, tanh or
// exp: checkPrecision refuses those parts before a model is built, and these functions refuse
// them again should one be reached.
#include "core/model/block_ops.h"

#include "core/base/error.h"
#include "core/model/parallel_products.h"

#include <cmath>

namespace attnlab {

namespace {
template <class T>
[[noreturn]] void refuseExact(const std::string& what) {
    throw InputError("precision exact: " + what + " needs a float precision");
}
} // namespace

template <class T>
Matrix<T> materializeAt(const MatrixSpec& spec, int rows, int cols, const std::string& path) {
    try {
        return spec.materialize<T>(rows, cols);
    } catch (const InputError& e) {
        throw InputError(path, e.what());
    }
}

template <class T>
RowVector<T> materializeRow(const MatrixSpec& spec, int width, const std::string& path) {
    return materializeAt<T>(spec, 1, width, path);
}

template <class T>
Matrix<T> withBias(Matrix<T> x, const RowVector<T>& bias) {
    if (bias.size() > 0) x.rowwise() += bias;
    return x;
}

template <class T>
NormWeights<T>::NormWeights(const NormSpec& spec, int d, const std::string& path)
    : kind(spec.kind), eps(ScalarOps<T>::fromDouble(spec.eps)) {
    if (spec.weight) weight = materializeRow<T>(*spec.weight, d, path + ".weight");
    if (spec.bias) bias = materializeRow<T>(*spec.bias, d, path + ".bias");
}

template <class T>
Matrix<T> NormWeights<T>::apply(const Matrix<T>& x) const {
    if constexpr (ScalarOps<T>::exact) {
        refuseExact<T>(std::string(nameOf<NormSpec::Kind>(kNormKindNames, kind)));
    } else {
        Matrix<T> y = x;
        if (kind == NormSpec::Kind::LayerNorm) y.colwise() -= x.rowwise().mean();
        const auto meanSquare = y.array().square().rowwise().mean();
        y.array().colwise() /= (meanSquare + eps).sqrt();
        if (weight.size() > 0) y.array().rowwise() *= weight.array();
        return withBias<T>(std::move(y), bias);
    }
}

template <class T>
Matrix<T> activate(MlpSpec::Activation activation, Matrix<T> x) {
    using A = MlpSpec::Activation;
    if (activation == A::Relu) return x.unaryExpr([](const T& e) { return relu(e); });
    if constexpr (ScalarOps<T>::exact) {
        refuseExact<T>("activation " +
                       std::string(nameOf<MlpSpec::Activation>(kActivationNames, activation)));
    } else {
        // Whole-array expressions, so that Eigen's vectorised tanh and exp serve every entry.
        const T half(0.5), one(1);
        auto a = x.array();
        switch (activation) {
        case A::Gelu:
            a = half * a * (one + a.unaryExpr([](T e) { return std::erf(e / std::sqrt(T(2))); }));
            break;
        case A::GeluTanh:
            a = half * a * (one + (T(std::sqrt(2 / M_PI)) * (a + T(0.044715) * a.cube())).tanh());
            break;
        case A::Silu:
            a = a / (one + (-a).exp());
            break;
        case A::Relu:
            break;
        }
        return x;
    }
}

template <class T>
MlpWeights<T>::MlpWeights(const MlpSpec& spec, int d, const std::string& path)
    : activation(spec.activation) {
    const int width = spec.up.fixedCols() >= 0 ? spec.up.fixedCols() : d;
    up = materializeAt<T>(spec.up, d, width, path + ".up");
    if (spec.gate) gate = materializeAt<T>(*spec.gate, d, width, path + ".gate");
    const int out = spec.down.fixedCols() >= 0 ? spec.down.fixedCols() : d;
    if (out != d)
        throw InputError(path + ".down", "outputs width " + std::to_string(out) +
                                             ", the MLP's input is " + std::to_string(d) + " wide");
    down = materializeAt<T>(spec.down, width, d, path + ".down");
    if (spec.upBias) upBias = materializeRow<T>(*spec.upBias, width, path + ".up_bias");
    if (spec.gateBias) {
        if (!spec.gate) throw InputError(path + ".gate_bias", "needs a gate");
        gateBias = materializeRow<T>(*spec.gateBias, width, path + ".gate_bias");
    }
    if (spec.downBias) downBias = materializeRow<T>(*spec.downBias, d, path + ".down_bias");
}

template <class T>
Matrix<T> MlpWeights<T>::apply(const Matrix<T>& x, int parts) const {
    Matrix<T> hidden = withBias<T>(columnParallel(x, up, parts), upBias);
    if (gate)
        hidden = activate<T>(activation, withBias<T>(columnParallel(x, *gate, parts), gateBias))
                     .cwiseProduct(hidden);
    else
        hidden = activate<T>(activation, std::move(hidden));
    return withBias<T>(rowParallel(hidden, down, parts), downBias);
}

#define ATTNLAB_INSTANTIATE(T)                                                                     \
    template Matrix<T> materializeAt<T>(const MatrixSpec&, int, int, const std::string&);          \
    template RowVector<T> materializeRow<T>(const MatrixSpec&, int, const std::string&);           \
    template Matrix<T> withBias<T>(Matrix<T>, const RowVector<T>&);                                \
    template Matrix<T> activate<T>(MlpSpec::Activation, Matrix<T>);                                \
    template struct NormWeights<T>;                                                                \
    template struct MlpWeights<T>;
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
ATTNLAB_INSTANTIATE(Rational)
#undef ATTNLAB_INSTANTIATE

} // namespace attnlab
