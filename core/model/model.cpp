// Building a model's weights and running its forward pass.
#include "core/model/model.h"

#include "core/backend/registry.h"
#include "core/base/error.h"
#include "core/model/matrix_times.h"

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
Model<T>::Model(const ModelSpec& spec, int d, BackendChoice backend)
    : spec_(spec), d_(d), backend_(backend) {
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
    for (const LayerSpec& layer : spec_.layers)
        if (!layerDevice(backend_, layer, precisionOf<T>())) return false;
    return true;
}

template <class T>
ForwardRecord<T> Model<T>::record(const Matrix<T>& tokens) const {
    Evaluation how;
    how.outputRows = int(tokens.rows()); // every row, in forwardFrom's query blocks
    ForwardRecord<T> kept;
    kept.output = std::move(run({tokens}, Maps::Drop, how, &kept, nullptr).front().output);
    return kept;
}

template <class T>
Matrix<T> Model<T>::forwardFrom(const ForwardRecord<T>& base, const Matrix<T>& tokens,
                                int rows) const {
    Evaluation how;
    how.outputRows = rows;
    return run({tokens}, Maps::Drop, how, nullptr, &base).front().output.topRows(rows);
}

template <class T>
std::vector<Trace<T>> Model<T>::run(const std::vector<Matrix<T>>& batch, Maps maps,
                                    const Evaluation& how, ForwardRecord<T>* keep,
                                    const ForwardRecord<T>* from) const {
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
        traces[b].input = tokens + absolutePositions<T>(positional, int(tokens.rows()), d_);
        xs.push_back(traces[b].input);
    }
    for (std::size_t i = 0; i < spec_.layers.size(); ++i)
        xs = applyLayer(i, xs, traces, maps, offset, how, keep, from);
    for (std::size_t b = 0; b < batch.size(); ++b)
        traces[b].output = std::move(xs[b]);
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

// Part `part` of `parts` contiguous, nearly equal blocks of 0..total-1: [first, first + size).
std::pair<Eigen::Index, Eigen::Index> partBlock(Eigen::Index total, int parts, int part) {
    const Eigen::Index first = total * part / parts, next = total * (part + 1) / parts;
    return {first, next - first};
}

// a·b with b's columns split into `parts` blocks, each block's product computed on its own
// (tensor parallel, column-parallel: nothing is reduced, the blocks are gathered).
template <class T>
Matrix<T> columnParallel(const Matrix<T>& a, const Matrix<T>& b, int parts) {
    if (parts <= 1) return times<T>(a, b);
    Matrix<T> out(a.rows(), b.cols());
    for (int part = 0; part < parts; ++part) {
        const auto [first, size] = partBlock(b.cols(), parts, part);
        out.middleCols(first, size) = times<T>(a, b.middleCols(first, size));
    }
    return out;
}

