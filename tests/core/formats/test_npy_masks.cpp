// SPDX-License-Identifier: GPL-3.0-or-later
// NumPy .npy masks: every accepted dtype (bool, 0/1 integers and floats, additive 0/-inf
// floats), the refused ones naming the first bad entry, bool .npy written and read back, files
// with their names in messages, and the fixtures numpy wrote
// (scripts/hf-fixtures/make_mask_fixtures.py).
#include "core/base/error.h"
#include "core/formats/npy.h"
#include "core/npy_test_files.h"
#include "core/test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdint>
#include <fstream>
#include <limits>

using namespace attnlab;
using namespace attnlab::test;

class TestNpyMasks : public QObject {
    Q_OBJECT
private slots:
    void masksAccepted_data() {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("expected");
        const auto row = [](const std::string& s) { return QByteArray::fromStdString(s); };
        const float inf = std::numeric_limits<float>::infinity();
        const float lowest = std::numeric_limits<float>::lowest();
        QTest::newRow("bool") << row(npy2x2<std::uint8_t>("|b1", {1, 0, 1, 1})) << "10 11";
        QTest::newRow("uint8") << row(npy2x2<std::uint8_t>("|u1", {0, 1, 1, 0})) << "01 10";
        QTest::newRow("int8") << row(npy2x2<std::int8_t>("|i1", {1, 1, 0, 1})) << "11 01";
        QTest::newRow("int64") << row(npy2x2<std::int64_t>("<i8", {1, 0, 0, 1})) << "10 01";
        QTest::newRow("uint16") << row(npy2x2<std::uint16_t>("<u2", {0, 0, 1, 1})) << "00 11";
        QTest::newRow("float32 0/1") << row(npy2x2<float>("<f4", {1, 0, 1, 1})) << "10 11";
        QTest::newRow("float64 0/1") << row(npy2x2<double>("<f8", {0, 0, 0, 1})) << "00 01";
        QTest::newRow("float32 additive -inf")
            << row(npy2x2<float>("<f4", {0, -inf, 0, 0})) << "10 11";
        QTest::newRow("float32 additive finfo.min")
            << row(npy2x2<float>("<f4", {0, lowest, lowest, 0})) << "10 01";
        QTest::newRow("float64 additive -inf")
            << row(npy2x2<double>("<f8", {-double(inf), 0, 0, 0})) << "01 11";
        QTest::newRow("4-D of one sequence and head")
            << row(npyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (1, 1, 2, 3), }",
                           rawBytes<std::uint8_t>({1, 0, 0, 1, 1, 0})))
            << "100 110";
        QTest::newRow("not square (queries x keys)")
            << row(npyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (1, 3), }",
                           rawBytes<std::uint8_t>({1, 1, 0})))
            << "110";
        QTest::newRow("Fortran order")
            << row(npyFile("{'descr': '|b1', 'fortran_order': True, 'shape': (2, 2), }",
                           rawBytes<std::uint8_t>({1, 1, 0, 1})))
            << "10 11";
    }
    void masksAccepted() {
        QFETCH(QByteArray, file);
        QFETCH(QString, expected);
        QCOMPARE(rowsOf(parseNpyMask(file.toStdString())), expected);
    }

    void masksRefused_data() {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("fragment");
        const auto row = [](const std::string& s) { return QByteArray::fromStdString(s); };
        const float inf = std::numeric_limits<float>::infinity();
        QTest::newRow("int 2") << row(npy2x2<std::int32_t>("<i4", {1, 0, 2, 3}))
                               << "entry (1, 0) is 2; a mask holds 0/1";
        QTest::newRow("int -1") << row(npy2x2<std::int64_t>("<i8", {1, -1, 0, 0}))
                                << "entry (0, 1) is -1";
        QTest::newRow("bool byte 2") << row(npy2x2<std::uint8_t>("|b1", {1, 0, 0, 2}))
                                     << "entry (1, 1): a bool holds the byte 2";
        QTest::newRow("float 0.5")
            << row(npy2x2<float>("<f4", {1, 0.5f, 0, 0})) << "entry (0, 1) is 0.5";
        QTest::newRow("NaN") << row(npy2x2<double>("<f8", {1, 0, 0, std::nan("")}))
                             << "entry (1, 1) is nan";
        QTest::newRow("additive with a 1")
            << row(npy2x2<float>("<f4", {0, -inf, 1, 0}))
            << "entry (1, 0) is 1; an additive float mask holds only 0 (attend) and -inf";
        QTest::newRow("+inf") << row(npy2x2<float>("<f4", {0, inf, 0, 0})) << "entry (0, 1) is inf";
        QTest::newRow("all-zero float") << row(npy2x2<float>("<f4", {0, 0, 0, 0})) << "ambiguous";
        QTest::newRow("1-D") << row(npyFile(
                                    "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
                                    rawBytes<std::uint8_t>({1, 0, 1, 1})))
                             << "must be 2-D (queries x keys)";
        QTest::newRow("batch of 2")
            << row(npyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (2, 1, 1, 2), }",
                           rawBytes<std::uint8_t>({1, 0, 1, 1})))
            << "shape (2, 1, 1, 2)";
        QTest::newRow("truncated") << row(npy2x2<std::uint8_t>("|b1", {1, 0, 1})) << "truncated";
        QTest::newRow("header lying about the shape")
            << row(npyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (3, 3), }",
                           rawBytes<std::uint8_t>({1, 0, 1, 1})))
            << "truncated";
        QTest::newRow("unknown dtype")
            << row(npy2x2<std::uint32_t>("<c8", {0, 0, 0, 0})) << "dtype '<c8' is not supported";
        QTest::newRow("not a .npy") << row("just some text") << "not a .npy file";
    }
    void masksRefused() {
        QFETCH(QByteArray, file);
        QFETCH(QString, fragment);
        const QString message = inputErrorOf([&] { parseNpyMask(file.toStdString()); });
        QVERIFY2(!message.isNull(), "accepted");
        QVERIFY2(message.contains(fragment), qPrintable(message));
    }

    void maskFilesRoundTrip() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const BoolMatrix mask = cells("100 110 011");
        const std::string bytes = npyMaskBytes(mask);
        QVERIFY(bytes.find("'descr': '|b1'") != std::string::npos);
        QCOMPARE(rowsOf(parseNpyMask(bytes)), rowsOf(mask));
        const std::filesystem::path path = dir.filePath("m.npy").toStdString();
        writeNpyMask(path, mask);
        QCOMPARE(rowsOf(readNpyMask(path)), rowsOf(mask));
        QVERIFY(readNpy(path) == parseNpy(bytes)); // as numbers: 0 and 1
    }

    void maskFileErrorsNameTheFile() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::filesystem::path missing = dir.filePath("missing.npy").toStdString();
        QString message = inputErrorOf([&] { readNpyMask(missing); });
        QVERIFY2(message.contains(QString::fromStdString(missing.string()) + ": no such file"),
                 qPrintable(message));
        message = inputErrorOf([&] { readNpyMask(dir.path().toStdString()); });
        QVERIFY2(message.contains("not a regular file"), qPrintable(message));
        const std::filesystem::path cut = dir.filePath("cut.npy").toStdString();
        std::ofstream(cut, std::ios::binary) << npyMaskBytes(cells("10 11")).substr(0, 130);
        message = inputErrorOf([&] { readNpyMask(cut); });
        QVERIFY2(message.startsWith(QString::fromStdString(cut.string()) + ": ") &&
                     message.contains("truncated"),
                 qPrintable(message));
    }

    // Masks numpy itself wrote (scripts/hf-fixtures/make_mask_fixtures.py): n = 6, the last two
    // keys padding.
    void maskFixtures_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        const QString causalPadding = "100000 110000 111000 111100 111100 111100";
        const QString causalWindow = "100000 110000 011000 001100 000110 000011";
        QTest::newRow("bool") << "causal_padding_bool.npy" << causalPadding;
        QTest::newRow("additive -inf") << "causal_padding_additive.npy" << causalPadding;
        QTest::newRow("4-D finfo.min") << "causal_padding_finfo_min.npy" << causalPadding;
        QTest::newRow("uint8") << "causal_window_uint8.npy" << causalWindow;
        QTest::newRow("Fortran order") << "causal_window_fortran.npy" << causalWindow;
        QTest::newRow("big-endian int32") << "causal_window_int32_be.npy" << causalWindow;
    }
    void maskFixtures() {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        const std::filesystem::path file =
            std::filesystem::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/masks" / name.toStdString();
        QCOMPARE(rowsOf(readNpyMask(file)), expected);
    }
};

QTEST_GUILESS_MAIN(TestNpyMasks)
#include "test_npy_masks.moc"
