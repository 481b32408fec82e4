// SPDX-License-Identifier: GPL-3.0-or-later
// The per-architecture tensor names and layouts, and their check against a checkpoint.
#include "core/formats/hf_layout.h"

#include "core/base/error.h"

namespace attnlab {

namespace {

/// The names that differ between architectures outside the attention and MLP modules.
struct ArchitectureNames {
    const char* causalPrefix;  // the base model's attribute in *ForCausalLM
    const char* tokens;        // token embedding, under the prefix
    const char* positions;     // learned position embedding, or nullptr
    const char* embeddingNorm; // norm after the embedding, or nullptr
    const char* layers;        // the layer list, under the prefix
    const char* attentionNorm; // per layer
    const char* mlpNorm;       // per layer
    const char* finalNorm;     // under the prefix
    const char* lmHead;        // outside the prefix
};

const ArchitectureNames& namesOf(HfArchitecture architecture) {
    static const ArchitectureNames gpt2{"transformer.", "wte.weight", "wpe.weight",
                                        nullptr,        "h.",         "ln_1",
                                        "ln_2",         "ln_f",       "lm_head.weight"};
    static const ArchitectureNames llama{
        "model.",          "embed_tokens.weight",      nullptr, nullptr,         "layers.",
        "input_layernorm", "post_attention_layernorm", "norm",  "lm_head.weight"};
    static const ArchitectureNames neox{"gpt_neox.",
                                        "embed_in.weight",
                                        nullptr,
                                        nullptr,
                                        "layers.",
                                        "input_layernorm",
                                        "post_attention_layernorm",
                                        "final_layer_norm",
                                        "embed_out.weight"};
    static const ArchitectureNames bloom{"transformer.",
                                         "word_embeddings.weight",
                                         nullptr,
                                         "word_embeddings_layernorm",
                                         "h.",
                                         "input_layernorm",
                                         "post_attention_layernorm",
                                         "ln_f",
                                         "lm_head.weight"};
    switch (architecture) {
    case HfArchitecture::Gpt2:
        return gpt2;
    case HfArchitecture::GptNeox:
        return neox;
    case HfArchitecture::Bloom:
        return bloom;
    default:
        return llama;
    }
}

std::vector<long long> indexRange(long long first, long long count) {
    std::vector<long long> indices(static_cast<std::size_t>(count));
    for (long long i = 0; i < count; ++i)
        indices[static_cast<std::size_t>(i)] = first + i;
    return indices;
}

/// The out-features of part `part` (0: Q, 1: K, 2: V) of a QKV projection stored per head as
/// [heads, 3, headDim]: h*3*headDim + part*headDim + j.
std::vector<long long> perHeadPart(const HfConfig& c, int part) {
    std::vector<long long> indices;
    for (long long h = 0; h < c.heads; ++h)
        for (long long j = 0; j < c.headDim; ++j)
            indices.push_back(h * 3 * c.headDim + part * c.headDim + j);
    return indices;
}

ProjectionSource projection(const std::string& module, bool bias, bool transposeStored,
                            long long in, long long out) {
    ProjectionSource p;
    p.weight = module + ".weight";
    p.bias = bias ? module + ".bias" : "";
    p.transposeStored = transposeStored;
    p.in = in;
    p.out = out;
    p.storedOut = out;
    return p;
}

/// Part of a fused projection: `pick` of `storedOut` out-features.
ProjectionSource fusedPart(ProjectionSource whole, std::vector<long long> pick) {
    whole.out = static_cast<long long>(pick.size());
    whole.pick = std::move(pick);
    return whole;
}

NormSource norm(const std::string& module, const HfConfig& c) {
    const bool layerNorm = c.norm == HfNorm::LayerNorm;
    return {module + ".weight", layerNorm ? module + ".bias" : "", c.hiddenSize};
}

/// GPT-2: Conv1D weights stored [in, out]; c_attn's columns are [q | k | v].
void gpt2Projections(const std::string& layer, const HfConfig& c, LayerSource& s) {
    const long long width = c.heads * c.headDim;
    const ProjectionSource qkv =
        projection(layer + "attn.c_attn", c.qkvBias, false, c.hiddenSize, 3 * width);
    s.q = fusedPart(qkv, indexRange(0, width));
    s.k = fusedPart(qkv, indexRange(width, width));
    s.v = fusedPart(qkv, indexRange(2 * width, width));
    s.o = projection(layer + "attn.c_proj", c.outputBias, false, width, c.hiddenSize);
    s.up = projection(layer + "mlp.c_fc", c.mlpBias, false, c.hiddenSize, c.intermediateSize);
    s.down = projection(layer + "mlp.c_proj", c.mlpBias, false, c.intermediateSize, c.hiddenSize);
}

/// llama, mistral, qwen2: separate nn.Linear projections and a gated MLP.
void llamaProjections(const std::string& layer, const HfConfig& c, LayerSource& s) {
    const long long width = c.heads * c.headDim;
    const long long kvWidth = c.kvHeads * c.headDim;
    const std::string attention = layer + "self_attn.";
    s.q = projection(attention + "q_proj", c.qkvBias, true, c.hiddenSize, width);
    s.k = projection(attention + "k_proj", c.qkvBias, true, c.hiddenSize, kvWidth);
    s.v = projection(attention + "v_proj", c.qkvBias, true, c.hiddenSize, kvWidth);
    s.o = projection(attention + "o_proj", c.outputBias, true, width, c.hiddenSize);
    const std::string mlp = layer + "mlp.";
    s.gate = projection(mlp + "gate_proj", c.mlpBias, true, c.hiddenSize, c.intermediateSize);
    s.up = projection(mlp + "up_proj", c.mlpBias, true, c.hiddenSize, c.intermediateSize);
    s.down = projection(mlp + "down_proj", c.mlpBias, true, c.intermediateSize, c.hiddenSize);
}

/// gpt_neox ("attention.") and bloom ("self_attention."): nn.Linear projections, the QKV one
/// fused with its out-features laid out [heads, 3, headDim].
void perHeadFusedProjections(const std::string& attention, const std::string& layer,
                             const HfConfig& c, LayerSource& s) {
    const long long width = c.heads * c.headDim;
    const ProjectionSource qkv =
        projection(attention + "query_key_value", c.qkvBias, true, c.hiddenSize, 3 * width);
    s.q = fusedPart(qkv, perHeadPart(c, 0));
    s.k = fusedPart(qkv, perHeadPart(c, 1));
    s.v = fusedPart(qkv, perHeadPart(c, 2));
    s.o = projection(attention + "dense", c.outputBias, true, width, c.hiddenSize);
    s.up =
        projection(layer + "mlp.dense_h_to_4h", c.mlpBias, true, c.hiddenSize, c.intermediateSize);
    s.down =
        projection(layer + "mlp.dense_4h_to_h", c.mlpBias, true, c.intermediateSize, c.hiddenSize);
}

LayerSource layerSource(const HfConfig& c, const std::string& layer) {
    const ArchitectureNames& names = namesOf(c.architecture);
    LayerSource s;
    s.attentionNorm = norm(layer + names.attentionNorm, c);
    s.mlpNorm = norm(layer + names.mlpNorm, c);
    switch (c.architecture) {
    case HfArchitecture::Gpt2:
        gpt2Projections(layer, c, s);
        break;
    case HfArchitecture::GptNeox:
        perHeadFusedProjections(layer + "attention.", layer, c, s);
        break;
    case HfArchitecture::Bloom:
        perHeadFusedProjections(layer + "self_attention.", layer, c, s);
        break;
    default:
        llamaProjections(layer, c, s);
    }
    return s;
}

std::string shapeText(long long rows, long long cols) {
    return rows == 1 ? "[" + std::to_string(cols) + "]"
                     : "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

/// Tensor `name` must be present and `rows` x `cols` (1 x k: a vector of k).
void expectShape(const Checkpoint& checkpoint, const std::string& name, long long rows,
                 long long cols) {
    const auto [actualRows, actualCols] = checkpoint.shape(name);
    if (actualRows != rows || actualCols != cols) {
        std::string stored;
        for (long long extent : checkpoint.tensor(name).shape)
            stored += (stored.empty() ? "" : ", ") + std::to_string(extent);
        throw InputError(checkpoint.origin(), "tensor \"" + name + "\" has shape [" + stored +
                                                  "], expected " + shapeText(rows, cols) +
                                                  " from config.json");
    }
}

void expectNorm(const Checkpoint& checkpoint, const NormSource& n) {
    expectShape(checkpoint, n.weight, 1, n.size);
    if (!n.bias.empty()) expectShape(checkpoint, n.bias, 1, n.size);
}

void expectProjection(const Checkpoint& checkpoint, const ProjectionSource& p) {
    if (p.transposeStored)
        expectShape(checkpoint, p.weight, p.storedOut, p.in);
    else
        expectShape(checkpoint, p.weight, p.in, p.storedOut);
    if (!p.bias.empty()) expectShape(checkpoint, p.bias, 1, p.storedOut);
}

void expectLayer(const Checkpoint& checkpoint, const LayerSource& layer) {
    expectNorm(checkpoint, layer.attentionNorm);
    expectNorm(checkpoint, layer.mlpNorm);
    for (const ProjectionSource* p :
         {&layer.q, &layer.k, &layer.v, &layer.o, &layer.up, &layer.down})
        expectProjection(checkpoint, *p);
    if (layer.gate) expectProjection(checkpoint, *layer.gate);
}

} // namespace

HfLayout hfLayout(const HfConfig& config, const std::string& prefix) {
    const ArchitectureNames& names = namesOf(config.architecture);
    HfLayout layout;
    layout.prefix = prefix;
    layout.tokenEmbedding = prefix + names.tokens;
    if (names.positions) layout.positionEmbedding = prefix + names.positions;
    if (names.embeddingNorm) layout.embeddingNorm = norm(prefix + names.embeddingNorm, config);
    for (int i = 0; i < config.layers; ++i)
        layout.layers.push_back(
            layerSource(config, prefix + names.layers + std::to_string(i) + "."));
    layout.finalNorm = norm(prefix + names.finalNorm, config);
    layout.lmHead = config.tieWordEmbeddings ? layout.tokenEmbedding : names.lmHead;
    return layout;
}

std::string hfPrefix(const HfConfig& config, const Checkpoint& checkpoint) {
    const ArchitectureNames& names = namesOf(config.architecture);
    const std::string prefixed = std::string(names.causalPrefix) + names.tokens;
    if (checkpoint.has(prefixed)) return names.causalPrefix;
    if (checkpoint.has(names.tokens)) return "";
    throw InputError(checkpoint.origin(), std::string("no token embedding (neither \"") + prefixed +
                                              "\" nor \"" + names.tokens + "\"): is this a " +
                                              architectureName(config.architecture) +
                                              " checkpoint?");
}

HfLayout hfLayout(const HfConfig& config, const Checkpoint& checkpoint) {
    HfLayout layout = hfLayout(config, hfPrefix(config, checkpoint));
    expectShape(checkpoint, layout.tokenEmbedding, config.vocabSize, config.hiddenSize);
    if (!layout.positionEmbedding.empty())
        expectShape(checkpoint, layout.positionEmbedding, *config.maxPositions, config.hiddenSize);
    if (layout.embeddingNorm) expectNorm(checkpoint, *layout.embeddingNorm);
    for (const LayerSource& layer : layout.layers)
        expectLayer(checkpoint, layer);
    expectNorm(checkpoint, layout.finalNorm);
    if (!checkpoint.has(layout.lmHead)) layout.lmHead.clear();
    if (!layout.lmHead.empty())
        expectShape(checkpoint, layout.lmHead, config.vocabSize, config.hiddenSize);
    return layout;
}

} // namespace attnlab
