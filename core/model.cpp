// Building a model's weights and running its forward pass.
#include "model.h"

#include "error.h"
#include "kernels/layer_attention.h"

namespace attnlab {

namespace {
std::string layerPath(std::size_t i) {
    return "layers[" + std::to_string(i) + "]";
}

template <class T>
Matrix<T> materializeAt(const MatrixSpec& spec, int rows, int cols, const std::string& path) {
    try {
        return spec.materialize<T>(rows, cols);
    } catch (const InputError& e) {
        throw InputError(path, e.what());
    }
}

// Width of a projection: given values fix it, identity and random keep the input width.
int projectionWidth(const MatrixSpec& spec, int d) {
    return spec.fixedCols() >= 0 ? spec.fixedCols() : d;
}
} // namespace

template <class T>
Model<T>::Model(const ModelSpec& spec, int d) : spec_(spec), d_(d) {
    if (spec.layers.empty()) throw InputError("layers", "must be a non-empty array");
    int width = d;
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        const LayerSpec& layer = spec.layers[i];
        const std::string path = layerPath(i);
        Weights w;
        if (layer.ffn) w.ffn = materializeAt<T>(*layer.ffn, width, width, path + ".ffn");
        const int p = projectionWidth(layer.wq, width);
        const int pv = projectionWidth(layer.wv, width);
        w.wq = materializeAt<T>(layer.wq, width, p, path + ".wq");
        w.wk = materializeAt<T>(layer.wk, width, p, path + ".wk");
        w.wv = materializeAt<T>(layer.wv, width, pv, path + ".wv");
        if (layer.heads < 1) throw InputError(path + ".heads", "must be a positive integer");
        if (p % layer.heads != 0 || pv % layer.heads != 0)
            throw InputError(path + ".heads", std::to_string(layer.heads) +
                                                  " heads do not divide p = " + std::to_string(p) +
                                                  " and p_v = " + std::to_string(pv));
        int out = pv;
        if (layer.wo) {
            const int dout = layer.wo->fixedCols() >= 0 ? layer.wo->fixedCols() : width;
            w.wo = materializeAt<T>(*layer.wo, pv, dout, path + ".wo");
            out = dout;
        }
        if (layer.residual && out != width)
            throw InputError(path + ".residual", "needs output width " + std::to_string(width) +
                                                     ", the layer outputs " + std::to_string(out));
        if (layer.mixer.kind == MixerSpec::Kind::Ssm && !layer.mask.isAll())
            throw InputError(path + ".mask", "mixer ssm takes no mask other than all");
        if (spec.positional.kind == PositionalSpec::Kind::Alibi &&
            !spec.positional.slopes.empty() &&
            static_cast<int>(spec.positional.slopes.size()) != layer.heads)
            throw InputError("positional.slopes", std::to_string(spec.positional.slopes.size()) +
                                                      " slopes for " + std::to_string(layer.heads) +
                                                      " heads in " + path);
        weights_.push_back(std::move(w));
        width = out;
    }
}

template <class T>
int Model<T>::outputWidth() const {
    const Weights& last = weights_.back();
    return static_cast<int>(last.wo ? last.wo->cols() : last.wv.cols());
}

template <class T>
Trace<T> Model<T>::forward(const Matrix<T>& tokens, Maps maps, long extraOffset) const {
    if (tokens.cols() != d_)
        throw InputError("tokens", "have width " + std::to_string(tokens.cols()) +
                                       ", the model was built for " + std::to_string(d_));
    const long offset = spec_.positional.offset + extraOffset;
    PositionalSpec positional = spec_.positional;
    positional.offset = offset;
    Trace<T> trace;
    trace.input = tokens + absolutePositions<T>(positional, int(tokens.rows()), d_);
    Matrix<T> x = trace.input;
    for (std::size_t i = 0; i < spec_.layers.size(); ++i)
        x = applyLayer(i, x, trace, maps, offset);
    trace.output = std::move(x);
    return trace;
}

template <class T>
Matrix<T> Model<T>::applyLayer(std::size_t index, const Matrix<T>& x, Trace<T>& trace, Maps maps,
                               long offset) const {
    const LayerSpec& layer = spec_.layers[index];
    const Weights& w = weights_[index];
    const int n = static_cast<int>(x.rows());
    Matrix<T> h = x;
    if (w.ffn) h = (x * *w.ffn).unaryExpr([](const T& e) { return relu(e); });
    const Matrix<T> q = h * w.wq, k = h * w.wk, v = h * w.wv;
    // Without maps, float layers go through the fused kernel: no n x n mask, scores or weights.
    const bool fused = maps == Maps::Drop && kernels::fusedLayerApplies<T>(layer);
    BoolMatrix mask;
    try {
        if (fused)
            layer.mask.validate(n);
        else
            mask = buildMask(layer.mask, n);
    } catch (const InputError& e) {
        throw InputError(layerPath(index) + ".mask", e.what());
    }
    const int heads = layer.heads;
    const auto p = q.cols() / heads, pv = v.cols() / heads;
    Matrix<T> concat(n, v.cols());
    LayerTrace<T> layerTrace;
    const PositionalSpec& pos = spec_.positional;
    std::vector<int> allMasked;
    if constexpr (std::is_floating_point_v<T>)
        if (fused) concat = kernels::fusedLayerAttention<T>(layer, pos, q, k, v, offset, allMasked);
    for (int head = 0; head < heads && !fused; ++head) {
        Matrix<T> qh = q.middleCols(head * p, p), kh = k.middleCols(head * p, p);
        if (pos.kind == PositionalSpec::Kind::Rope) {
            applyRope(qh, offset, pos.base);
            applyRope(kh, offset, pos.base);
        }
        Matrix<T> bias;
        if (pos.kind == PositionalSpec::Kind::Alibi) bias = alibiBias<T>(pos, n, head, heads);
        HeadResult<T> r = attendHead<T>(layer.mixer, qh, kh, v.middleCols(head * pv, pv),
                                        bias.size() ? &bias : nullptr, mask);
        concat.middleCols(head * pv, pv) = r.output;
        if (head == 0) allMasked = r.allMaskedRows;
        if (maps == Maps::Keep)
            layerTrace.heads.push_back({std::move(r.scores), std::move(r.weights)});
    }
    for (int row : allMasked)
        trace.warnings.push_back("layer " + std::to_string(index) + ": row " + std::to_string(row) +
                                 " has no allowed key (all-masked row)");
    Matrix<T> y = w.wo ? Matrix<T>(concat * *w.wo) : concat;
    if (layer.residual) y += x;
    layerTrace.output = y;
    trace.layers.push_back(std::move(layerTrace));
    return y;
}

void checkPrecision(const ModelSpec& spec, Precision precision) {
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        try {
            spec.layers[i].mixer.checkPrecision(precision);
            spec.positional.checkPrecision(precision, spec.layers[i].heads);
        } catch (const InputError& e) {
            throw InputError(std::string(e.what()) + " (" + layerPath(i) + ")");
        }
    }
}

template class Model<float>;
template class Model<double>;
template class Model<Rational>;

} // namespace attnlab
