// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face configurations and tensor layouts: config.json of each architecture normalised
// (transformers 4.x and 5.x key names), bad configs refused naming the key, and every layout's
// tensor names and fused-projection picks checked against a checkpoint written here.
#include "core/formats/checkpoint.h"
#include "core/formats/hf_config.h"
#include "core/formats/hf_layout.h"
#include "core/safetensors_test_files.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace attnlab;
using namespace attnlab::test;

namespace {

/// Every tensor `layout` names, with the shape the config implies, filled with zeros.
std::vector<TensorBytes> tensorsOf(const HfLayout& layout, const HfConfig& c) {
    std::vector<TensorBytes> tensors;
    auto add = [&](const std::string& name, std::vector<long long> shape) {
        long long count = 1;
        for (long long extent : shape)
            count *= extent;
        tensors.push_back({name, "F32", shape, std::string(std::size_t(count) * 4, '\0')});
    };
    auto addNorm = [&](const NormSource& n) {
        add(n.weight, {n.size});
        if (!n.bias.empty()) add(n.bias, {n.size});
    };
    auto addProjection = [&](const ProjectionSource& p) {
        if (std::any_of(tensors.begin(), tensors.end(),
                        [&](const TensorBytes& t) { return t.name == p.weight; }))
            return; // the parts of a fused projection share one tensor
        add(p.weight,
            p.transposeStored ? std::vector{p.storedOut, p.in} : std::vector{p.in, p.storedOut});
        if (!p.bias.empty()) add(p.bias, {p.storedOut});
    };
    add(layout.tokenEmbedding, {c.vocabSize, c.hiddenSize});
    if (!layout.positionEmbedding.empty())
        add(layout.positionEmbedding, {*c.maxPositions, c.hiddenSize});
    if (layout.embeddingNorm) addNorm(*layout.embeddingNorm);
    for (const LayerSource& layer : layout.layers) {
        addNorm(layer.attentionNorm);
        addNorm(layer.mlpNorm);
        for (const ProjectionSource* p :
             {&layer.q, &layer.k, &layer.v, &layer.o, &layer.up, &layer.down})
            addProjection(*p);
        if (layer.gate) addProjection(*layer.gate);
    }
    addNorm(layout.finalNorm);
    return tensors;
}

const char* const gpt2Config = R"({"model_type": "gpt2", "n_embd": 8, "n_layer": 2, "n_head": 2,
    "vocab_size": 11, "n_positions": 16, "n_inner": null, "activation_function": "gelu_new",
    "layer_norm_epsilon": 1e-05, "torch_dtype": "float32"})";
const char* const llamaConfig = R"({"model_type": "llama", "hidden_size": 16,
    "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
    "intermediate_size": 24, "vocab_size": 10, "max_position_embeddings": 64,
    "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "hidden_act": "silu",
    "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                     "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
    "tie_word_embeddings": false, "torch_dtype": "bfloat16"})";
const char* const mistralConfig = R"({"model_type": "mistral", "hidden_size": 16,
    "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
    "intermediate_size": 32, "vocab_size": 10, "max_position_embeddings": 64,
    "sliding_window": 8, "rope_theta": 10000.0})";
const char* const qwen2Config = R"({"model_type": "qwen2", "hidden_size": 16,
    "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 4,
    "intermediate_size": 20, "vocab_size": 10, "max_position_embeddings": 64,
    "use_sliding_window": true, "sliding_window": 6, "max_window_layers": 2,
    "tie_word_embeddings": true, "rope_theta": 1000000.0})";
const char* const neoxConfig = R"({"model_type": "gpt_neox", "hidden_size": 16,
    "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64,
    "vocab_size": 10, "max_position_embeddings": 32, "rotary_pct": 0.25,
    "rotary_emb_base": 10000, "hidden_act": "gelu", "layer_norm_eps": 1e-05,
    "use_parallel_residual": true, "tie_word_embeddings": false})";
const char* const bloomConfig = R"({"model_type": "bloom", "hidden_size": 8, "n_layer": 1,
    "n_head": 2, "vocab_size": 10, "layer_norm_epsilon": 1e-05})";

/// A config's text with `key` set to `value` (JSON), or removed when `value` is empty.
std::string withKey(const char* config, const std::string& key, const std::string& value) {
    nlohmann::json json = nlohmann::json::parse(config);
    if (value.empty())
        json.erase(key);
    else
        json[key] = nlohmann::json::parse(value);
    return json.dump();
}

