// SPDX-License-Identifier: GPL-3.0-or-later
// Building a model's weights and running its forward pass.
#include "core/model/model.h"

#include "core/backend/registry.h"
#include "core/base/error.h"
#include "core/model/parallel_products.h"
#include "core/model/row_reach.h"

namespace attnlab {

namespace {
std::string layerPath(std::size_t i) {
    return "layers[" + std::to_string(i) + "]";
}

// Throws InputError naming layer i when a float computation has overflowed in it: an output that
// is infinite or NaN would make every difference and verdict after it meaningless.
template <class T>
void requireFiniteOutputs(const std::vector<Matrix<T>>& xs, std::size_t i) {
    if constexpr (!ScalarOps<T>::exact)
        for (const Matrix<T>& x : xs)
            if (!x.allFinite())
                throw InputError(layerPath(i),
                                 "its output is not finite (inf or NaN): the computation "
                                 "overflows " +
                                     std::string(precisionName(precisionOf<T>())) +
                                     "; scale the tokens or the weights down");
}

// Width of a projection: given values fix it, identity and random keep the input width.
int projectionWidth(const MatrixSpec& spec, int d) {
    return spec.fixedCols() >= 0 ? spec.fixedCols() : d;
}

// The projection widths of a layer on inputs of width d: queries (all heads), keys and values
// (the key/value heads only); throws InputError when the heads do not divide them.
struct ProjectionWidths {
    int q, k, v;
};
ProjectionWidths projectionWidths(const LayerSpec& layer, int d, const std::string& path) {
    if (layer.heads < 1) throw InputError(path + ".heads", "must be a positive integer");
    const int heads = layer.heads, kv = layer.keyValueHeads();
    if (layer.kvHeads < 0 || heads % kv != 0)
        throw InputError(path + ".kv_heads", std::to_string(kv) +
                                                 " key/value heads do not divide " +
                                                 std::to_string(heads) + " heads");
    const int q = projectionWidth(layer.wq, d);
    if (q % heads != 0)
        throw InputError(path + ".heads",
                         std::to_string(heads) + " heads do not divide p = " + std::to_string(q));
    // Identity and random key and value maps take the width their heads need.
    const int k = layer.wk.fixedCols() >= 0 ? layer.wk.fixedCols() : q / heads * kv;
    const int v =
        layer.wv.fixedCols() >= 0 ? layer.wv.fixedCols() : (kv == heads ? d : d / heads * kv);
    if (v % kv != 0 || v == 0)
        throw InputError(path + ".heads", std::to_string(kv) + " value heads do not divide p_v = " +
                                              std::to_string(v));
    return {q, k, v};
}

// m with each of its `groups` column blocks repeated heads/groups times (grouped-query
// attention: every query head gets its key/value head's block).
template <class T>
Matrix<T> repeatGroups(Matrix<T>&& m, int heads, int groups) {
    if (heads == groups) return std::move(m);
    const Eigen::Index width = m.cols() / groups;
    Matrix<T> out(m.rows(), width * heads);
    for (int h = 0; h < heads; ++h)
        out.middleCols(h * width, width) = m.middleCols(h / (heads / groups) * width, width);
    return out;
}
} // namespace

template <class T>
Model<T>::Model(const ModelSpec& spec, int d, BackendChoice backend)
    : spec_(spec), d_(d), backend_(backend) {
    if (spec.layers.empty()) throw InputError("layers", "must be a non-empty array");
    if (spec.embeddingNorm) embeddingNorm_.emplace(*spec.embeddingNorm, d, "embedding_norm");
    int width = d;
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        const LayerSpec& layer = spec.layers[i];
        const std::string path = layerPath(i);
        Weights w;
        if (layer.attentionNorm)
            w.attentionNorm.emplace(*layer.attentionNorm, width, path + ".attention_norm");
        if (layer.ffn) w.ffn = materializeAt<T>(*layer.ffn, width, width, path + ".ffn");
        const auto [p, pk, pv] = projectionWidths(layer, width, path);
        if (pk * layer.heads != p * layer.keyValueHeads())
            throw InputError(path + ".wk",
                             "has " + std::to_string(pk) + " columns, " +
                                 std::to_string(layer.keyValueHeads()) +
                                 " key heads of the queries' width need " +
                                 std::to_string(p / layer.heads * layer.keyValueHeads()));
        w.wq = materializeAt<T>(layer.wq, width, p, path + ".wq");
        w.wk = materializeAt<T>(layer.wk, width, pk, path + ".wk");
        w.wv = materializeAt<T>(layer.wv, width, pv, path + ".wv");
        if (layer.bq) w.bq = materializeRow<T>(*layer.bq, p, path + ".bq");
        if (layer.bk) w.bk = materializeRow<T>(*layer.bk, pk, path + ".bk");
        if (layer.bv) w.bv = materializeRow<T>(*layer.bv, pv, path + ".bv");
        const int concat = pv / layer.keyValueHeads() * layer.heads;
        int out = concat;
        if (layer.wo) {
            const int dout = layer.wo->fixedCols() >= 0 ? layer.wo->fixedCols() : width;
            w.wo = materializeAt<T>(*layer.wo, concat, dout, path + ".wo");
            if (layer.bo) w.bo = materializeRow<T>(*layer.bo, dout, path + ".bo");
            out = dout;
        } else if (layer.bo) {
            throw InputError(path + ".bo", "needs an output projection wo");
        }
        if ((layer.residual || layer.mlp || layer.mlpNorm) && out != width)
            throw InputError(path + ".residual", "needs output width " + std::to_string(width) +
                                                     ", the layer outputs " + std::to_string(out));
        if (layer.parallelResidual && layer.normPlacement == LayerSpec::NormPlacement::Post)
            throw InputError(path + ".parallel_residual",
                             "both sublayers read the layer's input, so the norms sit before them: "
                             "use \"norm\": \"pre\"");
        if (layer.mlpNorm) w.mlpNorm.emplace(*layer.mlpNorm, width, path + ".mlp_norm");
        if (layer.mlp) w.mlp.emplace(*layer.mlp, width, path + ".mlp");
        if (layer.mixer.kind == MixerSpec::Kind::Ssm && !layer.mask.isAll())
            throw InputError(path + ".mask", "mixer ssm takes no mask other than all");
        if (spec.positional.kind == PositionalSpec::Kind::Rope &&
            spec.positional.rotaryDim > p / layer.heads)
            throw InputError("positional.rotary_dim",
                             std::to_string(spec.positional.rotaryDim) + " is wider than a head (" +
                                 std::to_string(p / layer.heads) + ") in " + path);
        if (spec.positional.kind == PositionalSpec::Kind::Alibi &&
            !spec.positional.slopes.empty() &&
            static_cast<int>(spec.positional.slopes.size()) != layer.heads)
            throw InputError("positional.slopes", std::to_string(spec.positional.slopes.size()) +
                                                      " slopes for " + std::to_string(layer.heads) +
                                                      " heads in " + path);
        weights_.push_back(std::move(w));
        width = out;
    }
    outputWidth_ = width;
    if (spec.finalNorm) finalNorm_.emplace(*spec.finalNorm, width, "final_norm");
}

