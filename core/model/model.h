// SPDX-License-Identifier: GPL-3.0-or-later
// A model with its weights materialised in scalar type T for a given token width, and its
// forward pass: absolute positions, then each layer (relu(X·W) pre-map, projections, heads,
// relative positions, mask, mixer, concat, Wo, residual) in order.
#pragma once

#include "core/model/block_ops.h"
#include "core/model/trace.h"
#include "core/spec/backend_choice.h"
#include "core/spec/model_spec.h"

namespace attnlab {

/// Whether a forward pass keeps the per-head n x n maps (views) or only outputs (checks, CLI
/// on long sequences).
enum class Maps { Keep, Drop };

/// How a forward pass evaluates; the defaults are the plain single-device evaluation.
struct Evaluation {
    long extraOffset = 0; // positions start at the spec's offset plus this
    /// Tensor parallel (properties.md §2.12) over this many parts: every layer computes its ffn
    /// and Q, K, V projections column-parallel (each part its contiguous block of columns, so
    /// its own heads when `parts` divides the head count) and its output projection
    /// row-parallel (each part multiplies its block of the head outputs by the matching rows of
    /// Wo; the partial products are added in part order, the all-reduce). 1 = unsplit.
    int parts = 1;
    /// All-true-mask (§2.7): attention mixers take the unmasked code path (dense rows, no mask
    /// consulted, never tiled) instead of the masked one.
    bool unmasked = false;
    /// > 0: only the first outputRows rows of the output are read (a sweep that perturbs the
    /// tokens from outputRows on and watches the rows before). The last layer's fused attention
    /// then computes no query block wholly past them; the later rows are unspecified.
    int outputRows = 0;
    /// >= 0: only the first `layers` layers run, and the output is the last one's, without the
    /// final norm (the derivative passes read every layer's input, never the model's output).
    /// outputRows applies to the model's own last layer only, so not when fewer layers run.
    int layers = -1;
    bool operator==(const Evaluation&) const = default;
};

/// A forward pass kept for sweeps that change a few token rows at a time (Model::forwardFrom):
/// every layer's input and its heads' concatenated attention output, the last layer's output
/// (before the final norm), f(X), and each layer's prefixReach (row_reach.h) over its rows.
template <class T>
struct ForwardRecord {
    std::vector<Matrix<T>> inputs, attention;
    Matrix<T> last, output;
    std::vector<std::vector<int>> reaches;
    /// Layer `index`'s output: the next layer's input, or `last`.
    const Matrix<T>& layerOutput(std::size_t index) const {
        return index + 1 < inputs.size() ? inputs[index + 1] : last;
    }
};

/// A layer's weights materialised in scalar type T (wk and wv have the key/value heads' columns
/// only; absent biases are empty).
template <class T>
struct LayerWeights {
    std::optional<Matrix<T>> ffn;
    Matrix<T> wq, wk, wv;
    std::optional<Matrix<T>> wo;
    RowVector<T> bq, bk, bv, bo;
    std::optional<NormWeights<T>> attentionNorm, mlpNorm;
    std::optional<MlpWeights<T>> mlp;
};

/// A layer's queries (every head), keys and values (the key/value heads only) of some rows.
template <class T>
struct Projections {
    Matrix<T> q, k, v;
};

template <class T>
class Model {
public:
    /// Materialises the weights for tokens of width d; throws InputError naming the layer and
    /// matrix when a shape does not fit (e.g. `layers[1].wq: matrix is 3 x 2, expected 4 x 2`).
    /// Attention is computed on the device `backend` resolves to (registry.h): a layer that keeps
    /// no maps whole when that device computes whole layers (the CPU), else head by head.
    Model(const ModelSpec& spec, int d, BackendChoice backend = BackendChoice::Cpu);