HfConfig parse(const std::string& text) {
    return parseHfConfig(text, "config.json");
}

} // namespace

class TestHfConfig : public QObject {
    Q_OBJECT
private slots:
    void configsOfEachArchitecture() {
        HfConfig gpt2;
        gpt2.architecture = HfArchitecture::Gpt2;
        gpt2.hiddenSize = 8;
        gpt2.layers = 2;
        gpt2.heads = gpt2.kvHeads = 2;
        gpt2.headDim = 4;
        gpt2.intermediateSize = 32;
        gpt2.activation = HfActivation::GeluTanh;
        gpt2.norm = HfNorm::LayerNorm;
        gpt2.normEps = 1e-5;
        gpt2.positional = HfPositional::Learned;
        gpt2.qkvBias = gpt2.outputBias = gpt2.mlpBias = true;
        gpt2.tieWordEmbeddings = true;
        gpt2.vocabSize = 11;
        gpt2.maxPositions = 16;
        gpt2.torchDtype = "float32";
        QCOMPARE(parse(gpt2Config), gpt2);

        const HfConfig llama = parse(llamaConfig);
        QCOMPARE(llama.architecture, HfArchitecture::Llama);
        QCOMPARE(llama.kvHeads, 2);
        QCOMPARE(llama.headDim, 4);
        QCOMPARE(llama.rotaryDim, 4);
        QVERIFY(llama.gatedMlp);
        QCOMPARE(llama.activation, HfActivation::Silu);
        QCOMPARE(llama.norm, HfNorm::RmsNorm);
        QCOMPARE(llama.normEps, 1e-5);
        QCOMPARE(llama.ropeTheta, 500000.0);
        HfRopeScaling llama3;
        llama3.kind = HfRopeScaling::Kind::Llama3;
        llama3.factor = 8;
        llama3.originalMaxPositions = 8192;
        QCOMPARE(llama.ropeScaling, llama3);
        QVERIFY(!llama.qkvBias && !llama.outputBias && !llama.mlpBias && !llama.tieWordEmbeddings);
        QVERIFY(!llama.slidingWindow);
        QCOMPARE(llama.torchDtype, std::string("bfloat16"));

        const HfConfig mistral = parse(mistralConfig);
        QCOMPARE(mistral.headDim, 4); // explicit, not 16 / 2
        QCOMPARE(mistral.kvHeads, 1);
        QCOMPARE(mistral.slidingWindow, std::optional<int>(8));
        QCOMPARE(mistral.normEps, 1e-6);
        QVERIFY(!parse(withKey(mistralConfig, "sliding_window", "null")).slidingWindow);

        const HfConfig qwen2 = parse(qwen2Config);
        QVERIFY(qwen2.qkvBias && !qwen2.outputBias && !qwen2.mlpBias);
        QCOMPARE(qwen2.slidingWindow, std::optional<int>(6));
        QCOMPARE(qwen2.slidingWindowFirstLayer, 2);
        QVERIFY(!parse(withKey(qwen2Config, "use_sliding_window", "false")).slidingWindow);

        const HfConfig neox = parse(neoxConfig);
        QCOMPARE(neox.positional, HfPositional::Rope);
        QCOMPARE(neox.rotaryDim, 2); // 25% of 8
        QCOMPARE(neox.activation, HfActivation::GeluErf);
        QVERIFY(neox.parallelResidual && neox.qkvBias && neox.outputBias && neox.mlpBias);
        QCOMPARE(neox.intermediateSize, 64LL);
        QCOMPARE(parse(withKey(neoxConfig, "partial_rotary_factor", "0.5")).rotaryDim, 4);
        QVERIFY(!parse(withKey(neoxConfig, "attention_bias", "false")).qkvBias);

        const HfConfig bloom = parse(bloomConfig);
        QCOMPARE(bloom.positional, HfPositional::Alibi);
        QCOMPARE(bloom.activation, HfActivation::GeluTanh);
        QCOMPARE(bloom.intermediateSize, 32LL);
        QVERIFY(!bloom.maxPositions);
        QVERIFY(bloom.tieWordEmbeddings && bloom.qkvBias);
    }