template <class T>
Trace<T> Model<T>::forward(const Matrix<T>& tokens, Maps maps, long extraOffset) const {
    Evaluation how;
    how.extraOffset = extraOffset;
    return std::move(forwardBatch({tokens}, maps, how).front());
}

template <class T>
std::vector<Trace<T>> Model<T>::forwardBatch(const std::vector<Matrix<T>>& batch, Maps maps,
                                             const Evaluation& how) const {
    return run(batch, maps, how, nullptr, nullptr);
}

template <class T>
bool Model<T>::reusesBlocks() const {
    for (const LayerSpec& layer : spec_.layers) { // only the CPU's fused kernel reuses blocks
        const Device* device = layerDevice(backend_, layer, precisionOf<T>()).device;
        if (!device || device->info().backend != "cpu") return false;
    }
    return true;
}

template <class T>
ForwardRecord<T> Model<T>::record(const Matrix<T>& tokens) const {
    Evaluation how;
    how.outputRows = int(tokens.rows()); // every row, in forwardFrom's query blocks
    ForwardRecord<T> kept;
    kept.output = std::move(run({tokens}, Maps::Drop, how, &kept, nullptr).front().output);
    for (const LayerSpec& layer : spec_.layers)
        kept.reaches.push_back(prefixReach(layer.mask, int(tokens.rows())));
    return kept;
}

