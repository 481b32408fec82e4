// A model with its weights materialised in scalar type T for a given token width, and its
// forward pass: absolute positions, then each layer (relu(X·W) pre-map, projections, heads,
// relative positions, mask, mixer, concat, Wo, residual) in order.
#pragma once

#include "backend/backend_choice.h"
#include "model_spec.h"
#include "trace.h"

namespace attnlab {

/// Whether a forward pass keeps the per-head n x n maps (views) or only outputs (checks, CLI
/// on long sequences).
enum class Maps { Keep, Drop };

/// A layer's weights materialised in scalar type T.
template <class T>
struct LayerWeights {
    std::optional<Matrix<T>> ffn;
    Matrix<T> wq, wk, wv;
    std::optional<Matrix<T>> wo;
};

template <class T>
class Model {
public:
    /// Materialises the weights for tokens of width d; throws InputError naming the layer and
    /// matrix when a shape does not fit (e.g. `layers[1].wq: matrix is 3 x 2, expected 4 x 2`).
    /// Heads are computed on the backend `backend` resolves to (registry.h), per head.
    Model(const ModelSpec& spec, int d, BackendChoice backend = BackendChoice::Cpu);

    /// f(X) with positions starting at the spec's offset plus `extraOffset`.
    Trace<T> forward(const Matrix<T>& tokens, Maps maps = Maps::Keep, long extraOffset = 0) const;

    const ModelSpec& spec() const { return spec_; }
    int inputWidth() const { return d_; }
    int outputWidth() const;
    std::size_t layerCount() const { return weights_.size(); }
    const LayerWeights<T>& weights(std::size_t layer) const { return weights_.at(layer); }

private:
    using Weights = LayerWeights<T>;
    Matrix<T> applyLayer(std::size_t index, const Matrix<T>& x, Trace<T>& trace, Maps maps,
                         long offset) const;

    ModelSpec spec_;
    int d_;
    BackendChoice backend_;
    std::vector<Weights> weights_;
};

/// Throws InputError when the model cannot run in `precision` (exp, sin, cos in exact mode),
/// with the path of the layer or field concerned.
void checkPrecision(const ModelSpec& spec, Precision precision);

} // namespace attnlab