    void badConfigsAreRefused_data() {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unsupported model_type")
            << withKey(gpt2Config, "model_type", "\"bert\"")
            << R"(config.json: model_type "bert" is not supported; supported: gpt2, llama, mistral, qwen2, gpt_neox, bloom)";
        QTest::newRow("no model_type")
            << withKey(gpt2Config, "model_type", "") << "model_type: is required";
        QTest::newRow("missing hidden size")
            << withKey(llamaConfig, "hidden_size", "") << "hidden_size or n_embd or n_embed";
        QTest::newRow("missing intermediate size")
            << withKey(llamaConfig, "intermediate_size", "") << "intermediate_size: is required";
        QTest::newRow("missing vocab")
            << withKey(bloomConfig, "vocab_size", "") << "vocab_size: is required";
        QTest::newRow("missing positions for learned")
            << withKey(gpt2Config, "n_positions", "") << "n_positions or max_position_embeddings";
        QTest::newRow("ill-typed layers")
            << withKey(gpt2Config, "n_layer", "\"2\"") << "n_layer: must be an integer";
        QTest::newRow("no layers") << withKey(gpt2Config, "n_layer", "0") << "n_layer";
        QTest::newRow("huge hidden")
            << withKey(llamaConfig, "hidden_size", "1000000000") << "hidden_size";
        QTest::newRow("heads do not divide hidden")
            << withKey(gpt2Config, "n_head", "3") << "not divisible by 3 heads";
        QTest::newRow("kv heads do not divide heads")
            << withKey(llamaConfig, "num_key_value_heads", "3") << "does not divide the 4";
        QTest::newRow("more kv heads than heads")
            << withKey(llamaConfig, "num_key_value_heads", "8") << "num_key_value_heads";
        QTest::newRow("rope scaling yarn")
            << withKey(llamaConfig, "rope_scaling", R"({"type": "yarn", "factor": 4})")
            << R"(rope_scaling.type: "yarn" is not supported; supported: linear, llama3)";
        QTest::newRow("rope scaling dynamic")
            << withKey(llamaConfig, "rope_scaling", R"({"rope_type": "dynamic", "factor": 2})")
            << "\"dynamic\" is not supported";
        QTest::newRow("llama3 scaling incomplete")
            << withKey(llamaConfig, "rope_scaling", R"({"rope_type": "llama3", "factor": 8})")
            << "rope_scaling.low_freq_factor: is required";
        QTest::newRow("activation unknown")
            << withKey(gpt2Config, "activation_function", "\"mish\"")
            << "activation \"mish\" is not supported";
        QTest::newRow("negative eps")
            << withKey(llamaConfig, "rms_norm_eps", "-1") << "rms_norm_eps: must be a number";
        QTest::newRow("odd rotary dims")
            << withKey(neoxConfig, "rotary_pct", "0.125") << "rotated dimensions";
        QTest::newRow("post-layernorm residual")
            << withKey(bloomConfig, "apply_residual_connection_post_layernorm", "true")
            << "only false is supported";
        QTest::newRow("not JSON") << std::string("{") << "config.json: is not valid JSON";
        QTest::newRow("not an object") << std::string("[]") << "must be a JSON object";
    }

