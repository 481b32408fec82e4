// SPDX-License-Identifier: GPL-3.0-or-later
// The probe's 3-D .npy batches: what AttnLab writes reads back (as numpy would write it), float16
// answers are read exactly, and every malformed answer is refused naming what is wrong.
#include "core/base/error.h"
#include "core/formats/npy_header.h"
#include "core/probe/batch_npy.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>

using namespace attnlab;

namespace {

std::vector<Sequence> batchOf(long b, long n, long d) {
    std::vector<Sequence> batch;
    for (long s = 0; s < b; ++s)
        batch.push_back(Sequence::NullaryExpr(n, d, [&](Eigen::Index i, Eigen::Index j) {
            return 0.25 * double(s) - 0.5 * double(i * d + j);
        }));
    return batch;
}

// A file of `header` (descr, shape) and `data` bytes.
void writeRaw(const std::string& path, const std::string& descr, std::vector<long long> shape,
              const std::string& data) {
    std::ofstream(path, std::ios::binary) << npyHeaderBytes(descr, shape) << data;
}

void expectError(const std::string& path, long b, long rows, const QString& words) {
    try {
        readBatchNpy(path, b, rows, 1 << 20);
        QFAIL(qPrintable("no error, expected: " + words));
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains(words), e.what());
    }
}

} // namespace

class TestBatchNpy : public QObject {
    Q_OBJECT

private slots:
    void writtenBatchesReadBackInBothPrecisions() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("b.npy").toStdString();
        const auto batch = batchOf(3, 4, 2);
        for (bool single : {true, false}) {
            writeBatchNpy(path, batch, single);
            const BatchAnswer a = readBatchNpy(path, 3, 4, 1 << 20);
            QCOMPARE(a.dtype, std::string(single ? "float32" : "float64"));
            QCOMPARE(a.outputs.size(), std::size_t(3));
            for (std::size_t s = 0; s < 3; ++s)
                QVERIFY(a.outputs[s] == batch[s]); // quarters are exact in float32
        }
    }

    void float16IsReadExactly() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("h.npy").toStdString();
        // 1.0, -2.5, 65504 (the largest half), 2^-24 (the smallest subnormal)
        const unsigned short halves[] = {0x3c00, 0xc100, 0x7bff, 0x0001};
        writeRaw(path, "<f2", {1, 2, 2}, std::string(reinterpret_cast<const char*>(halves), 8));
        const BatchAnswer a = readBatchNpy(path, 1, 2, 1 << 20);
        QCOMPARE(a.dtype, std::string("float16"));
        QCOMPARE(a.unitRoundoff, 0x1.0p-11);
        QCOMPARE(a.outputs[0](0, 0), 1.0);
        QCOMPARE(a.outputs[0](0, 1), -2.5);
        QCOMPARE(a.outputs[0](1, 0), 65504.0);
        QCOMPARE(a.outputs[0](1, 1), 0x1.0p-24);
    }

    void malformedAnswersAreRefused() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("x.npy").toStdString();
        expectError(path, 1, 2, "wrote no output file");
        std::ofstream(path) << "hello";
        expectError(path, 1, 2, "not a .npy file");
        writeRaw(path, "<f4", {2, 2}, std::string(16, '\0'));
        expectError(path, 1, 2, "is not 3-D");
        writeRaw(path, "<f4", {1, 3, 2}, std::string(24, '\0'));
        expectError(path, 1, 2, "axis 1 (the rows) is 3, expected 2");
        writeRaw(path, "<i4", {1, 2, 2}, std::string(16, '\0'));
        expectError(path, 1, 2, "int32 is not supported");
        writeRaw(path, "<f4", {1, 2, 2}, std::string(8, '\0'));
        expectError(path, 1, 2, "the file holds");
        writeRaw(path, "<f8", {1, 2, 1000000}, std::string(8, '\0'));
        expectError(path, 1, 2, "more than the limit");
        float nan[4] = {0, 0, 0, std::numeric_limits<float>::quiet_NaN()};
        writeRaw(path, "<f4", {1, 2, 2}, std::string(reinterpret_cast<const char*>(nan), 16));
        expectError(path, 1, 2, "NaN at sequence 0, row 1, column 1");
    }
};

QTEST_GUILESS_MAIN(TestBatchNpy)
#include "test_batch_npy.moc"