template <class T>
Matrix<T> Model<T>::forwardFrom(const ForwardRecord<T>& base, const Matrix<T>& tokens,
                                int rows) const {
    Evaluation how;
    how.outputRows = rows;
    const bool fits = base.reaches.size() == spec_.layers.size() && !base.reaches.empty() &&
                      base.reaches.front().size() == std::size_t(tokens.rows());
    const Reuse from{base, fits ? neededInputRows(base.reaches, rows)
                                : std::vector<int>(spec_.layers.size() + 1, int(tokens.rows()))};
    return run({tokens}, Maps::Drop, how, nullptr, &from).front().output.topRows(rows);
}

template <class T>
std::vector<Trace<T>> Model<T>::run(const std::vector<Matrix<T>>& batch, Maps maps,
                                    const Evaluation& how, ForwardRecord<T>* keep,
                                    const Reuse* from) const {
    const long offset = spec_.positional.offset + how.extraOffset;
    PositionalSpec positional = spec_.positional;
    positional.offset = offset;
    std::vector<Trace<T>> traces(batch.size());
    if (batch.empty()) return traces;
    std::vector<Matrix<T>> xs;
    for (std::size_t b = 0; b < batch.size(); ++b) {
        const Matrix<T>& tokens = batch[b];
        if (tokens.cols() != d_)
            throw InputError("tokens", "have width " + std::to_string(tokens.cols()) +
                                           ", the model was built for " + std::to_string(d_));
        traces[b].input =
            positional.isAbsolute()
                ? Matrix<T>(tokens + absolutePositions<T>(positional, int(tokens.rows()), d_))
                : tokens;
        if (embeddingNorm_) traces[b].input = embeddingNorm_->apply(traces[b].input);
        // forwardFrom reads only the output: its traces keep no input or layer outputs (a
        // sweep's forwards of a one-layer model were mostly these copies).
        xs.push_back(from ? std::move(traces[b].input) : traces[b].input);
    }
    const std::size_t layers = how.layers >= 0
                                   ? std::min(std::size_t(how.layers), spec_.layers.size())
                                   : spec_.layers.size();
    for (std::size_t i = 0; i < layers; ++i) {
        xs = applyLayer(i, xs, traces, maps, offset, how, keep, from);
        requireFiniteOutputs(xs, i);
    }
    if (keep) keep->last = xs.front();
    const bool whole = layers == spec_.layers.size();
    for (std::size_t b = 0; b < batch.size(); ++b)
        traces[b].output = finalNorm_ && whole ? finalNorm_->apply(xs[b]) : std::move(xs[b]);
    return traces;
}

namespace {

// The rows of every sequence, one below the other.
template <class T>
Matrix<T> stackRows(const std::vector<Matrix<T>>& xs) {
    Eigen::Index rows = 0;
    for (const auto& x : xs)
        rows += x.rows();
    Matrix<T> out(rows, xs.empty() ? 0 : xs.front().cols());
    Eigen::Index at = 0;
    for (const auto& x : xs) {
        out.middleRows(at, x.rows()) = x;
        at += x.rows();
    }
    return out;
}

// Whether the first `rows` rows of x are those of `was` bit for bit (NaN counts as changed).
template <class T>
bool sameFirstRows(const Matrix<T>& x, const Matrix<T>& was, int rows) {
    if (x.rows() != was.rows() || x.cols() != was.cols()) return false;
    return (x.topRows(rows).array() == was.topRows(rows).array()).all();
}

// Which rows of x differ from those of `was`, a matrix of the same shape (NaN counts as changed).
template <class T>
std::vector<bool> changedRows(const Matrix<T>& x, const Matrix<T>& was) {
    std::vector<bool> changed(std::size_t(x.rows()));
    for (Eigen::Index r = 0; r < x.rows(); ++r)
        changed[std::size_t(r)] = (x.row(r).array() != was.row(r).array()).any();
    return changed;
}

} // namespace

