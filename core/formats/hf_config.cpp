// SPDX-License-Identifier: GPL-3.0-or-later
// Parsing config.json: one table of what differs between the architectures, then one reading of
// the keys with each architecture's aliases and defaults as transformers applies them.
#include "core/formats/hf_config.h"

#include "core/base/error.h"
#include "core/formats/json_reader.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iterator>

namespace attnlab {

namespace {

/// What differs between the architectures beyond the keys every one of them reads.
struct ArchitectureRules {
    HfArchitecture architecture;
    const char* modelType;
    HfNorm norm;
    const char* epsKey;
    double defaultEps;
    HfPositional positional;
    const char* activationKey; // nullptr: the activation is fixed
    const char* defaultActivation;
    bool gatedMlp;
    bool groupedQuery; // reads num_key_value_heads
    bool tieByDefault;
};

const ArchitectureRules architectures[] = {
    {HfArchitecture::Gpt2, "gpt2", HfNorm::LayerNorm, "layer_norm_epsilon", 1e-5,
     HfPositional::Learned, "activation_function", "gelu_new", false, false, true},
    {HfArchitecture::Llama, "llama", HfNorm::RmsNorm, "rms_norm_eps", 1e-6, HfPositional::Rope,
     "hidden_act", "silu", true, true, false},
    {HfArchitecture::Mistral, "mistral", HfNorm::RmsNorm, "rms_norm_eps", 1e-6, HfPositional::Rope,
     "hidden_act", "silu", true, true, false},
    {HfArchitecture::Qwen2, "qwen2", HfNorm::RmsNorm, "rms_norm_eps", 1e-6, HfPositional::Rope,
     "hidden_act", "silu", true, true, false},
    {HfArchitecture::GptNeox, "gpt_neox", HfNorm::LayerNorm, "layer_norm_eps", 1e-5,
     HfPositional::Rope, "hidden_act", "gelu", false, false, false},
    {HfArchitecture::Bloom, "bloom", HfNorm::LayerNorm, "layer_norm_epsilon", 1e-5,
     HfPositional::Alibi, nullptr, "gelu_pytorch_tanh", false, false, true},
};

const std::pair<const char*, HfActivation> activations[] = {
    {"gelu_new", HfActivation::GeluTanh},  {"gelu_pytorch_tanh", HfActivation::GeluTanh},
    {"gelu_fast", HfActivation::GeluTanh}, {"gelu", HfActivation::GeluErf},
    {"silu", HfActivation::Silu},          {"swish", HfActivation::Silu},
    {"relu", HfActivation::Relu},
};

constexpr long maxHidden = 1L << 16;
constexpr long maxLayers = 1024;
constexpr long maxHeads = 1024;
constexpr long maxHeadDim = 4096;
constexpr long maxIntermediate = 1L << 20;
constexpr long maxVocab = 1L << 22;
constexpr long maxPositions = 1L << 24;
constexpr std::uintmax_t maxConfigBytes = 10'000'000;

std::string quoted(const std::string& text) {
    return "\"" + text + "\"";
}

const ArchitectureRules& rulesFor(const JsonReader& modelType) {
    const std::string name = modelType.string();
    std::string supported;
    for (const ArchitectureRules& rules : architectures) {
        if (name == rules.modelType) return rules;
        supported += (supported.empty() ? "" : ", ") + std::string(rules.modelType);
    }
    throw InputError("model_type " + quoted(name) + " is not supported; supported: " + supported);
}

/// The member `key` unless it is absent or null (transformers writes null for "the default").
std::optional<JsonReader> optionalKey(const JsonReader& root, std::string_view key) {
    if (!root.has(key) || root.at(key).node().is_null()) return std::nullopt;
    return root.at(key);
}

/// The first of `keys` present: one value's names across the architectures.
JsonReader aliased(const JsonReader& root, std::initializer_list<std::string_view> keys) {
    std::string names;
    for (std::string_view key : keys) {
        if (const auto node = optionalKey(root, key)) return *node;
        names += (names.empty() ? "" : " or ") + std::string(key);
    }
    throw InputError(names, "is required");
}

long integerOr(const JsonReader& root, std::string_view key, long fallback, long lo, long hi) {
    const auto node = optionalKey(root, key);
    return node ? node->integer(lo, hi) : fallback;
}

bool booleanOr(const JsonReader& root, std::string_view key, bool fallback) {
    const auto node = optionalKey(root, key);
    return node ? node->boolean() : fallback;
}

/// A finite number in (0, max].
double positive(const JsonReader& node, double max) {
    if (!node.node().is_number()) node.fail("must be a number");
    const double value = node.node().get<double>();
    if (!(value > 0 && value <= max)) {
        node.fail("must be a number in (0, " + nlohmann::json(max).dump() + "]");
    }
    return value;
}

double positiveOr(const JsonReader& root, std::string_view key, double fallback, double max) {
    const auto node = optionalKey(root, key);
    return node ? positive(*node, max) : fallback;
}

/// Refuses an option whose only supported value is `supported`.
void requireOption(const JsonReader& root, std::string_view key, bool supported) {
    const auto node = optionalKey(root, key);
    if (node && node->boolean() != supported)
        node->fail(std::string("only ") + (supported ? "true" : "false") + " is supported");
}

HfActivation parseActivation(const JsonReader& root, const ArchitectureRules& rules) {
    const auto node = rules.activationKey ? optionalKey(root, rules.activationKey) : std::nullopt;
    const std::string name = node ? node->string() : rules.defaultActivation;
    std::string supported;
    for (const auto& [text, activation] : activations) {
        if (name == text) return activation;
        supported += (supported.empty() ? "" : ", ") + std::string(text);
    }
    const std::string message =
        "activation " + quoted(name) + " is not supported; supported: " + supported;
    if (node) node->fail(message);
    throw InputError(message);
}

void readSizes(const JsonReader& root, const ArchitectureRules& rules, HfConfig& c) {
    c.hiddenSize = aliased(root, {"hidden_size", "n_embd", "n_embed"}).integer(1, maxHidden);
    c.layers = aliased(root, {"num_hidden_layers", "n_layer"}).integer(1, maxLayers);
    c.heads = aliased(root, {"num_attention_heads", "n_head"}).integer(1, maxHeads);
    c.kvHeads =
        rules.groupedQuery ? integerOr(root, "num_key_value_heads", c.heads, 1, c.heads) : c.heads;
    if (c.heads % c.kvHeads != 0)
        root.at("num_key_value_heads")
            .fail(std::to_string(c.kvHeads) + " does not divide the " + std::to_string(c.heads) +
                  " attention heads");
    if (const auto headDim = optionalKey(root, "head_dim")) {
        c.headDim = headDim->integer(1, maxHeadDim);
    } else if (c.hiddenSize % c.heads != 0) {
        throw InputError("hidden size " + std::to_string(c.hiddenSize) + " is not divisible by " +
                         std::to_string(c.heads) + " heads (and there is no head_dim)");
    } else {
        c.headDim = static_cast<int>(c.hiddenSize / c.heads);
    }
    c.vocabSize = root.at("vocab_size").integer(1, maxVocab);
    if (const auto positions = optionalKey(root, "max_position_embeddings"))
        c.maxPositions = positions->integer(1, maxPositions);
    else if (rules.positional == HfPositional::Learned)
        c.maxPositions =
            aliased(root, {"n_positions", "max_position_embeddings"}).integer(1, maxPositions);
}

long long intermediateSize(const JsonReader& root, const HfConfig& c) {
    switch (c.architecture) {
    case HfArchitecture::Gpt2:
        return integerOr(root, "n_inner", 4 * c.hiddenSize, 1, maxIntermediate);
    case HfArchitecture::Bloom:
        return 4 * c.hiddenSize;
    default:
        return root.at("intermediate_size").integer(1, maxIntermediate);
    }
}

HfRopeScaling parseRopeScaling(const JsonReader& node) {
    if (!node.isObject()) node.fail("must be an object");
    const JsonReader kind = node.has("rope_type") ? node.at("rope_type") : node.at("type");
    const std::string name = kind.string();
    HfRopeScaling scaling;
    if (name == "default") return scaling;
    if (name != "linear" && name != "llama3")
        kind.fail(quoted(name) + " is not supported; supported: linear, llama3");
    scaling.factor = positive(node.at("factor"), 1024);
    scaling.kind = HfRopeScaling::Kind::Linear;
    if (name == "llama3") {
        scaling.kind = HfRopeScaling::Kind::Llama3;
        scaling.lowFreqFactor = positive(node.at("low_freq_factor"), 1024);
        scaling.highFreqFactor = positive(node.at("high_freq_factor"), 1024);
        if (scaling.highFreqFactor <= scaling.lowFreqFactor)
            node.at("high_freq_factor").fail("must exceed low_freq_factor");
        scaling.originalMaxPositions =
            node.at("original_max_position_embeddings").integer(1, maxPositions);
    }
    return scaling;
}

/// rope_theta, the rotated share of each head and the scaling, from the top level or from the
/// rope_parameters object that newer transformers write.
void readRope(const JsonReader& root, HfConfig& c) {
    const auto parameters = optionalKey(root, "rope_parameters");
    const JsonReader& rope = parameters ? *parameters : root;
    const bool neox = c.architecture == HfArchitecture::GptNeox;
    const double base = positiveOr(root, "rotary_emb_base", 10000, 1e12);
    c.ropeTheta = positiveOr(rope, "rope_theta", neox ? base : 10000, 1e12);
    const double share = positiveOr(root, "rotary_pct", neox ? 0.25 : 1, 1);
    const double fraction = positiveOr(rope, "partial_rotary_factor",
                                       positiveOr(root, "partial_rotary_factor", share, 1), 1);
    c.rotaryDim = static_cast<int>(c.headDim * fraction);
    if (c.rotaryDim < 2 || c.rotaryDim % 2 != 0)
        throw InputError("the rotary share " + std::to_string(fraction) + " of head_dim " +
                         std::to_string(c.headDim) + " gives " + std::to_string(c.rotaryDim) +
                         " rotated dimensions; a positive even number is needed");
    if (parameters)
        c.ropeScaling = parseRopeScaling(*parameters);
    else if (const auto scaling = optionalKey(root, "rope_scaling"))
        c.ropeScaling = parseRopeScaling(*scaling);
}

void readSlidingWindow(const JsonReader& root, HfConfig& c) {
    const bool used =
        c.architecture == HfArchitecture::Mistral ||
        (c.architecture == HfArchitecture::Qwen2 && booleanOr(root, "use_sliding_window", false));
    if (!used) return;
    if (root.has("sliding_window") && root.at("sliding_window").node().is_null()) return;
    c.slidingWindow = integerOr(root, "sliding_window", 4096, 1, maxPositions);
    if (c.architecture == HfArchitecture::Qwen2)
        c.slidingWindowFirstLayer = integerOr(root, "max_window_layers", 28, 0, maxLayers);
}

void readBiases(const JsonReader& root, HfConfig& c) {
    switch (c.architecture) {
    case HfArchitecture::Gpt2:
    case HfArchitecture::Bloom:
        c.qkvBias = c.outputBias = c.mlpBias = true;
        return;
    case HfArchitecture::Qwen2:
        c.qkvBias = true;
        return;
    case HfArchitecture::GptNeox:
        c.qkvBias = c.outputBias = booleanOr(root, "attention_bias", true);
        c.mlpBias = true;
        return;
    case HfArchitecture::Llama:
    case HfArchitecture::Mistral:
        c.qkvBias = c.outputBias = booleanOr(root, "attention_bias", false);
        c.mlpBias = booleanOr(root, "mlp_bias", false);
        return;
    }
}

/// Options that change the computation in ways AttnLab does not model.
void refuseUnsupportedOptions(const JsonReader& root) {
    requireOption(root, "scale_attn_weights", true);
    requireOption(root, "scale_attn_by_inverse_layer_idx", false);
    requireOption(root, "apply_residual_connection_post_layernorm", false);
}

std::string torchDtype(const JsonReader& root) {
    for (std::string_view key : {"torch_dtype", "dtype"})
        if (const auto node = optionalKey(root, key)) return node->string();
    return {};
}

HfConfig parseRoot(const JsonReader& root) {
    if (!root.isObject()) root.fail("must be a JSON object");
    const ArchitectureRules& rules = rulesFor(root.at("model_type"));
    HfConfig c;
    c.architecture = rules.architecture;
    readSizes(root, rules, c);
    c.intermediateSize = intermediateSize(root, c);
    c.activation = parseActivation(root, rules);
    c.gatedMlp = rules.gatedMlp;
    c.norm = rules.norm;
    c.normEps = positiveOr(root, rules.epsKey, rules.defaultEps, 1);
    c.positional = rules.positional;
    if (c.positional == HfPositional::Rope) readRope(root, c);
    readSlidingWindow(root, c);
    readBiases(root, c);
    c.parallelResidual =
        c.architecture == HfArchitecture::GptNeox && booleanOr(root, "use_parallel_residual", true);
    c.tieWordEmbeddings = booleanOr(root, "tie_word_embeddings", rules.tieByDefault);
    c.torchDtype = torchDtype(root);
    refuseUnsupportedOptions(root);
    return c;
}

} // namespace

const char* architectureName(HfArchitecture architecture) {
    for (const ArchitectureRules& rules : architectures)
        if (rules.architecture == architecture) return rules.modelType;
    return "?";
}

HfConfig parseHfConfig(const std::string& text, const std::string& origin) {
    const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded()) throw InputError(origin, "is not valid JSON");
    try {
        return parseRoot(JsonReader(json, ""));
    } catch (const InputError& e) {
        throw InputError(origin, e.what());
    }
}

HfConfig readHfConfig(const std::filesystem::path& directory) {
    const std::filesystem::path path = directory / "config.json";
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(path.string(), "cannot read: " + ec.message());
    if (size > maxConfigBytes) throw InputError(path.string(), "is implausibly large");
    std::ifstream in(path, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (!in) throw InputError(path.string(), "cannot read the file");
    return parseHfConfig(text, path.string());
}

} // namespace attnlab
