// SPDX-License-Identifier: GPL-3.0-or-later
// A decode step against a KV cache: prefill of the first n − m tokens, then the last m tokens'
// queries against all n keys and values, layer by layer.
#include "core/model/decode.h"

#include "core/backend/registry.h"
#include "core/base/error.h"
#include "core/model/parallel_products.h"

namespace attnlab {

bool DecodeStep::operator==(const DecodeStep& o) const {
    if (queries != o.queries || alignment != o.alignment || mask.has_value() != o.mask.has_value())
        return false;
    return !mask || (mask->rows() == o.mask->rows() && mask->cols() == o.mask->cols() &&
                     (*mask == *o.mask).all());
}

BoolMatrix alignedRows(const BoolMatrix& square, int queries, CausalAlignment alignment) {
    return alignment == CausalAlignment::BottomRight ? BoolMatrix(square.bottomRows(queries))
                                                     : BoolMatrix(square.topRows(queries));
}

void checkDecodeStep(const DecodeStep& step, const ModelSpec& spec, int n) {
    if (step.queries < 1 || step.queries > n)
        throw InputError("decode.queries", "decoding " + std::to_string(step.queries) +
                                               " queries needs 1 ≤ m ≤ n = " + std::to_string(n));
    if (step.mask && (step.mask->rows() != step.queries || step.mask->cols() != n))
        throw InputError("decode.mask", "the mask is " + std::to_string(step.mask->rows()) + " x " +
                                            std::to_string(step.mask->cols()) +
                                            ", the decode step needs " +
                                            std::to_string(step.queries) + " x " +
                                            std::to_string(n) + " (m queries x n keys)");
    for (std::size_t i = 0; i < spec.layers.size(); ++i)
        if (spec.layers[i].mixer.kind == MixerSpec::Kind::Ssm)
            throw InputError("layers[" + std::to_string(i) + "].mixer",
                             "ssm keeps a state, not a KV cache: the decode step takes attention "
                             "mixers only");
}

namespace {

std::string layerPath(std::size_t i) {
    return "layers[" + std::to_string(i) + "]";
}

// Where one head's attention runs: the rows of its queries, the keys it reads, its mask.
struct Span {
    int firstQuery, queries, keys;
    const BoolMatrix& mask;
};

// The attention of every head of layer `index` for the queries of `span`, into the rows of
// `concat`; maps kept in `layerTrace` when it is given. Warnings for all-masked rows.
template <class T>
void attend(const Model<T>& model, std::size_t index, const Projections<T>& proj, long offset,
            const Span& span, Matrix<T>& concat, LayerTrace<T>* layerTrace, Trace<T>& trace,
            const std::string& what) {
    if (span.queries == 0) return;
    const LayerSpec& layer = model.spec().layers[index];
    const PositionalSpec& pos = model.spec().positional;
    const int heads = layer.heads, groups = layer.keyValueHeads();
    const auto p = proj.q.cols() / heads, pv = proj.v.cols() / groups;
    const int n = int(proj.q.rows());
    for (int head = 0; head < heads; ++head) {
        const int group = head / (heads / groups);
        Matrix<T> qh = proj.q.middleCols(head * p, p), kh = proj.k.middleCols(group * p, p);
        if (pos.kind == PositionalSpec::Kind::Rope) { // row i sits at position i + offset
            applyRope(qh, pos, offset);
            applyRope(kh, pos, offset);
        }
        const Matrix<T> q = qh.middleRows(span.firstQuery, span.queries), k = kh.topRows(span.keys);
        const Matrix<T> v = proj.v.block(0, group * pv, span.keys, pv);
        Matrix<T> bias;
        if (pos.kind == PositionalSpec::Kind::Alibi)
            bias = alibiBias<T>(pos, n, head, heads)
                       .block(span.firstQuery, 0, span.queries, span.keys);
        HeadRun<T> run =
            attendOn<T>(model.backend(), {layer.mixer, q, k, v, bias.size() ? &bias : nullptr,
                                          layer.mask, span.mask, layerTrace != nullptr, false});
        if (layerTrace) noteBackend(trace, *layerTrace, index, head, run.backend, run.notice);
        concat.block(span.firstQuery, head * pv, span.queries, pv) = run.result.output;
        if (head == 0)
            for (int row : run.result.allMaskedRows)
                trace.warnings.push_back("layer " + std::to_string(index) + ": " + what + " row " +
                                         std::to_string(span.firstQuery + row) +
                                         " has no allowed key (all-masked row)");
        if (layerTrace)
            layerTrace->heads.push_back(
                {std::move(run.result.scores), std::move(run.result.weights)});
    }
}

} // namespace

template <class T>
Trace<T> decode(const Model<T>& model, const Matrix<T>& tokens, const DecodeStep& step, Maps maps) {
    const ModelSpec& spec = model.spec();
    const int n = int(tokens.rows()), m = step.queries, c = n - m;
    checkDecodeStep(step, spec, n);
    if (tokens.cols() != model.inputWidth())
        throw InputError("tokens", "have width " + std::to_string(tokens.cols()) +
                                       ", the model was built for " +
                                       std::to_string(model.inputWidth()));
    PositionalSpec positional = spec.positional;
    Matrix<T> x = tokens + absolutePositions<T>(positional, n, int(tokens.cols()));
    if (model.embeddingNorm()) x = model.embeddingNorm()->apply(x);
    Trace<T> trace;
    trace.input = x.bottomRows(m);
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        const LayerSpec& layer = spec.layers[i];
        BoolMatrix square;
        try {
            square = buildMask(layer.mask, n);
        } catch (const InputError& e) {
            throw InputError(layerPath(i) + ".mask", e.what());
        }
        const BoolMatrix prefillMask = square.topLeftCorner(c, c);
        const BoolMatrix decodeMask =
            step.mask ? *step.mask : alignedRows(square, m, step.alignment);
        const Projections<T> proj = model.project(i, x);
        Matrix<T> concat(n, proj.v.cols() / layer.keyValueHeads() * layer.heads);
        LayerTrace<T> layerTrace;
        attend(model, i, proj, positional.offset, Span{0, c, c, prefillMask}, concat,
               static_cast<LayerTrace<T>*>(nullptr), trace, "prefill");
        attend(model, i, proj, positional.offset, Span{c, m, n, decodeMask}, concat, &layerTrace,
               trace, "decode query");
        if (maps == Maps::Drop) layerTrace.heads.clear();
        x = model.finishBlock(i, x, concat, 1);
        layerTrace.output = x.bottomRows(m);
        trace.layers.push_back(std::move(layerTrace));
    }
    trace.output =
        model.finalNorm() ? model.finalNorm()->apply(x.bottomRows(m)) : Matrix<T>(x.bottomRows(m));
    return trace;
}

template Trace<float> decode<float>(const Model<float>&, const Matrix<float>&, const DecodeStep&,
                                    Maps);
template Trace<double> decode<double>(const Model<double>&, const Matrix<double>&,
                                      const DecodeStep&, Maps);
template Trace<Rational> decode<Rational>(const Model<Rational>&, const Matrix<Rational>&,
                                          const DecodeStep&, Maps);

} // namespace attnlab