template <class T>
std::vector<Matrix<T>> Model<T>::applyLayer(std::size_t index, const std::vector<Matrix<T>>& xs,
                                            std::vector<Trace<T>>& traces, Maps maps, long offset,
                                            const Evaluation& how, ForwardRecord<T>* keep,
                                            const Reuse* from) const {
    const LayerSpec& layer = spec_.layers[index];
    const Matrix<T> stacked = xs.size() == 1 ? Matrix<T>() : stackRows(xs);
    const Matrix<T>& x = xs.size() == 1 ? xs.front() : stacked; // one sequence: not copied
    if (keep) keep->inputs.push_back(x);
    // Every input row the wanted output rows can read is the record's: so are those rows (each
    // row's arithmetic reads only them, over matrices of the same shape).
    if (from && xs.size() == 1 &&
        sameFirstRows(x, from->record.inputs.at(index), from->needed.at(index))) {
        traces.front().layers.push_back({});
        return {from->record.layerOutput(index)};
    }
    const int heads = layer.heads, groups = layer.keyValueHeads();
    Projections<T> projected = project(index, x, how.parts);
    const Matrix<T> q = std::move(projected.q);
    const Matrix<T> k = repeatGroups<T>(std::move(projected.k), heads, groups);
    const Matrix<T> v = repeatGroups<T>(std::move(projected.v), heads, groups);
    // Without maps, a layer goes whole (every head of every sequence) to the device that
    // computes layers (the CPU's fused kernel, an accelerator's layer kernel: no n x n mask,
    // scores or weights are formed), else head by head.
    const LayerPick pick = maps == Maps::Drop && !how.unmasked
                               ? layerDevice(backend_, layer, precisionOf<T>())
                               : LayerPick{};
    const Device* wholeLayer = pick.device;
    const auto p = q.cols() / heads, pv = v.cols() / heads;
    Matrix<T> concat(x.rows(), v.cols());
    std::vector<LayerTrace<T>> layerTraces(xs.size());
    const PositionalSpec& pos = spec_.positional;
    std::vector<BoolMatrix> masks(xs.size()); // head by head only
    for (std::size_t b = 0; b < xs.size(); ++b) {
        const int n = static_cast<int>(xs[b].rows());
        try {
            if (wholeLayer)
                layer.mask.validate(n);
            else
                masks[b] = buildMask(layer.mask, n);
        } catch (const InputError& e) {
            throw InputError(layerPath(index) + ".mask", e.what());
        }
    }
    std::vector<std::vector<int>> allMasked(xs.size());
    if (wholeLayer) {
        const bool last = index + 1 == spec_.layers.size();
        std::optional<LayerReuse<T>> reuse;
        const Matrix<T>* recorded = from ? &from->record.inputs.at(index) : nullptr;
        if (recorded && xs.size() == 1 && recorded->rows() == x.rows() &&
            recorded->cols() == x.cols()) // else everything is computed afresh
            reuse.emplace(
                LayerReuse<T>{from->record.attention.at(index), changedRows(x, *recorded)});
        std::vector<int> lengths;
        for (const auto& xb : xs)
            lengths.push_back(int(xb.rows()));
        LayerRun<T> run = attendLayerOn<T>(
            *wholeLayer, {layer, pos, q, k, v, std::move(lengths), offset,
                          last && how.outputRows > 0 && xs.size() == 1 ? how.outputRows : -1,
                          reuse ? &*reuse : nullptr});
        concat = std::move(run.result.attention);
        allMasked = std::move(run.result.allMaskedRows);
        for (std::size_t b = 0; b < xs.size(); ++b)
            noteBackend(traces[b], layerTraces[b], index, 0, run.backend,
                        run.notice.empty() ? pick.notice : run.notice);
    }
    Eigen::Index start = 0;
    for (std::size_t b = 0; b < xs.size(); ++b) {
        const int n = static_cast<int>(xs[b].rows());
        for (int head = 0; head < heads && !wholeLayer; ++head) {
            Matrix<T> qh = q.block(start, head * p, n, p), kh = k.block(start, head * p, n, p);
            const Matrix<T> vh = v.block(start, head * pv, n, pv);
            if (pos.kind == PositionalSpec::Kind::Rope) {
                applyRope(qh, pos, offset);
                applyRope(kh, pos, offset);
            }
            Matrix<T> bias;
            if (pos.kind == PositionalSpec::Kind::Alibi) bias = alibiBias<T>(pos, n, head, heads);
            const Matrix<T>* biasPtr = bias.size() ? &bias : nullptr;
            HeadRun<T> run = attendOn<T>(backend_, {layer.mixer, qh, kh, vh, biasPtr, layer.mask,
                                                    masks[b], maps == Maps::Keep, how.unmasked});
            HeadResult<T>& r = run.result;
            noteBackend(traces[b], layerTraces[b], index, head, run.backend, run.notice);
            concat.block(start, head * pv, n, pv) = r.output;
            if (head == 0) allMasked[b] = r.allMaskedRows;
            if (maps == Maps::Keep)
                layerTraces[b].heads.push_back({std::move(r.scores), std::move(r.weights)});
        }
        for (int row : allMasked[b])
            traces[b].warnings.push_back("layer " + std::to_string(index) + ": row " +
                                         std::to_string(row) +
                                         " has no allowed key (all-masked row)");
        start += n;
    }
    if (keep) keep->attention.push_back(concat);
    const Matrix<T> y = finishBlock(index, x, concat, how.parts);
    std::vector<Matrix<T>> ys;
    start = 0;
    for (std::size_t b = 0; b < xs.size(); ++b) {
        ys.push_back(y.middleRows(start, xs[b].rows()));
        start += xs[b].rows();
        if (!from) layerTraces[b].output = ys.back();
        traces[b].layers.push_back(std::move(layerTraces[b]));
    }
    return ys;
}

