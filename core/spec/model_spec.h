// SPDX-License-Identifier: GPL-3.0-or-later
// What a model is, as a scenario states it: positional information and a stack of layers
// (properties.md §1.3), each an attention sublayer with its projections (and their biases),
// optionally normalised and followed by an MLP, as real blocks are. Shapes are resolved
// against the tokens when a Model is built.
#pragma once

#include "core/spec/block_spec.h"
#include "core/spec/mask.h"
#include "core/spec/matrix_spec.h"
#include "core/spec/mixer.h"
#include "core/spec/positional.h"
#include "core/spec/text_encoder.h"

#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

struct LayerSpec {
    /// Where the norms sit: before each sublayer, on its input (GPT-2, Llama), or after it, on
    /// the residual sum (the original transformer).
    enum class NormPlacement { Pre, Post };

    std::optional<MatrixSpec> ffn;            // present: relu(X·W) before the projections
    MatrixSpec wq, wk, wv;                    // identity by default
    std::optional<MatrixSpec> wo;             // present: output projection
    std::optional<MatrixSpec> bq, bk, bv, bo; // biases, 1 x width
    int heads = 1;
    /// Heads of K and V (grouped-query attention when fewer than `heads`, which it divides:
    /// query head h reads key/value head h / (heads / kvHeads)); 0: as many as `heads`.
    int kvHeads = 0;
    MixerSpec mixer;
    MaskSpec mask;
    /// The sublayers add their input (x + attention(x), then h + mlp(h)).
    bool residual = false;
    NormPlacement normPlacement = NormPlacement::Pre;
    std::optional<NormSpec> attentionNorm, mlpNorm;
    std::optional<MlpSpec> mlp;
    /// GPT-NeoX: x + attention(norm1(x)) + mlp(norm2(x)), both sublayers reading the input.
    bool parallelResidual = false;

    int keyValueHeads() const { return kvHeads > 0 ? kvHeads : heads; }
    /// Whether the layer has any part of a real block beyond attention and the ffn pre-map
    /// (norms, biases, grouped heads, an MLP), which the reverse pass does not differentiate.
    bool hasBlockParts() const;
    bool operator==(const LayerSpec&) const = default;
};

/// A model imported from a checkpoint (core/io/hf_import.h): the directory, the layers kept,
/// its token embedding and, when it has a tokenizer.json, its tokenizer. Two refer to the same
/// checkpoint when directory and layers agree (the models' layers tell their masks apart).
struct CheckpointRef {
    std::string directory;                        // absolute; a file stores it relative to itself
    int firstLayer = 0, endLayer = 0;             // layers [first, end) of the checkpoint
    std::string architecture;                     // "gpt2", "llama", ...
    MatrixSpec embedding;                         // vocabulary x d
    std::shared_ptr<const TextEncoder> tokenizer; // null: token ids only
    std::string tokenizerProblem; // why DIR/tokenizer.json is not used, when it is not
    /// The layers as imported (their own masks), to tell what a file can keep of later edits (a
    /// mask shared by every layer).
    std::vector<LayerSpec> importedLayers;

    bool operator==(const CheckpointRef& o) const {
        return directory == o.directory && firstLayer == o.firstLayer && endLayer == o.endLayer;
    }
};

struct ModelSpec {
    PositionalSpec positional;
    std::vector<LayerSpec> layers;
    std::optional<NormSpec> embeddingNorm; // BLOOM: on the tokens, before the first layer
    std::optional<NormSpec> finalNorm;     // after the last layer
    /// Set when the layers were imported from a checkpoint (the file refers to it instead of
    /// listing the weights).
    std::optional<CheckpointRef> checkpoint;

    bool operator==(const ModelSpec&) const = default;
};

/// `spec` with its ssm layers evaluated in chunks of `size` (`chunkwise`), else its attention
/// layers over key tiles of `size`; every other layer untiled and recurrent. Size 0: the
/// reference evaluation (the tiling and chunkwise properties compare the two).
ModelSpec evaluatedInBlocks(ModelSpec spec, bool chunkwise, int size);
/// Whether `layer` is one that evaluatedInBlocks tiles (`chunkwise`: an ssm layer).
bool evaluatedInBlocks(const LayerSpec& layer, bool chunkwise);

} // namespace attnlab