// a·b with the inner dimension split into `parts` blocks: the partial products are added in
// part order (tensor parallel, row-parallel: the all-reduce).
template <class T>
Matrix<T> rowParallel(const Matrix<T>& a, const Matrix<T>& b, int parts) {
    if (parts <= 1) return times<T>(a, b);
    Matrix<T> out = Matrix<T>::Zero(a.rows(), b.cols());
    for (int part = 0; part < parts; ++part) {
        const auto [first, size] = partBlock(a.cols(), parts, part);
        if (size > 0) out += times<T>(a.middleCols(first, size), b.middleRows(first, size));
    }
    return out;
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
                                            const ForwardRecord<T>* from) const {
    const LayerSpec& layer = spec_.layers[index];
    const Weights& w = weights_[index];
    const Matrix<T> x = stackRows(xs);
    if (keep) keep->inputs.push_back(x);
    Matrix<T> h = x;
    if (w.ffn)
        h = columnParallel(x, *w.ffn, how.parts).unaryExpr([](const T& e) { return relu(e); });
    const Matrix<T> q = columnParallel(h, w.wq, how.parts), k = columnParallel(h, w.wk, how.parts),
                    v = columnParallel(h, w.wv, how.parts);
    // Without maps, a layer goes whole to the device that computes layers (the CPU's fused
    // kernel: no n x n mask, scores or weights are formed), else head by head.
    const Device* wholeLayer = maps == Maps::Drop && !how.unmasked
                                   ? layerDevice(backend_, layer, precisionOf<T>())
                                   : nullptr;
    const int heads = layer.heads;
    const auto p = q.cols() / heads, pv = v.cols() / heads;
    Matrix<T> concat(x.rows(), v.cols());
    std::vector<LayerTrace<T>> layerTraces(xs.size());
    const PositionalSpec& pos = spec_.positional;
    Eigen::Index start = 0;
    for (std::size_t b = 0; b < xs.size(); ++b) {
        const int n = static_cast<int>(xs[b].rows());
        BoolMatrix mask;
        try {
            if (wholeLayer)
                layer.mask.validate(n);
            else
                mask = buildMask(layer.mask, n);
        } catch (const InputError& e) {
            throw InputError(layerPath(index) + ".mask", e.what());
        }
        std::vector<int> allMasked;
        if (wholeLayer) {
            const bool last = index + 1 == spec_.layers.size();
            std::optional<LayerReuse<T>> reuse;
            const Matrix<T>* recorded = from ? &from->inputs.at(index) : nullptr;
            if (recorded && xs.size() == 1 && recorded->rows() == x.rows() &&
                recorded->cols() == x.cols()) // else everything is computed afresh
                reuse.emplace(LayerReuse<T>{from->attention.at(index), changedRows(x, *recorded)});
            const Matrix<T> qs = q.middleRows(start, n), ks = k.middleRows(start, n),
                            vs = v.middleRows(start, n);
            LayerResult<T> r = wholeLayer->attendLayer(LayerTask<T>{
                layer, pos, qs, ks, vs, offset, last && how.outputRows > 0 ? how.outputRows : -1,
                reuse ? &*reuse : nullptr});
            concat.middleRows(start, n) = r.attention;
            allMasked = std::move(r.allMaskedRows);
            noteBackend(traces[b], layerTraces[b], index, 0, wholeLayer->info().backend, "");
        }
        for (int head = 0; head < heads && !wholeLayer; ++head) {
            Matrix<T> qh = q.block(start, head * p, n, p), kh = k.block(start, head * p, n, p);
            const Matrix<T> vh = v.block(start, head * pv, n, pv);
            if (pos.kind == PositionalSpec::Kind::Rope) {
                applyRope(qh, offset, pos.base);
                applyRope(kh, offset, pos.base);
            }
            Matrix<T> bias;
            if (pos.kind == PositionalSpec::Kind::Alibi) bias = alibiBias<T>(pos, n, head, heads);
            const Matrix<T>* biasPtr = bias.size() ? &bias : nullptr;
            HeadRun<T> run = attendOn<T>(backend_, {layer.mixer, qh, kh, vh, biasPtr, layer.mask,
                                                    mask, maps == Maps::Keep, how.unmasked});
            HeadResult<T>& r = run.result;
            noteBackend(traces[b], layerTraces[b], index, head, run.backend, run.notice);
            concat.block(start, head * pv, n, pv) = r.output;
            if (head == 0) allMasked = r.allMaskedRows;
            if (maps == Maps::Keep)
                layerTraces[b].heads.push_back({std::move(r.scores), std::move(r.weights)});
        }
        for (int row : allMasked)
            traces[b].warnings.push_back("layer " + std::to_string(index) + ": row " +
                                         std::to_string(row) +
                                         " has no allowed key (all-masked row)");
        start += n;
    }
    if (keep) keep->attention.push_back(concat);
    Matrix<T> y = w.wo ? rowParallel(concat, *w.wo, how.parts) : concat;
    if (layer.residual) y += x;
    std::vector<Matrix<T>> ys;
    start = 0;
    for (std::size_t b = 0; b < xs.size(); ++b) {
        ys.push_back(y.middleRows(start, xs[b].rows()));
        start += xs[b].rows();
        layerTraces[b].output = ys.back();
        traces[b].layers.push_back(std::move(layerTraces[b]));
    }
    return ys;
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