template <class T>
Projections<T> Model<T>::project(std::size_t index, const Matrix<T>& x, int parts) const {
    const LayerSpec& layer = spec_.layers[index];
    const Weights& w = weights_[index];
    const bool preNorm = layer.normPlacement == LayerSpec::NormPlacement::Pre;
    const Matrix<T>* in = &x; // x, normed or through the FFN where the layer has them
    Matrix<T> h;
    if (preNorm && w.attentionNorm) {
        h = w.attentionNorm->apply(x);
        in = &h;
    }
    if (w.ffn) {
        h = columnParallel(*in, *w.ffn, parts).unaryExpr([](const T& e) { return relu(e); });
        in = &h;
    }
    return {withBias<T>(columnParallel(*in, w.wq, parts), w.bq),
            withBias<T>(columnParallel(*in, w.wk, parts), w.bk),
            withBias<T>(columnParallel(*in, w.wv, parts), w.bv)};
}

template <class T>
Matrix<T> Model<T>::finishBlock(std::size_t index, const Matrix<T>& x, const Matrix<T>& attention,
                                int parts) const {
    const LayerSpec& layer = spec_.layers[index];
    const Weights& w = weights_[index];
    const bool preNorm = layer.normPlacement == LayerSpec::NormPlacement::Pre;
    Matrix<T> y = w.wo ? withBias<T>(rowParallel(attention, *w.wo, parts), w.bo) : attention;
    const auto mlpOf = [&](const Matrix<T>& in) {
        return w.mlp->apply(preNorm && w.mlpNorm ? w.mlpNorm->apply(in) : in, parts);
    };
    if (layer.parallelResidual) { // both sublayers read x
        if (layer.residual) y += x;
        if (w.mlp) y += mlpOf(x);
        return y;
    }
    if (layer.residual) y += x;
    if (!preNorm && w.attentionNorm) y = w.attentionNorm->apply(y);
    if (!w.mlp) return y;
    Matrix<T> z = mlpOf(y);
    if (layer.residual) z += y;
    return !preNorm && w.mlpNorm ? w.mlpNorm->apply(z) : z;
}

void checkPrecision(const ModelSpec& spec, Precision precision) {
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        const LayerSpec& layer = spec.layers[i];
        try {
            layer.mixer.checkPrecision(precision);
            spec.positional.checkPrecision(precision, layer.heads);
            for (const auto* norm : {&layer.attentionNorm, &layer.mlpNorm})
                if (*norm) (*norm)->checkPrecision(precision);
            if (layer.mlp) layer.mlp->checkPrecision(precision);
        } catch (const InputError& e) {
            throw InputError(std::string(e.what()) + " (" + layerPath(i) + ")");
        }
    }
    for (const auto* norm : {&spec.embeddingNorm, &spec.finalNorm})
        if (*norm) (*norm)->checkPrecision(precision);
}

template <class T>
Model<T> Model<T>::inBlocks(bool chunkwise, int size) const {
    Model<T> copy = *this;
    copy.spec_ = evaluatedInBlocks(spec_, chunkwise, size);
    return copy;
}

template class Model<float>;
template class Model<double>;
template class Model<Rational>;

} // namespace attnlab