    void badConfigsAreRefused() {
        QFETCH(std::string, text);
        QFETCH(QString, expected);
        const QString message = inputErrorOf([&] { parse(text); });
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void configFromDirectory() {
        QTemporaryDir dir;
        writeFile(dir.filePath("config.json").toStdString(), bloomConfig);
        QCOMPARE(readHfConfig(dir.path().toStdString()), parse(bloomConfig));
        expectError([&] { readHfConfig(dir.filePath("absent").toStdString()); }, {"config.json"});
    }

    void layoutNamesAndPicks() {
        const HfLayout gpt2 = hfLayout(parse(gpt2Config), "transformer.");
        QCOMPARE(gpt2.tokenEmbedding, std::string("transformer.wte.weight"));
        QCOMPARE(gpt2.positionEmbedding, std::string("transformer.wpe.weight"));
        QCOMPARE(gpt2.lmHead, gpt2.tokenEmbedding); // tied
        const LayerSource& h1 = gpt2.layers.at(1);
        QCOMPARE(h1.attentionNorm.bias, std::string("transformer.h.1.ln_1.bias"));
        QCOMPARE(h1.k.weight, std::string("transformer.h.1.attn.c_attn.weight"));
        QVERIFY(!h1.k.transposeStored);
        QCOMPARE(h1.k.pick.front(), 8LL); // columns [q | k | v] of 8 each
        QCOMPARE(h1.v.pick.back(), 23LL);
        QCOMPARE(h1.k.storedOut, 24LL);
        QCOMPARE(h1.down.weight, std::string("transformer.h.1.mlp.c_proj.weight"));
        QCOMPARE(gpt2.finalNorm.weight, std::string("transformer.ln_f.weight"));

        const HfLayout neox = hfLayout(parse(neoxConfig), "");
        const LayerSource& n0 = neox.layers.at(0);
        QCOMPARE(n0.q.weight, std::string("layers.0.attention.query_key_value.weight"));
        QVERIFY(n0.q.transposeStored);
        // [heads, 3, head_dim] with 2 heads of 8: Q of head 1 starts at row 24, K of head 0 at 8.
        QCOMPARE(n0.q.pick.at(8), 24LL);
        QCOMPARE(n0.k.pick.at(0), 8LL);
        QCOMPARE(n0.v.pick.at(15), 47LL);
        QCOMPARE(n0.up.weight, std::string("layers.0.mlp.dense_h_to_4h.weight"));
        QCOMPARE(neox.finalNorm.weight, std::string("final_layer_norm.weight"));
        QCOMPARE(neox.lmHead, std::string("embed_out.weight"));

        const HfLayout llama = hfLayout(parse(llamaConfig), "model.");
        const LayerSource& l0 = llama.layers.at(0);
        QCOMPARE(l0.k.weight, std::string("model.layers.0.self_attn.k_proj.weight"));
        QCOMPARE(l0.k.out, 8LL); // 2 kv heads of 4
        QVERIFY(l0.k.bias.empty() && l0.mlpNorm.bias.empty());
        QCOMPARE(l0.gate->weight, std::string("model.layers.0.mlp.gate_proj.weight"));
        QCOMPARE(llama.lmHead, std::string("lm_head.weight"));

        const HfLayout bloom = hfLayout(parse(bloomConfig), "");
        QCOMPARE(bloom.embeddingNorm->bias, std::string("word_embeddings_layernorm.bias"));
        QCOMPARE(bloom.layers.at(0).o.weight, std::string("h.0.self_attention.dense.weight"));
    }

    void layoutAgainstCheckpoints_data() {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QString>("prefix");
        for (const char* config :
             {gpt2Config, llamaConfig, mistralConfig, qwen2Config, neoxConfig, bloomConfig}) {
            const HfConfig c = parse(config);
            const std::string name = architectureName(c.architecture);
            QTest::newRow((name + " base").c_str()) << QString(config) << QString();
            const std::string prefix =
                c.architecture == HfArchitecture::GptNeox ? "gpt_neox."
                : c.architecture == HfArchitecture::Gpt2 || c.architecture == HfArchitecture::Bloom
                    ? "transformer."
                    : "model.";
            QTest::newRow((name + " causal").c_str())
                << QString(config) << QString::fromStdString(prefix);
        }
    }

    void layoutAgainstCheckpoints() {
        QFETCH(QString, config);
        QFETCH(QString, prefix);
        const HfConfig c = parse(config.toStdString());
        const HfLayout expected = hfLayout(c, prefix.toStdString());
        std::vector<TensorBytes> tensors = tensorsOf(expected, c);
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        writeFile(root / "model.safetensors", safetensorsFile(tensors));
        HfLayout found = hfLayout(c, Checkpoint(root));
        if (!c.tieWordEmbeddings) QVERIFY(found.lmHead.empty()); // no head was written
        found.lmHead = expected.lmHead;
        QCOMPARE(found, expected);

        TensorBytes& last = tensors.back(); // the final norm's weight or bias, [hidden]
        last.shape = {c.hiddenSize - 1};
        last.data.resize(last.data.size() - 4);
        writeFile(root / "model.safetensors", safetensorsFile(tensors));
        expectError([&] { hfLayout(c, Checkpoint(root)); },
                    {last.name.c_str(),
                     ("shape [" + std::to_string(c.hiddenSize - 1) + "]").c_str(),
                     ("expected [" + std::to_string(c.hiddenSize) + "]").c_str()});

        const std::string missing = "no tensor \"" + last.name + "\"";
        tensors.pop_back();
        writeFile(root / "model.safetensors", safetensorsFile(tensors));
        expectError([&] { hfLayout(c, Checkpoint(root)); },
                    {missing.c_str(), root.string().c_str()});
    }

    void checkpointOfAnotherArchitecture() {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        writeFile(root / "model.safetensors",
                  safetensorsFile({{"x", "F32", {1}, std::string(4, '\0')}}));
        expectError([&] { hfPrefix(parse(llamaConfig), Checkpoint(root)); },
                    {"model.embed_tokens.weight", "is this a llama checkpoint?"});
    }
};

QTEST_GUILESS_MAIN(TestHfConfig)
#include "test_hf_config.moc"
