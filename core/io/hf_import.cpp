// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face checkpoints as models: each tensor of the architecture's layout becomes a matrix
// spec that reads it on demand (transposed where torch stores [out, in], the query, key or value
// rows of a fused projection picked), and the config's conventions become the model's.
#include "core/io/hf_import.h"

#include "core/base/error.h"
#include "core/formats/bpe_tokenizer.h"
#include "core/formats/checkpoint.h"
#include "core/formats/hf_config.h"
#include "core/formats/hf_layout.h"

#include <memory>

namespace attnlab {

namespace {

// A checkpoint's tokenizer.json behind the spec layer's interface.
class TokenizerEncoder : public TextEncoder {
public:
    explicit TokenizerEncoder(BpeTokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}
    std::vector<long long> encode(const std::string& text) const override {
        const std::vector<int> ids = tokenizer_.encode(text);
        return {ids.begin(), ids.end()};
    }
    std::string label(long long id) const override { return tokenizer_.tokenString(int(id)); }
    long long vocabularySize() const override { return tokenizer_.vocabSize(); }

private:
    BpeTokenizer tokenizer_;
};

using Source = std::shared_ptr<const TensorSource>;

MatrixSpec tensor(const Source& source, const std::string& name, bool transposed,
                  std::vector<long long> columns = {}) {
    return MatrixSpec::fromTensor(TensorRef{source, name, transposed, std::move(columns)});
}

MatrixSpec weightOf(const Source& source, const ProjectionSource& p) {
    return tensor(source, p.weight, p.transposeStored, p.pick);
}

std::optional<MatrixSpec> biasOf(const Source& source, const ProjectionSource& p) {
    if (p.bias.empty()) return std::nullopt;
    return tensor(source, p.bias, false, p.pick); // 1-D: one row, the picked entries
}

NormSpec normOf(const Source& source, const NormSource& n, const HfConfig& config) {
    NormSpec norm;
    norm.kind =
        config.norm == HfNorm::RmsNorm ? NormSpec::Kind::RmsNorm : NormSpec::Kind::LayerNorm;
    norm.eps = config.normEps;
    norm.weight = tensor(source, n.weight, false);
    if (!n.bias.empty()) norm.bias = tensor(source, n.bias, false);
    return norm;
}

MlpSpec::Activation activationOf(HfActivation activation) {
    switch (activation) {
    case HfActivation::GeluTanh:
        return MlpSpec::Activation::GeluTanh;
    case HfActivation::GeluErf:
        return MlpSpec::Activation::Gelu;
    case HfActivation::Silu:
        return MlpSpec::Activation::Silu;
    case HfActivation::Relu:
        break;
    }
    return MlpSpec::Activation::Relu;
}

MlpSpec mlpOf(const Source& source, const LayerSource& l, const HfConfig& config) {
    MlpSpec mlp;
    mlp.activation = activationOf(config.activation);
    mlp.up = weightOf(source, l.up);
    mlp.upBias = biasOf(source, l.up);
    if (l.gate) {
        mlp.gate = weightOf(source, *l.gate);
        mlp.gateBias = biasOf(source, *l.gate);
    }
    mlp.down = weightOf(source, l.down);
    mlp.downBias = biasOf(source, l.down);
    return mlp;
}

LayerSpec layerOf(const Source& source, const LayerSource& l, const HfConfig& config, int index) {
    LayerSpec layer;
    layer.heads = config.heads;
    layer.kvHeads = config.kvHeads;
    layer.wq = weightOf(source, l.q);
    layer.wk = weightOf(source, l.k);
    layer.wv = weightOf(source, l.v);
    layer.wo = weightOf(source, l.o);
    layer.bq = biasOf(source, l.q);
    layer.bk = biasOf(source, l.k);
    layer.bv = biasOf(source, l.v);
    layer.bo = biasOf(source, l.o);
    layer.mixer.kind = MixerSpec::Kind::Softmax; // 1/sqrt(head_dim), every architecture here
    // Hugging Face's sliding_window W lets a query see W keys, itself and W - 1 before it.
    const bool windowed = config.slidingWindow && index >= config.slidingWindowFirstLayer;
    layer.mask = windowed ? MaskSpec::causalWindow(*config.slidingWindow - 1) : MaskSpec::causal();
    layer.residual = true;
    layer.parallelResidual = config.parallelResidual;
    layer.attentionNorm = normOf(source, l.attentionNorm, config);
    layer.mlpNorm = normOf(source, l.mlpNorm, config);
    layer.mlp = mlpOf(source, l, config);
    return layer;
}

PositionalSpec positionalOf(const Source& source, const HfLayout& layout, const HfConfig& config) {
    PositionalSpec p;
    switch (config.positional) {
    case HfPositional::Learned:
        p.kind = PositionalSpec::Kind::Learned;
        p.seeded = false;
        p.table = tensor(source, layout.positionEmbedding, false);
        break;
    case HfPositional::Rope: {
        p.kind = PositionalSpec::Kind::Rope;
        p.base = config.ropeTheta;
        p.style = PositionalSpec::RopeStyle::Half; // rotate_half, in all of these architectures
        p.rotaryDim = config.rotaryDim < config.headDim ? config.rotaryDim : 0;
        const HfRopeScaling& s = config.ropeScaling;
        if (s.kind == HfRopeScaling::Kind::Linear)
            p.scaling = {RopeScaling::Kind::Linear, s.factor};
        if (s.kind == HfRopeScaling::Kind::Llama3)
            p.scaling = {RopeScaling::Kind::Llama3, s.factor, s.lowFreqFactor, s.highFreqFactor,
                         double(s.originalMaxPositions)};
        break;
    }
    case HfPositional::Alibi:
        // BLOOM adds slope·key_index; -slope·(query - key) differs by a constant per row, so
        // the attention weights are the same (the scores shift row by row).
        p.kind = PositionalSpec::Kind::Alibi;
        p.causal = true;
        break;
    }
    return p;
}

// DIR/tokenizer.json as the checkpoint's tokenizer; one it cannot read leaves token ids only,
// with the reason kept for the message a text then gets.
void loadTokenizer(const std::filesystem::path& directory, CheckpointRef& ref) {
    const std::filesystem::path file = directory / "tokenizer.json";
    if (!std::filesystem::exists(file)) return;
    try {
        ref.tokenizer = std::make_shared<TokenizerEncoder>(BpeTokenizer::fromFile(file));
    } catch (const InputError& e) {
        ref.tokenizerProblem = e.what();
    }
}

} // namespace

ModelSpec importCheckpoint(const std::filesystem::path& given, int firstLayer, int endLayer) {
    // One spelling per directory, so that two imports of it compare equal.
    const std::filesystem::path directory = std::filesystem::absolute(given).lexically_normal();
    try {
        const HfConfig config = readHfConfig(directory);
        const auto checkpoint = std::make_shared<const Checkpoint>(directory);
        const HfLayout layout = hfLayout(config, *checkpoint);
        const int end = endLayer < 0 ? config.layers : endLayer;
        if (firstLayer < 0 || firstLayer >= end || end > config.layers)
            throw InputError("layers " + std::to_string(firstLayer) + ":" + std::to_string(end) +
                             " are not a range of the model's " + std::to_string(config.layers) +
                             " layers");
        ModelSpec model;
        model.positional = positionalOf(checkpoint, layout, config);
        for (int i = firstLayer; i < end; ++i)
            model.layers.push_back(layerOf(checkpoint, layout.layers[std::size_t(i)], config, i));
        if (layout.embeddingNorm)
            model.embeddingNorm = normOf(checkpoint, *layout.embeddingNorm, config);
        model.finalNorm = normOf(checkpoint, layout.finalNorm, config);
        CheckpointRef ref;
        ref.directory = directory.string();
        ref.firstLayer = firstLayer;
        ref.endLayer = end;
        ref.architecture = architectureName(config.architecture);
        ref.embedding = tensor(checkpoint, layout.tokenEmbedding, false);
        loadTokenizer(directory, ref);
        ref.importedLayers = model.layers;
        model.checkpoint = std::move(ref);
        return model;
    } catch (const InputError& e) {
        const std::string what = e.what();
        if (what.find(given.string()) != std::string::npos ||
            what.find(directory.string()) != std::string::npos)
            throw;
        throw InputError(given.string() + ": " + what);
    }
}

std::pair<int, int> parseLayerRange(const std::string& text) {
    const auto colon = text.find(':');
    const auto number = [&](const std::string& part, int empty) {
        if (part.empty()) return empty;
        if (part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos)
            throw InputError("layers '" + text + "': must be A:B (layers A to B - 1)");
        return std::stoi(part);
    };
    if (colon == std::string::npos)
        throw InputError("layers '" + text + "': must be A:B (layers A to B - 1)");
    return {number(text.substr(0, colon), 0), number(text.substr(colon + 1), -1)};
}

TokenSpec checkpointTokens(const CheckpointRef& checkpoint, std::vector<long long> ids) {
    if (ids.empty()) throw InputError("tokens: no token ids given");
    TokenSpec tokens = TokenSpec::lookup(std::move(ids), checkpoint.embedding);
    if (checkpoint.tokenizer)
        for (long long id : tokens.ids)
            tokens.labels.push_back(checkpoint.tokenizer->label(id));
    return tokens;
}

TokenSpec checkpointText(const CheckpointRef& checkpoint, const std::string& text) {
    if (!checkpoint.tokenizer)
        throw InputError(checkpoint.directory + ": " +
                         (checkpoint.tokenizerProblem.empty() ? "has no tokenizer.json"
                                                              : checkpoint.tokenizerProblem) +
                         "; give token ids instead of text");
    std::vector<long long> ids = checkpoint.tokenizer->encode(text);
    if (ids.empty()) throw InputError("tokens: the text has no tokens");
    return checkpointTokens(checkpoint, std::move(ids));
}

Scenario importScenario(const ImportRequest& request) {
    Scenario s;
    s.model = importCheckpoint(request.directory, request.firstLayer, request.endLayer);
    const CheckpointRef& ref = *s.model.checkpoint;
    s.tokens =
        request.text ? checkpointText(ref, *request.text) : checkpointTokens(ref, request.ids);
    s.precision = request.precision;
    const std::string folder = std::filesystem::path(ref.directory).filename().string();
    s.name = folder + " (" + ref.architecture + ")";
    s.notes = "Imported from " + ref.directory + ": layers " + std::to_string(ref.firstLayer) +
              ".." + std::to_string(ref.endLayer - 1) + " of a " + ref.architecture +
              " checkpoint, " + s.model.positional.describe() + " positions.";
    for (const char* check : {"causality", "permutation-equivariance", "row-sums", "kv-cache"})
        s.checks.push_back({check});
    if (s.model.positional.isRelative()) s.checks.push_back({"shift-invariance"});
    s.validate();
    return s;
}

} // namespace attnlab
