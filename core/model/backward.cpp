// SPDX-License-Identifier: GPL-3.0-or-later
// Reverse pass (Jᵀδ) and forward-mode tangents (J·u) of Model::forward. Each layer's
// intermediates (pre-activations, rotated Q and K per head, scores, weights) are recomputed
// here with the same library functions the forward uses; the layer inputs come from the
// forward's own trace. Tiled and chunkwise evaluations only change the order of the sums, so
// their derivative is that of y = A·V.
#include "core/model/backward.h"

#include "core/backend/head_forward.h"
#include "core/base/cancellation.h"
#include "core/base/error.h"
#include "core/base/parallel.h"
#include "core/model/block_support.h"
#include "core/spec/mask.h"

namespace attnlab {

namespace {

using Kind = MixerSpec::Kind;

template <class T>
struct HeadCache {
    Matrix<T> q, k, v; // this head's blocks, q and k after RoPE
    Matrix<T> scores;  // S = c·Q·Kᵀ + B (attention mixers)
    Matrix<T> weights; // A, so that the head's output is A·V
    Matrix<T> decay;   // ssm: A = decay ⊙ (Q·Kᵀ)
};

template <class T>
struct LayerCache {
    Matrix<T> pre; // x·W before the relu (ffn layers only)
    std::vector<HeadCache<T>> heads;
    BoolMatrix mask;
    BlockSupport support; // where the heads' weights may be non-zero (the mask, or the ssm decay)
    T scale = T(1);
};

// The normaliser Σ_allowed (1 + relu(S)) of a softmax_like row.
template <class T>
T softmaxLikeTotal(const Matrix<T>& scores, const BoolMatrix& mask, Eigen::Index s) {
    T total = T(0);
    for (Eigen::Index t = 0; t < scores.cols(); ++t)
        if (mask(s, t)) total += T(1) + relu(T(scores(s, t)));
    return total;
}

// Σ_t A[s][t]·X[s][t] (blocked entries have A = 0).
template <class T>
T rowDot(const Matrix<T>& a, const Matrix<T>& x, Eigen::Index s) {
    T dot = T(0);
    for (Eigen::Index t = 0; t < a.cols(); ++t)
        dot += a(s, t) * x(s, t);
    return dot;
}

// A ⊙ (X - rowsum(A ⊙ X)): the softmax's Jacobian applied to X, row by row (reverse mode: the
// gradient on the scores from the one on the weights; forward mode: the tangent of the weights
// from the one of the scores). A is 0 where the mask blocks and on all-masked rows, so the result
// is too; whole columns at a time (the matrices are column-major).
template <class T>
Matrix<T> softmaxJacobianTimes(const Matrix<T>& a, const Matrix<T>& x) {
    const Eigen::Array<T, Eigen::Dynamic, 1> dots = (a.array() * x.array()).rowwise().sum();
    return (a.array() * (x.array().colwise() - dots)).matrix();
}

// Reverse mode through the mixer: the gradient on the scores from the gradient on the weights.
template <class T>
Matrix<T> scoresGradient(Kind kind, const HeadCache<T>& h, const BoolMatrix& mask,
                         const Matrix<T>& dA) {
    if (kind == Kind::Softmax) return softmaxJacobianTimes(h.weights, dA);
    if (kind != Kind::SoftmaxLike) return mask.select(dA, T(0)); // raw: the identity
    const auto n = dA.rows(), m = dA.cols();
    Matrix<T> dS = Matrix<T>::Zero(n, m);
    for (Eigen::Index s = 0; s < n; ++s) {
        pollCancellation();               // n x n exact entries take seconds at thousands of tokens
        if (!mask.row(s).any()) continue; // all-masked row: constant zero
        const T dot = rowDot(h.weights, dA, s);
        const T total = softmaxLikeTotal(h.scores, mask, s);
        for (Eigen::Index t = 0; t < m; ++t)
            if (mask(s, t) && h.scores(s, t) > T(0)) dS(s, t) = (dA(s, t) - dot) / total;
    }
    return dS;
}

// Forward mode through the mixer: the tangent of the weights from the tangent of the scores.
template <class T>
Matrix<T> weightsTangent(Kind kind, const HeadCache<T>& h, const BoolMatrix& mask,
                         const Matrix<T>& dS) {
    if (kind == Kind::Softmax) return softmaxJacobianTimes(h.weights, dS);
    if (kind != Kind::SoftmaxLike) return mask.select(dS, T(0)); // raw: the identity
    const auto n = dS.rows(), m = dS.cols();
    Matrix<T> dA = Matrix<T>::Zero(n, m);
    for (Eigen::Index s = 0; s < n; ++s) {
        pollCancellation(); // n x n exact entries take seconds at thousands of tokens
        if (!mask.row(s).any()) continue;
        const T total = softmaxLikeTotal(h.scores, mask, s);
        T sum = T(0); // Σ of the tangents of the unnormalised weights 1 + relu(S)
        for (Eigen::Index t = 0; t < m; ++t)
            if (mask(s, t) && h.scores(s, t) > T(0)) sum += dS(s, t);
        for (Eigen::Index t = 0; t < m; ++t) {
            if (!mask(s, t)) continue;
            const T dw = h.scores(s, t) > T(0) ? T(dS(s, t)) : T(0);
            dA(s, t) = (dw - h.weights(s, t) * sum) / total;
        }
    }
    return dA;
}

// The intermediates of layer `index` applied to its input x, as Model::applyLayer forms them.
template <class T>
LayerCache<T> recompute(const Model<T>& model, std::size_t index, const Matrix<T>& x, long offset) {
    const LayerSpec& layer = model.spec().layers[index];
    const LayerWeights<T>& w = model.weights(index);
    const PositionalSpec& pos = model.spec().positional;
    const int n = static_cast<int>(x.rows());
    LayerCache<T> cache;
    Matrix<T> h = x;
    if (w.ffn) {
        cache.pre = times<T>(x, *w.ffn);
        h = cache.pre.unaryExpr([](const T& e) { return relu(e); });
    }
    const Matrix<T> q = times<T>(h, w.wq), k = times<T>(h, w.wk), v = times<T>(h, w.wv);
    try {
        cache.mask = buildMask(layer.mask, n);
    } catch (const InputError& e) {
        throw InputError("layers[" + std::to_string(index) + "].mask", e.what());
    }
    const int heads = layer.heads;
    const auto p = q.cols() / heads, pv = v.cols() / heads;
    const bool ssm = layer.mixer.kind == Kind::Ssm;
    if (!ssm) cache.scale = mixerScale<T>(layer.mixer, static_cast<int>(p));
    Matrix<T> decay; // the ssm's, the same for every head
    if (ssm) {
        const Matrix<T> ones = Matrix<T>::Ones(n, 1);
        decay = ssmWeights(layer.mixer, ones, ones);
    }
    cache.support = BlockSupport::of(ssm ? BoolMatrix(decay.array() != T(0)) : cache.mask);
    for (int head = 0; head < heads; ++head) {
        HeadCache<T> hc;
        hc.q = q.middleCols(head * p, p);
        hc.k = k.middleCols(head * p, p);
        hc.v = v.middleCols(head * pv, pv);
        if (pos.kind == PositionalSpec::Kind::Rope) {
            applyRope(hc.q, pos, offset);
            applyRope(hc.k, pos, offset);
        }
        // Scores outside the support are left 0: the mixers read only the entries the mask allows.
        if (ssm) {
            hc.decay = decay;
            hc.weights =
                hc.decay.cwiseProduct(timesTransposedOnSupport<T>(cache.support, hc.q, hc.k));
        } else {
            hc.scores = cache.scale * timesTransposedOnSupport<T>(cache.support, hc.q, hc.k);
            if (pos.kind == PositionalSpec::Kind::Alibi)
                hc.scores += alibiBias<T>(pos, n, head, heads);
            hc.weights = mixWeights(layer.mixer, hc.scores, cache.mask);
        }
        cache.heads.push_back(std::move(hc));
    }
    return cache;
}

// [pre > 0] ⊙ g: the relu's derivative with relu'(0) = 0.
template <class T>
Matrix<T> reluGate(const Matrix<T>& pre, const Matrix<T>& g) {
    Matrix<T> out = g;
    for (Eigen::Index i = 0; i < out.size(); ++i)
        if (!(pre(i) > T(0))) out(i) = T(0);
    return out;
}

// Reverse pass of one layer: the gradient on its input from the gradient dy on its output.
template <class T>
Matrix<T> layerBackward(const Model<T>& model, std::size_t index, const LayerCache<T>& cache,
                        const Matrix<T>& dy, long offset) {
    const LayerSpec& layer = model.spec().layers[index];
    const LayerWeights<T>& w = model.weights(index);
    const PositionalSpec& pos = model.spec().positional;
    const Matrix<T> dconcat = w.wo ? times<T>(dy, w.wo->transpose()) : dy;
    const auto n = dy.rows(), p = w.wq.cols() / layer.heads, pv = w.wv.cols() / layer.heads;
    Matrix<T> dq(n, w.wq.cols()), dk(n, w.wk.cols()), dv(n, w.wv.cols());
    for (int head = 0; head < layer.heads; ++head) {
        const HeadCache<T>& hc = cache.heads[std::size_t(head)];
        const Matrix<T> dout = dconcat.middleCols(head * pv, pv);
        // dA is needed where the weights may be non-zero; dP and dS are 0 outside the support.
        const BlockSupport& support = cache.support;
        const Matrix<T> dA = timesTransposedOnSupport<T>(support, dout, hc.v);
        Matrix<T> dqh, dkh;
        if (layer.mixer.kind == Kind::Ssm) {
            const Matrix<T> dP = dA.cwiseProduct(hc.decay);
            dqh = timesSupported(support, dP, hc.k);
            dkh = transposeTimesSupported(support, dP, hc.q);
        } else {
            const Matrix<T> dS = scoresGradient(layer.mixer.kind, hc, cache.mask, dA);
            dqh = cache.scale * timesSupported(support, dS, hc.k);
            dkh = cache.scale * transposeTimesSupported(support, dS, hc.q);
        }
        if (pos.kind == PositionalSpec::Kind::Rope) {
            applyRope(dqh, pos, offset, true);
            applyRope(dkh, pos, offset, true);
        }
        dq.middleCols(head * p, p) = dqh;
        dk.middleCols(head * p, p) = dkh;
        dv.middleCols(head * pv, pv) = transposeTimesSupported(support, hc.weights, dout);
    }
    Matrix<T> dh = times<T>(dq, w.wq.transpose()) + times<T>(dk, w.wk.transpose()) +
                   times<T>(dv, w.wv.transpose());
    Matrix<T> dx = w.ffn ? times<T>(reluGate(cache.pre, dh), w.ffn->transpose()) : dh;
    if (layer.residual) dx += dy;
    return dx;
}

// Forward mode through one layer: the tangent of its output from the tangent dx of its input.
template <class T>
Matrix<T> layerTangent(const Model<T>& model, std::size_t index, const LayerCache<T>& cache,
                       const Matrix<T>& dx, long offset) {
    const LayerSpec& layer = model.spec().layers[index];
    const LayerWeights<T>& w = model.weights(index);
    const PositionalSpec& pos = model.spec().positional;
    const Matrix<T> dh = w.ffn ? reluGate(cache.pre, times<T>(dx, *w.ffn)) : dx;
    const Matrix<T> dq = times<T>(dh, w.wq), dk = times<T>(dh, w.wk), dv = times<T>(dh, w.wv);
    const auto n = dx.rows(), p = dq.cols() / layer.heads, pv = dv.cols() / layer.heads;
    Matrix<T> dconcat(n, dv.cols());
    for (int head = 0; head < layer.heads; ++head) {
        const HeadCache<T>& hc = cache.heads[std::size_t(head)];
        Matrix<T> dqh = dq.middleCols(head * p, p), dkh = dk.middleCols(head * p, p);
        if (pos.kind == PositionalSpec::Kind::Rope) { // linear: the tangent rotates alike
            applyRope(dqh, pos, offset);
            applyRope(dkh, pos, offset);
        }
        // dP is needed where the weights may be non-zero; dA is 0 outside the support.
        const BlockSupport& support = cache.support;
        const Matrix<T> dP = timesTransposedOnSupport<T>(support, dqh, hc.k) +
                             timesTransposedOnSupport<T>(support, hc.q, dkh);
        const Matrix<T> dA =
            layer.mixer.kind == Kind::Ssm
                ? Matrix<T>(hc.decay.cwiseProduct(dP))
                : weightsTangent(layer.mixer.kind, hc, cache.mask, Matrix<T>(cache.scale * dP));
        const Matrix<T> dvh = dv.middleCols(head * pv, pv);
        dconcat.middleCols(head * pv, pv) =
            timesSupported(support, dA, hc.v) + timesSupported(support, hc.weights, dvh);
    }
    Matrix<T> dy = w.wo ? times<T>(dconcat, *w.wo) : dconcat;
    if (layer.residual) dy += dx;
    return dy;
}

// Replaces each of `values` by `pass` of it through one layer (a reverse or forward-mode pass
// with that layer's intermediates), the values spread over the threads.
template <class T, class Pass>
void throughLayer(const LayerCache<T>& cache, std::vector<Matrix<T>>& values, Pass&& pass) {
    double work = 0; // multiply-adds: about three n x n products per head and value
    for (const HeadCache<T>& hc : cache.heads)
        work += 3.0 * double(hc.q.rows()) * double(hc.q.rows()) * double(hc.q.cols() + hc.v.cols());
    kernels::parallelFor(
        long(values.size()), [&](long k) { values[std::size_t(k)] = pass(values[std::size_t(k)]); },
        work * double(values.size()));
}

// Throws InputError when the model has parts the passes here do not differentiate.
void requireDifferentiable(const ModelSpec& spec) {
    if (const auto why = undifferentiablePart(spec)) throw InputError(*why);
}

// The input of every layer, from the forward's own trace.
template <class T>
std::vector<Matrix<T>> layerInputs(const Model<T>& model, const Matrix<T>& tokens, long offset) {
    requireDifferentiable(model.spec());
    // Every layer but the last: its output is no layer's input (a one-layer model runs none).
    Evaluation how;
    how.extraOffset = offset;
    how.layers = int(model.layerCount()) - 1;
    Trace<T> trace = std::move(model.forwardBatch({tokens}, Maps::Drop, how).front());
    std::vector<Matrix<T>> inputs;
    inputs.push_back(std::move(trace.input));
    for (std::size_t i = 0; i < trace.layers.size(); ++i)
        inputs.push_back(std::move(trace.layers[i].output));
    return inputs;
}

} // namespace

std::optional<std::string> undifferentiablePart(const ModelSpec& spec) {
    const std::string covered = "the derivative passes cover attention, ffn, projections and "
                                "residuals; ";
    if (spec.embeddingNorm || spec.finalNorm)
        return covered + "this model has an embedding or final norm";
    for (std::size_t i = 0; i < spec.layers.size(); ++i)
        if (spec.layers[i].hasBlockParts())
            return covered + "layers[" + std::to_string(i) +
                   "] has norms, biases, grouped heads or an MLP";
    return std::nullopt;
}

template <class T>
std::vector<Matrix<T>> vjp(const Model<T>& model, const Matrix<T>& tokens,
                           const std::vector<Matrix<T>>& deltas, long extraOffset) {
    for (const Matrix<T>& delta : deltas)
        if (delta.rows() != tokens.rows() || delta.cols() != model.outputWidth())
            throw InputError("delta", "is " + std::to_string(delta.rows()) + " x " +
                                          std::to_string(delta.cols()) + ", the output is " +
                                          std::to_string(tokens.rows()) + " x " +
                                          std::to_string(model.outputWidth()));
    const std::vector<Matrix<T>> inputs = layerInputs(model, tokens, extraOffset);
    const long offset = model.spec().positional.offset + extraOffset;
    std::vector<Matrix<T>> grads = deltas;
    for (std::size_t i = model.layerCount(); i-- > 0;) {
        const LayerCache<T> cache = recompute(model, i, inputs[i], offset);
        throughLayer(cache, grads,
                     [&](const Matrix<T>& g) { return layerBackward(model, i, cache, g, offset); });
    }
    return grads;
}

template <class T>
Matrix<T> vjp(const Model<T>& model, const Matrix<T>& tokens, const Matrix<T>& delta,
              long extraOffset) {
    return vjp(model, tokens, std::vector<Matrix<T>>{delta}, extraOffset).front();
}

template <class T>
std::vector<Matrix<T>> jvp(const Model<T>& model, const Matrix<T>& tokens,
                           const std::vector<Matrix<T>>& directions, long extraOffset) {
    for (const Matrix<T>& direction : directions)
        if (direction.rows() != tokens.rows() || direction.cols() != tokens.cols())
            throw InputError("direction", "must have the shape of the tokens");
    const std::vector<Matrix<T>> inputs = layerInputs(model, tokens, extraOffset);
    const long offset = model.spec().positional.offset + extraOffset;
    std::vector<Matrix<T>> tangents = directions;
    for (std::size_t i = 0; i < model.layerCount(); ++i) {
        const LayerCache<T> cache = recompute(model, i, inputs[i], offset);
        throughLayer(cache, tangents,
                     [&](const Matrix<T>& t) { return layerTangent(model, i, cache, t, offset); });
    }
    return tangents;
}

template <class T>
Matrix<T> jvp(const Model<T>& model, const Matrix<T>& tokens, const Matrix<T>& direction,
              long extraOffset) {
    return jvp(model, tokens, std::vector<Matrix<T>>{direction}, extraOffset).front();
}

template <class T>
std::vector<bool> activationPattern(const Model<T>& model, const Matrix<T>& tokens,
                                    long extraOffset) {
    const std::vector<Matrix<T>> inputs = layerInputs(model, tokens, extraOffset);
    const long offset = model.spec().positional.offset + extraOffset;
    std::vector<bool> pattern;
    for (std::size_t i = 0; i < model.layerCount(); ++i) {
        const LayerCache<T> cache = recompute(model, i, inputs[i], offset);
        for (Eigen::Index e = 0; e < cache.pre.size(); ++e)
            pattern.push_back(cache.pre(e) > T(0));
        if (model.spec().layers[i].mixer.kind != Kind::SoftmaxLike) continue;
        for (const HeadCache<T>& hc : cache.heads)
            for (Eigen::Index s = 0; s < hc.scores.rows(); ++s)
                for (Eigen::Index t = 0; t < hc.scores.cols(); ++t)
                    if (cache.mask(s, t)) pattern.push_back(hc.scores(s, t) > T(0));
    }
    return pattern;
}

#define ATTNLAB_INSTANTIATE(T)                                                                     \
    template Matrix<T> vjp<T>(const Model<T>&, const Matrix<T>&, const Matrix<T>&, long);          \
    template Matrix<T> jvp<T>(const Model<T>&, const Matrix<T>&, const Matrix<T>&, long);          \
    template std::vector<Matrix<T>> vjp<T>(const Model<T>&, const Matrix<T>&,                      \
                                           const std::vector<Matrix<T>>&, long);                   \
    template std::vector<Matrix<T>> jvp<T>(const Model<T>&, const Matrix<T>&,                      \
                                           const std::vector<Matrix<T>>&, long);                   \
    template std::vector<bool> activationPattern<T>(const Model<T>&, const Matrix<T>&, long);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
ATTNLAB_INSTANTIATE(Rational)
#undef ATTNLAB_INSTANTIATE

} // namespace attnlab
