// SPDX-License-Identifier: GPL-3.0-or-later
// A Hugging Face config.json, normalised: the few architectures AttnLab builds (gpt2, llama,
// mistral, qwen2, gpt_neox, bloom) described by one struct whose fields no longer depend on
// each architecture's key names and defaults. Anything else is refused naming what is supported.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace attnlab {

enum class HfArchitecture { Gpt2, Llama, Mistral, Qwen2, GptNeox, Bloom };
/// gelu with the tanh approximation (gelu_new, gelu_pytorch_tanh, gelu_fast, bloom's gelu),
/// exact gelu (erf), silu, relu.
enum class HfActivation { GeluTanh, GeluErf, Silu, Relu };
enum class HfNorm { LayerNorm, RmsNorm };
enum class HfPositional { Learned, Rope, Alibi };

/// The model_type of an architecture ("gpt2", "gpt_neox", ...).
const char* architectureName(HfArchitecture architecture);

struct HfRopeScaling {
    enum class Kind { None, Linear, Llama3 };
    Kind kind = Kind::None;
    double factor = 1;                  // Linear and Llama3
    double lowFreqFactor = 1;           // Llama3
    double highFreqFactor = 4;          // Llama3
    long long originalMaxPositions = 0; // Llama3

    bool operator==(const HfRopeScaling&) const = default;
};

struct HfConfig {
    HfArchitecture architecture = HfArchitecture::Gpt2;
    long long hiddenSize = 0;
    int layers = 0;
    int heads = 0;
    int kvHeads = 0; // grouped-query attention: heads / kvHeads query heads share a key/value head
    int headDim = 0;
    long long intermediateSize = 0;
    HfActivation activation = HfActivation::GeluTanh;
    bool gatedMlp = false; // down(act(gate(x)) * up(x)) (llama family) rather than down(act(up(x)))
    HfNorm norm = HfNorm::LayerNorm;
    double normEps = 1e-5;
    HfPositional positional = HfPositional::Learned;
    double ropeTheta = 10000;
    int rotaryDim = 0; // rope: the leading dimensions of each head rotated (even, <= headDim)
    HfRopeScaling ropeScaling;
    std::optional<int> slidingWindow; // each query sees this many latest keys (itself included)
    int slidingWindowFirstLayer = 0;  // layers before this one attend without the window (qwen2)
    bool qkvBias = false;
    bool outputBias = false; // the attention's output projection
    bool mlpBias = false;
    bool parallelResidual = false; // x + attn(ln1(x)) + mlp(ln2(x)) (gpt_neox)
    bool tieWordEmbeddings = false;
    long long vocabSize = 0;
    std::optional<long long> maxPositions; // none for alibi models that state no limit
    std::string torchDtype;                // as stated ("float32", "bfloat16", ...), or empty

    bool operator==(const HfConfig&) const = default;
};

/// Parses the text of a config.json; `origin` names it in messages. Throws InputError naming
/// the key for a missing or ill-typed value, an implausible size or an unsupported option.
HfConfig parseHfConfig(const std::string& text, const std::string& origin);
/// Reads and parses DIR/config.json.
HfConfig readHfConfig(const std::filesystem::path& directory);

} // namespace attnlab
