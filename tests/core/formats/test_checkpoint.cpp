// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face checkpoints: safetensors files written here byte by byte read back exactly in
// every dtype (F16 and BF16 bit patterns exhaustively), rows selected and pages released, sharded
// directories through their index, and every kind of malformed file or index refused naming what
// is wrong.
#include "core/formats/checkpoint.h"
#include "core/formats/safetensors.h"
#include "core/safetensors_test_files.h"

#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

#include <cmath>
#include <limits>

using namespace attnlab;
using namespace attnlab::test;

namespace {

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
        QVERIFY(residentBytes() - before < 4 << 20);              // opening reads the header only
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
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "test_checkpoint.moc"
