// Hugging Face checkpoints: safetensors files written here byte by byte read back exactly in
// every dtype (F16 and BF16 bit patterns exhaustively), rows selected and pages released, sharded
// directories through their index, and every kind of malformed file or index refused naming what
// is wrong; config.json of each architecture normalised, and the tensor layouts checked against
// a checkpoint.
#include "core/io/checkpoint.h"
#include "core/io/hf_config.h"
#include "core/io/hf_layout.h"
#include "core/io/safetensors.h"
#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

using namespace attnlab;
using namespace attnlab::test;

namespace {

struct TensorBytes {
    std::string name;
    std::string dtype;
    std::vector<long long> shape;
    std::string data;
};

template <class T>
std::string bytesOf(const std::vector<T>& values) {
    std::string out(values.size() * sizeof(T), '\0');
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
}

/// A .safetensors file from a header's JSON text and the data area, as given.
std::string rawFile(const std::string& header, const std::string& data) {
    std::string out(8, '\0');
    const std::uint64_t length = header.size();
    std::memcpy(out.data(), &length, 8);
    return out + header + data;
}

/// A well-formed .safetensors file: the tensors one after another in the data area.
std::string safetensorsFile(const std::vector<TensorBytes>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    header["__metadata__"] = {{"format", "pt"}};
    std::string data;
    for (const TensorBytes& t : tensors) {
        header[t.name] = {{"dtype", t.dtype},
                          {"shape", t.shape},
                          {"data_offsets", {data.size(), data.size() + t.data.size()}}};
        data += t.data;
    }
    return rawFile(header.dump(), data);
}

void writeFile(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

SafetensorsFile fromBytes(const std::string& bytes) {
    return SafetensorsFile::fromBytes(bytes, "test.safetensors");
}

/// The message of the InputError `f` throws must contain each of `parts`.
template <class F>
void expectError(F&& f, std::initializer_list<const char*> parts) {
    const QString message = inputErrorOf(std::forward<F>(f));
    QVERIFY2(!message.isNull(), "no InputError");
    for (const char* part : parts)
        QVERIFY2(message.contains(QString::fromUtf8(part)), qPrintable(message));
}

/// The value of a binary16 pattern computed independently, in double.
double halfReference(std::uint16_t bits) {
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    const double magnitude =
        exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
    return bits & 0x8000 ? -magnitude : magnitude;
}

long long residentBytes() {
    std::ifstream statm("/proc/self/statm");
    long long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

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

class TestCheckpoint : public QObject {
    Q_OBJECT
private slots:
    void halfConversionIsExactForEveryPattern() {
        for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
            const auto pattern = static_cast<std::uint16_t>(bits);
            const float value = halfToFloat(pattern);
            if (((bits >> 10) & 0x1f) == 0x1f) {
                QCOMPARE(std::isinf(value), (bits & 0x3ff) == 0);
                QCOMPARE(std::isnan(value), (bits & 0x3ff) != 0);
                QCOMPARE(std::signbit(value), (bits & 0x8000) != 0);
                continue;
            }
            QCOMPARE(double(value), halfReference(pattern));
            QCOMPARE(std::signbit(value), (bits & 0x8000) != 0); // ±0 keep their sign
        }
        QCOMPARE(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // smallest subnormal
        QCOMPARE(halfToFloat(0x7bff), 65504.0f);
        QCOMPARE(halfToFloat(0x3c00), 1.0f);
    }

    void bfloat16ConversionIsExactForEveryPattern() {
        for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
            const float value = bfloat16ToFloat(static_cast<std::uint16_t>(bits));
            std::uint32_t floatBits = 0;
            std::memcpy(&floatBits, &value, 4);
            QCOMPARE(floatBits, bits << 16);
        }
        QCOMPARE(bfloat16ToFloat(0x3f80), 1.0f);
        QCOMPARE(bfloat16ToFloat(0xc040), -3.0f);
    }

    void everyDtypeReadsExactly() {
        const std::vector<std::uint16_t> half{0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0xc000};
        const std::vector<std::uint16_t> bf16{0x3f80, 0x0001, 0x8000, 0x7f7f};
        const std::vector<float> f32{1.5f, -0.0f, std::numeric_limits<float>::denorm_min(), 3e38f};
        const std::vector<double> f64{0.1, -1e-300, 1e300, 2.0};
        const SafetensorsFile file =
            fromBytes(safetensorsFile({{"h", "F16", {2, 3}, bytesOf(half)},
                                       {"b", "BF16", {4}, bytesOf(bf16)},
                                       {"f", "F32", {4, 1}, bytesOf(f32)},
                                       {"d", "F64", {2, 2}, bytesOf(f64)}}));
        QCOMPARE(file.metadata().at("format"), std::string("pt"));
        QCOMPARE(file.names(), (std::vector<std::string>{"b", "d", "f", "h"}));
        const Matrix<double> h = file.readDouble("h");
        QCOMPARE(h.rows(), 2);
        QCOMPARE(h.cols(), 3);
        for (int k = 0; k < 6; ++k) {
            QCOMPARE(h(k / 3, k % 3), halfReference(half[k]));
            QCOMPARE(std::signbit(h(k / 3, k % 3)), (half[k] & 0x8000) != 0);
        }
        const Matrix<float> b = file.readFloat("b");
        QCOMPARE(b.rows(), 1); // a vector is one row
        for (int k = 0; k < 4; ++k)
            QCOMPARE(b(0, k), bfloat16ToFloat(bf16[k]));
        const Matrix<float> f = file.readFloat("f");
        for (int k = 0; k < 4; ++k)
            QCOMPARE(std::memcmp(&f(k, 0), &f32[k], 4), 0);
        const Matrix<double> d = file.readDouble("d");
        for (int k = 0; k < 4; ++k)
            QCOMPARE(d(k / 2, k % 2), f64[k]);
        // F64 as float rounds to nearest; beyond float's range is refused.
        expectError([&] { file.readFloat("d"); }, {"\"d\"", "(1, 0)", "does not fit in float"});
    }

    void ranksZeroToTwoAndLeadingOnes() {
        const SafetensorsFile file = fromBytes(
            safetensorsFile({{"scalar", "F32", {}, bytesOf(std::vector<float>{7})},
                             {"batched", "F32", {1, 1, 2, 3}, bytesOf(std::vector<float>(6, 1))},
                             {"empty", "F32", {0, 4}, ""},
                             {"no columns", "BF16", {2, 0}, ""}}));
        QCOMPARE(file.tensor("scalar").rows, 1LL);
        QCOMPARE(file.readDouble("scalar")(0, 0), 7.0);
        QCOMPARE(file.tensor("batched").shape, (std::vector<long long>{2, 3}));
        QCOMPARE(file.readFloat("batched").rows(), 2);
        QCOMPARE(file.readFloat("empty").size(), 0);
        QCOMPARE(file.readDouble("no columns", {1}).rows(), 1);
        expectError(
            [] {
                fromBytes(safetensorsFile(
                    {{"cube", "F32", {2, 1, 2}, bytesOf(std::vector<float>(4, 0))}}));
            },
            {"\"cube\"", "rank 3"});
    }

    void otherDtypesOpenButAreRefusedWhenRead() {
        // Checkpoints hold buffers such as a causal mask of BOOL [1, 1, n, n] next to weights.
        const SafetensorsFile file =
            fromBytes(safetensorsFile({{"mask", "BOOL", {1, 1, 4, 4}, std::string(16, '\1')},
                                       {"q", "I8", {4}, std::string(4, '\0')},
                                       {"w", "F32", {1}, bytesOf(std::vector<float>{2})}}));
        QCOMPARE(file.tensor("mask").rows, 4LL);
        QCOMPARE(file.tensor("q").dtypeName, std::string("I8"));
        QCOMPARE(file.readFloat("w")(0, 0), 2.0f);
        expectError(
            [&] { file.readDouble("q"); },
            {"tensor \"q\"", "dtype \"I8\" is not supported (supported: F32, F16, BF16, F64)"});
        expectError([&] { file.readFloat("mask", {0}); }, {"\"mask\"", "\"BOOL\""});
    }

    void rowsAreSelectedInOrder() {
        std::vector<float> values(5 * 3);
        for (std::size_t k = 0; k < values.size(); ++k)
            values[k] = float(k);
        const SafetensorsFile file =
            fromBytes(safetensorsFile({{"e", "F32", {5, 3}, bytesOf(values)}}));
        const Matrix<double> picked = file.readDouble("e", {4, 0, 4});
        QCOMPARE(picked.rows(), 3);
        QCOMPARE(picked(0, 0), 12.0);
        QCOMPARE(picked(1, 2), 2.0);
        QCOMPARE(picked(2, 1), 13.0);
        expectError([&] { file.readFloat("e", {5}); }, {"\"e\"", "row 5", "5 rows"});
        expectError([&] { file.readFloat("e", {-1}); }, {"row -1"});
    }

    void readingReleasesTheFilePages() {
        QTemporaryDir dir;
        const std::filesystem::path path = dir.filePath("big.safetensors").toStdString();
        const long long rows = 2048, cols = 4096; // 32 MiB of F32
        writeFile(
            path,
            safetensorsFile(
                {{"big", "F32", {rows, cols}, std::string(std::size_t(rows * cols) * 4, '\1')}}));
        const long long before = residentBytes();
        const SafetensorsFile file(path);
        QVERIFY(residentBytes() - before < 4 << 20); // opening reads the header only
        const auto some = file.readFloat("big", {0, 1000, 2047}); // rows as stored, no copy
        QCOMPARE(some.rows(), 3);
        QVERIFY(residentBytes() - before < 4 << 20);
        const auto all = file.readFloat("big");
        const long long matrixBytes = rows * cols * 4;
        const long long grown = residentBytes() - before;
        QVERIFY2(grown < matrixBytes + (8 << 20), qPrintable(QString::number(grown)));
    }

    void nonFiniteWeightsAreRefused() {
        const std::vector<std::uint16_t> half{0x3c00, 0x7e00};
        const std::vector<float> f32{1, -std::numeric_limits<float>::infinity()};
        const SafetensorsFile file = fromBytes(safetensorsFile(
            {{"nan", "F16", {1, 2}, bytesOf(half)}, {"inf", "F32", {2, 1}, bytesOf(f32)}}));
        expectError([&] { file.readDouble("nan"); }, {"\"nan\"", "(0, 1)", "NaN"});
        expectError([&] { file.readFloat("inf"); }, {"\"inf\"", "(1, 0)", "infinite"});
        QCOMPARE(file.readFloat("inf", {0})(0, 0), 1.0f); // the finite rows can still be read
    }

    void malformedFilesAreRefused_data() {
        QTest::addColumn<std::string>("bytes");
        QTest::addColumn<QString>("expected");
        const std::string eight(8, '\0');
        const std::string four = bytesOf(std::vector<float>{1});
        auto tensor = [](const std::string& dtype, const std::string& shape,
                         const std::string& offsets) {
            return "{\"w\": {\"dtype\": \"" + dtype + "\", \"shape\": " + shape +
                   ", \"data_offsets\": " + offsets + "}}";
        };
        QTest::newRow("empty") << std::string() << "shorter than the 8-byte header length";
        QTest::newRow("truncated length") << std::string(5, '\0') << "shorter than the 8-byte";
        std::string beyond = rawFile("{}", "");
        beyond[0] = 100;
        QTest::newRow("header beyond the file") << beyond << "goes beyond the end of the file";
        std::string huge = rawFile("{}", "");
        huge[5] = 1; // 2^40
        QTest::newRow("header length absurd") << huge << "exceeds the limit";
        QTest::newRow("JSON malformed") << rawFile("{\"w\": ", "") << "not a JSON object";
        QTest::newRow("JSON not an object") << rawFile("[1, 2]", "") << "not a JSON object";
        QTest::newRow("offsets beyond data")
            << rawFile(tensor("F32", "[1]", "[0, 8]"), four) << "outside the data area";
        QTest::newRow("truncated data")
            << rawFile(tensor("F32", "[2]", "[0, 8]"), four) << "outside the data area";
        QTest::newRow("begin after end")
            << rawFile(tensor("F32", "[0]", "[4, 0]"), four) << "outside the data area";
        QTest::newRow("wrong length for shape")
            << rawFile(tensor("F32", "[3]", "[0, 8]"), eight) << "holds 8 bytes but shape [3]";
        QTest::newRow("shape overflows")
            << rawFile(tensor("F64", "[281474976710656, 281474976710656]", "[0, 8]"), eight)
            << "too large";
        QTest::newRow("negative extent")
            << rawFile(tensor("F32", "[-1]", "[0, 4]"), four) << "must be an integer";
        QTest::newRow("unknown dtype") << rawFile(tensor("Q4", "[4]", "[0, 4]"), four)
                                       << R"(tensor "w".dtype: "Q4" is not a safetensors dtype)";
        QTest::newRow("length wrong for an unconverted dtype")
            << rawFile(tensor("I64", "[1]", "[0, 4]"), four) << "shape [1] of I64 needs 8";
        QTest::newRow("offsets not a pair")
            << rawFile(tensor("F32", "[1]", "[0]"), four) << "must be [begin, end]";
        QTest::newRow("unknown key")
            << rawFile(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4], "x": 1}})",
                       four)
            << "unknown key";
        QTest::newRow("overlapping")
            << rawFile(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                           "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
                       eight)
            << "tensors \"a\" and \"b\" overlap";
        QTest::newRow("metadata not strings")
            << rawFile(R"({"__metadata__": {"format": 1}})", "") << "must be a string";
    }

    void malformedFilesAreRefused() {
        QFETCH(std::string, bytes);
        QFETCH(QString, expected);
        const QString message = inputErrorOf([&] { fromBytes(bytes); });
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.startsWith("test.safetensors"), qPrintable(message));
    }

    void truncatedFileOnDiskIsRefused() {
        QTemporaryDir dir;
        const std::string whole = safetensorsFile({{"w", "F32", {4}, std::string(16, '\0')}});
        const std::filesystem::path path = dir.filePath("cut.safetensors").toStdString();
        writeFile(path, whole.substr(0, whole.size() - 3));
        expectError([&] { SafetensorsFile file(path); },
                    {"cut.safetensors", "outside the data area"});
        expectError([&] { SafetensorsFile file(dir.filePath("none").toStdString()); },
                    {"none", "cannot open"});
    }

    void checkpointWithOneFile() {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        writeFile(
            root / "model.safetensors",
            safetensorsFile({{"a", "F32", {2, 2}, bytesOf(std::vector<float>{1, 2, 3, 4})},
                             {"b", "BF16", {3}, bytesOf(std::vector<std::uint16_t>(3, 0x3f80))}}));
        const Checkpoint checkpoint(root);
        QVERIFY(checkpoint.has("a"));
        QVERIFY(!checkpoint.has("c"));
        QCOMPARE(checkpoint.names(), (std::vector<std::string>{"a", "b"}));
        QCOMPARE(checkpoint.shape("b"), (std::pair<long long, long long>{1, 3}));
        QCOMPARE(checkpoint.readDouble("a", {1})(0, 1), 4.0);
        QCOMPARE(checkpoint.readFloat("b")(0, 2), 1.0f);
        QCOMPARE(checkpoint.origin(), root.string());
        const TensorSource& source = checkpoint;
        expectError([&] { source.shape("c"); }, {"no tensor \"c\"", root.string().c_str()});
        expectError([&] { source.readFloat("c"); }, {"no tensor \"c\"", root.string().c_str()});
    }

    void checkpointWithShards() {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        writeFile(root / "model-00001-of-00002.safetensors",
                  safetensorsFile(
                      {{"a", "F16", {2}, bytesOf(std::vector<std::uint16_t>{0x3c00, 0x4000})}}));
        writeFile(root / "model-00002-of-00002.safetensors",
                  safetensorsFile({{"b", "F64", {1, 1}, bytesOf(std::vector<double>{0.25})},
                                   {"unlisted", "F32", {1}, std::string(4, '\0')}}));
        const std::string index = R"({"metadata": {"total_size": 12}, "weight_map": {
            "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}})";
        writeFile(root / "model.safetensors.index.json", index);
        const Checkpoint checkpoint(root);
        QCOMPARE(checkpoint.names(), (std::vector<std::string>{"a", "b"}));
        QCOMPARE(checkpoint.readDouble("a")(0, 1), 2.0);
        QCOMPARE(checkpoint.readDouble("b")(0, 0), 0.25);
        QCOMPARE(checkpoint.tensor("a").dtype, SafetensorsDtype::F16);
    }

    void badCheckpointDirectories_data() {
        QTest::addColumn<QString>("index");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing shard")
            << R"({"weight_map": {"a": "shard-1.safetensors", "b": "shard-2.safetensors"}})"
            << "shard \"shard-2.safetensors\" is missing";
        QTest::newRow("tensor not where the index says")
            << R"({"weight_map": {"a": "shard-1.safetensors", "z": "shard-1.safetensors"}})"
            << "tensor \"z\" is not in shard \"shard-1.safetensors\"";
        QTest::newRow("shard outside the directory")
            << R"({"weight_map": {"a": "../shard-1.safetensors"}})"
            << "is not a file name in the checkpoint's directory";
        QTest::newRow("no weight_map") << R"({"metadata": {}})"
                                       << "weight_map";
        QTest::newRow("empty weight_map") << R"({"weight_map": {}})"
                                          << "non-empty object";
        QTest::newRow("shard not a string") << R"({"weight_map": {"a": 3}})"
                                            << "must be a string";
        QTest::newRow("index malformed") << R"({"weight_map": )"
                                         << "is not valid JSON";
    }

    void badCheckpointDirectories() {
        QFETCH(QString, index);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        writeFile(root / "shard-1.safetensors",
                  safetensorsFile({{"a", "F32", {1}, std::string(4, '\0')}}));
        writeFile(root / "model.safetensors.index.json", index.toStdString());
        const QString message = inputErrorOf([&] { Checkpoint checkpoint(root); });
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.contains(dir.path()), qPrintable(message));
    }

    void directoryWithoutSafetensors() {
        QTemporaryDir dir;
        expectError([&] { Checkpoint checkpoint(dir.path().toStdString()); },
                    {"neither model.safetensors nor model.safetensors.index.json"});
        expectError([&] { Checkpoint checkpoint(dir.filePath("absent").toStdString()); },
                    {"is not a directory"});
    }

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

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "test_checkpoint.moc"
