// SPDX-License-Identifier: GPL-3.0-or-later
// Where each architecture keeps its weights in a Hugging Face checkpoint: the tensor names of the
// embeddings, of layer i and of the final norm, and how a stored tensor becomes the project's
// weight (transposed or not, which out-features of a fused QKV projection). Checked against the
// config's sizes when a checkpoint is at hand.
#pragma once

#include "core/formats/checkpoint.h"
#include "core/formats/hf_config.h"

#include <optional>
#include <string>
#include <vector>

namespace attnlab {

/// A projection the project uses as X·W, W being `in` x `out`, and where it is stored.
struct ProjectionSource {
    std::string weight;
    std::string bias; // empty: none
    /// Stored [out, in] (nn.Linear) rather than [in, out] (GPT-2's Conv1D).
    bool transposeStored = true;
    /// The stored out-features W uses, in order: rows of the weight when transposeStored,
    /// columns otherwise, and entries of the bias. Empty: all of them.
    std::vector<long long> pick;
    long long in = 0;
    long long out = 0;
    long long storedOut = 0; // out-features of the stored tensor (3 x out for a fused QKV)

    bool operator==(const ProjectionSource&) const = default;
};

/// A LayerNorm (weight and bias) or an RMSNorm (weight only) over `size` features.
struct NormSource {
    std::string weight;
    std::string bias; // empty for RMSNorm
    long long size = 0;

    bool operator==(const NormSource&) const = default;
};

struct LayerSource {
    NormSource attentionNorm; // before attention
    NormSource mlpNorm;       // before the MLP
    ProjectionSource q, k, v, o;
    ProjectionSource up;                  // hidden -> intermediate
    std::optional<ProjectionSource> gate; // gated MLPs (llama family): act(gate) * up
    ProjectionSource down;                // intermediate -> hidden

    bool operator==(const LayerSource&) const = default;
};

struct HfLayout {
    std::string prefix;                      // before the base model's names ("", "model.", ...)
    std::string tokenEmbedding;              // [vocab, hidden]
    std::string positionEmbedding;           // [max positions, hidden]; empty unless learned
    std::optional<NormSource> embeddingNorm; // bloom's word_embeddings_layernorm
    std::vector<LayerSource> layers;
    NormSource finalNorm;
    /// [vocab, hidden]: the token embedding when tied; empty when the checkpoint has none (a
    /// base model saved without its language-model head).
    std::string lmHead;

    bool operator==(const HfLayout&) const = default;
};

/// The tensors of `config`'s architecture, the base model's names preceded by `prefix`.
HfLayout hfLayout(const HfConfig& config, const std::string& prefix);
/// The prefix of `checkpoint`'s names: "" when saved from the base model, "transformer." (gpt2,
/// bloom), "model." (llama, mistral, qwen2) or "gpt_neox." when saved from a *ForCausalLM; found
/// by the token embedding. Throws InputError naming both names looked for when neither is there.
std::string hfPrefix(const HfConfig& config, const Checkpoint& checkpoint);
/// The layout with `checkpoint`'s prefix, each tensor checked to be present and shaped as the
/// config says; throws InputError naming the tensor, its shape and the expected shape.
HfLayout hfLayout(const HfConfig& config, const Checkpoint& checkpoint);

} // namespace attnlab