    /// f(X) with positions starting at the spec's offset plus `extraOffset`.
    Trace<T> forward(const Matrix<T>& tokens, Maps maps = Maps::Keep, long extraOffset = 0) const;
    /// f on every sequence of a batch (sequences may differ in length), evaluated the way a
    /// batched kernel does: the token-wise products (ffn, projections, Wo) run once over the
    /// rows of all sequences stacked, attention per sequence. One trace per sequence; throws
    /// InputError as `forward` does (a mask that does not fit a sequence's length, bad widths).
    std::vector<Trace<T>> forwardBatch(const std::vector<Matrix<T>>& batch, Maps maps,
                                       const Evaluation& how = {}) const;

    /// Whether forwardFrom can take blocks from a record: every layer runs on the fused CPU
    /// kernel (float or double, no ssm mixer, the CPU backend).
    bool reusesBlocks() const;
    /// f(tokens), kept for forwardFrom; its last layer is blocked as forwardFrom's is.
    ForwardRecord<T> record(const Matrix<T>& tokens) const;
    /// The first `rows` rows of f(tokens), for tokens as long as the recorded ones that differ
    /// from them in a few rows (perturbation sweeps). A layer none of whose input rows that the
    /// wanted rows can read (row_reach.h) changed gives the record's output; the others are
    /// computed whole, but of their attention only the query blocks whose query rows or read
    /// keys changed. The kept parts are the record's, bit for bit what they would be (rows past
    /// the wanted ones are unspecified). Requires reusesBlocks().
    Matrix<T> forwardFrom(const ForwardRecord<T>& base, const Matrix<T>& tokens, int rows) const;

    /// This model with the layers evaluatedInBlocks (model_spec.h) tiles or chunks at `size`
    /// (0: untiled and recurrent): the tiling check's models, its weights copied rather than
    /// materialised again (drawing random weights was a tenth of that check at n = 256).
    Model inBlocks(bool chunkwise, int size) const;

    const ModelSpec& spec() const { return spec_; }
    int inputWidth() const { return d_; }
    int outputWidth() const { return outputWidth_; }
    std::size_t layerCount() const { return weights_.size(); }
    const LayerWeights<T>& weights(std::size_t layer) const { return weights_.at(layer); }
    BackendChoice backend() const { return backend_; }
    /// The norm applied to the input before the first layer and after the last, when present.
    const std::optional<NormWeights<T>>& embeddingNorm() const { return embeddingNorm_; }
    const std::optional<NormWeights<T>>& finalNorm() const { return finalNorm_; }

    /// Layer `index`'s projections of the rows of x: its attention norm when the norms sit
    /// before the sublayers, the ffn pre-map, Q, K and V with their biases (`parts` as in
    /// Evaluation). The positions' rotations are not applied.
    Projections<T> project(std::size_t index, const Matrix<T>& x, int parts = 1) const;
    /// The rest of layer `index` after attention, row by row: output projection, residuals,
    /// norms and MLP (public for steps that compute attention their own way, decode.h).
    Matrix<T> finishBlock(std::size_t index, const Matrix<T>& x, const Matrix<T>& attention,
                          int parts) const;

private:
    using Weights = LayerWeights<T>;
    /// A record to take from, and how many first input rows of each layer the wanted output
    /// rows can read (neededInputRows).
    struct Reuse {
        const ForwardRecord<T>& record;
        std::vector<int> needed;
    };
    /// forwardBatch, keeping what a record holds in `keep` or reusing from `from`.
    std::vector<Trace<T>> run(const std::vector<Matrix<T>>& batch, Maps maps, const Evaluation& how,
                              ForwardRecord<T>* keep, const Reuse* from) const;
    std::vector<Matrix<T>> applyLayer(std::size_t index, const std::vector<Matrix<T>>& xs,
                                      std::vector<Trace<T>>& traces, Maps maps, long offset,
                                      const Evaluation& how, ForwardRecord<T>* keep,
                                      const Reuse* from) const;

    ModelSpec spec_;
    int d_;
    int outputWidth_;
    BackendChoice backend_;
    std::vector<Weights> weights_;
    std::optional<NormWeights<T>> embeddingNorm_, finalNorm_;
};

/// Throws InputError when the model cannot run in `precision` (exp, sin, cos in exact mode),
/// with the path of the layer or field concerned.
void checkPrecision(const ModelSpec& spec, Precision precision);

} // namespace attnlab
