// SPDX-License-Identifier: GPL-3.0-or-later
// NumPy .npy files: npyBytes → parseNpy round trips bit for bit, the header layout (magic,
// version 1.0, 64-byte alignment, C order), the other dtypes, orders and versions parseNpy reads,
// every kind of malformed input refused with InputError, and writeNpy (masks:
// test_npy_masks.cpp).
#include "core/base/error.h"
#include "core/formats/npy.h"
#include "core/npy_test_files.h"
#include "core/test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <typeinfo>

using namespace attnlab;
using namespace attnlab::test;

Q_DECLARE_METATYPE(Eigen::MatrixXd)

class TestNpy : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data() {
        QTest::addColumn<Eigen::MatrixXd>("m");
        Eigen::MatrixXd one(1, 1);
        one << 42;
        QTest::newRow("1 x 1") << one;
        Eigen::MatrixXd wide(2, 3);
        wide << 1, 2, 3, 4, 5, 6;
        QTest::newRow("2 x 3") << wide;
        Eigen::MatrixXd tall(3, 2);
        tall << -0.5, 1e-300, 1e300, -0.0, 0.1, std::numeric_limits<double>::denorm_min();
        QTest::newRow("3 x 2 extremes") << tall;
        Eigen::MatrixXd big(5, 7);
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 7; ++j)
                big(i, j) = std::sin(i * 7 + j) / (j + 1);
        QTest::newRow("5 x 7") << big;
        Eigen::MatrixXd column(4, 1);
        column << 1, -2, 3, -4;
        QTest::newRow("4 x 1") << column;
        QTest::newRow("1 x 100") << Eigen::MatrixXd(Eigen::MatrixXd::Random(1, 100));
    }
    void roundTrip() {
        QFETCH(Eigen::MatrixXd, m);
        const std::string bytes = npyBytes(m);
        QVERIFY(sameBits(parseNpy(bytes), m));
    }

    void headerLayout_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::newRow("2 x 3") << 2 << 3;
        QTest::newRow("1 x 1") << 1 << 1;
        QTest::newRow("1000 x 3") << 1000 << 3; // longer shape text, still aligned
        QTest::newRow("123456 x 1") << 123456 << 1;
    }
    void headerLayout() {
        QFETCH(int, rows);
        QFETCH(int, cols);
        Eigen::MatrixXd m(rows, cols);
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
                m(i, j) = 10 * i + j;
        const std::string bytes = npyBytes(m);
        QCOMPARE(bytes.substr(0, 6), std::string("\x93NUMPY"));
        QCOMPARE(int(bytes[6]), 1); // version 1.0
        QCOMPARE(int(bytes[7]), 0);
        const std::size_t headerLen =
            static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        QCOMPARE((10 + headerLen) % 64, std::size_t(0));
        const std::string header = bytes.substr(10, headerLen);
        QCOMPARE(header.back(), '\n');
        QVERIFY(header.find("'descr': '<f8'") != std::string::npos);
        QVERIFY(header.find("'fortran_order': False") != std::string::npos);
        const std::string shape =
            "'shape': (" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
        QVERIFY2(header.find(shape) != std::string::npos, header.c_str());
        QCOMPARE(bytes.size(), 10 + headerLen + sizeof(double) * std::size_t(rows * cols));
        // C order: the data runs along rows first.
        for (int k = 0; k < std::min(rows * cols, 8); ++k) {
            double value;
            std::memcpy(&value, bytes.data() + 10 + headerLen + 8 * k, 8);
            QCOMPARE(value, m(k / cols, k % cols));
        }
    }

    void otherFormats_data() {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<Eigen::MatrixXd>("expected");
        Eigen::MatrixXd column(3, 1);
        column << 1.5, -2, 1e10;
        QTest::newRow("1-D float64")
            << QByteArray::fromStdString(
                   npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                           rawBytes<double>({1.5, -2, 1e10})))
            << column;
        Eigen::MatrixXd m23(2, 3);
        m23 << 1, 2, 3, 4, 5, 6;
        QTest::newRow("float32")
            << QByteArray::fromStdString(
                   npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                           rawBytes<float>({1, 2, 3, 4, 5, 6})))
            << m23;
        Eigen::MatrixXd halves(1, 3); // 1, -2.5 and the smallest subnormal float16, exactly
        halves << 1, -2.5, 0x1.0p-24;
        QTest::newRow("float16")
            << QByteArray::fromStdString(
                   npyFile("{'descr': '<f2', 'fortran_order': False, 'shape': (1, 3), }",
                           rawBytes<std::uint16_t>({0x3c00, 0xc100, 0x0001})))
            << halves;
        QTest::newRow("int64") << QByteArray::fromStdString(npyFile(
                                      "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }",
                                      rawBytes<std::int64_t>({1, 2, 3, 4, 5, 6})))
                               << m23;
        Eigen::MatrixXd edges(1, 2); // the largest integers a float64 holds exactly
        edges << -9007199254740992.0, 9007199254740992.0;
        QTest::newRow("int64 at ±2^53")
            << QByteArray::fromStdString(npyFile(
                   "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }",
                   rawBytes<std::int64_t>({-(std::int64_t(1) << 53), std::int64_t(1) << 53})))
            << edges;
        Eigen::MatrixXd negative(1, 2);
        negative << -7, 2147483647;
        QTest::newRow("int32") << QByteArray::fromStdString(npyFile(
                                      "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 2), }",
                                      rawBytes<std::int32_t>({-7, 2147483647})))
                               << negative;
        QTest::newRow("version 2.0")
            << QByteArray::fromStdString(
                   npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                           rawBytes<double>({1, 2, 3, 4, 5, 6}), 2))
            << m23;
        QTest::newRow("bool") << QByteArray::fromStdString(npyFile(
                                     "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 3), }",
                                     std::string("\1\0\1\1\1\0", 6)))
                              << Eigen::MatrixXd(
                                     (Eigen::MatrixXd(2, 3) << 1, 0, 1, 1, 1, 0).finished());
        QTest::newRow("uint8") << QByteArray::fromStdString(npyFile(
                                      "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }",
                                      rawBytes<std::uint8_t>({1, 2, 3, 4, 5, 6})))
                               << m23;
        QTest::newRow("int8 and int16")
            << QByteArray::fromStdString(
                   npyFile("{'descr': '|i1', 'fortran_order': False, 'shape': (1, 2), }",
                           rawBytes<std::int8_t>({-7, 127})))
            << Eigen::MatrixXd((Eigen::MatrixXd(1, 2) << -7, 127).finished());
        QTest::newRow("uint64")
            << QByteArray::fromStdString(
                   npyFile("{'descr': '<u8', 'fortran_order': False, 'shape': (2, 3), }",
                           rawBytes<std::uint64_t>({1, 2, 3, 4, 5, 6})))
            << m23;
        QTest::newRow("Fortran order")
            << QByteArray::fromStdString(
                   npyFile("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                           rawBytes<double>({1, 4, 2, 5, 3, 6})))
            << m23;
        std::string bigEndian = rawBytes<double>({1, 2, 3, 4, 5, 6});
        for (std::size_t k = 0; k < bigEndian.size(); k += 8)
            std::reverse(bigEndian.begin() + long(k), bigEndian.begin() + long(k) + 8);
        QTest::newRow("big-endian float64")
            << QByteArray::fromStdString(npyFile(
                   "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }", bigEndian))
            << m23;
        QTest::newRow("key order and spacing")
            << QByteArray::fromStdString(
                   npyFile("{'shape':(2,3),'fortran_order':False,'descr':'<f8'}",
                           rawBytes<double>({1, 2, 3, 4, 5, 6})))
            << m23;
    }
    void otherFormats() {
        QFETCH(QByteArray, file);
        QFETCH(Eigen::MatrixXd, expected);
        const Eigen::MatrixXd m = parseNpy(file.toStdString());
        QCOMPARE(m.rows(), expected.rows());
        QCOMPARE(m.cols(), expected.cols());
        QVERIFY(m == expected);
    }

    void malformedRefused_data() {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("fragment");
        const std::string f8 = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }";
        const std::string four = rawBytes<double>({1, 2, 3, 4});
        const auto row = [](const std::string& s) { return QByteArray::fromStdString(s); };
        QTest::newRow("empty") << row("") << "magic";
        QTest::newRow("text") << row("hello world, not numpy") << "magic";
        QTest::newRow("wrong magic") << row("\x93NUMPZ" + npyFile(f8, four).substr(6)) << "magic";
        QTest::newRow("magic only") << row("\x93NUMPY") << "magic";
        QTest::newRow("version 4")
            << row(npyFile(f8, four).replace(6, 1, 1, char(4))) << "version 4";
        QTest::newRow("header longer than file")
            << row(npyFile(f8, four).substr(0, 40)) << "truncated";
        QTest::newRow("version 2 preamble cut")
            << row(std::string("\x93NUMPY\x02\x00\x10\x00", 10)) << "truncated";
        QTest::newRow("complex dtype")
            << row(npyFile("{'descr': '<c16', 'fortran_order': False, 'shape': (2, 2), }",
                           four + four))
            << "dtype '<c16' is not supported";
        QTest::newRow("float128 dtype")
            << row(npyFile("{'descr': '<f16', 'fortran_order': False, 'shape': (1, 1), }",
                           std::string(16, '\0')))
            << "dtype '<f16' is not supported";
        QTest::newRow("object dtype")
            << row(npyFile("{'descr': '|O', 'fortran_order': False, 'shape': (2, 2), }", four))
            << "dtype '|O' is not supported";
        QTest::newRow("no dtype") << row(npyFile("{'fortran_order': False, 'shape': (2, 2), }",
                                                 four))
                                  << "no 'descr'";
        QTest::newRow("header lying: more data than the shape")
            << row(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }", four))
            << "16 bytes after the data of shape (1, 2)";
        QTest::newRow("header lying: dtype smaller than the data")
            << row(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", four))
            << "bytes after the data";
        QTest::newRow("shape not a tuple of sizes")
            << row(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2, x), }", four))
            << "not a tuple of sizes";
        QTest::newRow("header over 10000 bytes")
            << row(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), " +
                               std::string(10000, ' ') + "}",
                           four))
            << "longer than 10000 bytes";
        QTest::newRow("3-D")
            << row(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 2), }", four))
            << "1-D or 2-D";
        QTest::newRow("0-D") << row(npyFile(
                                    "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                                    four.substr(0, 8)))
                             << "1-D or 2-D";
        QTest::newRow("no shape") << row(npyFile("{'descr': '<f8', 'fortran_order': False}", four))
                                  << "no shape";
        QTest::newRow("empty shape")
            << row(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", ""))
            << "empty or too large";
        QTest::newRow("huge shape")
            << row(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }",
                           four))
            << "empty or too large";
        QTest::newRow("shape overflowing 64 bits")
            << row(npyFile(
                   "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999, 1), }",
                   four))
            << "shape";
        QTest::newRow("data truncated") << row(npyFile(f8, four.substr(0, 31))) << "truncated";
        QTest::newRow("NaN entry")
            << row(npyFile(f8,
                           rawBytes<double>({1, std::numeric_limits<double>::quiet_NaN(), 3, 4})))
            << "entry (0, 1) is not finite";
        QTest::newRow("Inf in float32")
            << row(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                           rawBytes<float>({1, 2, 3, -std::numeric_limits<float>::infinity()})))
            << "entry (1, 1) is not finite";
        // Read exactly or not at all: an exact scenario's weights come from these files.
        QTest::newRow("int64 beyond 2^53")
            << row(npy2x2<std::int64_t>("<i8", {1, 0, (std::int64_t(1) << 53) + 1, 1}))
            << "entry (1, 0): 9007199254740993 is an integer beyond 2^53";
        QTest::newRow("uint64 beyond 2^53")
            << row(npy2x2<std::uint64_t>("<u8", {1, ~std::uint64_t(0), 0, 1}))
            << "entry (0, 1): 18446744073709551615 is an integer beyond 2^53";
        QTest::newRow("bool byte 2") << row(npy2x2<std::uint8_t>("|b1", {1, 0, 0, 2}))
                                     << "entry (1, 1): a bool holds the byte 2";
        QTest::newRow("fortran_order neither True nor False")
            << row(npyFile("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2, 2), }", four))
            << "'fortran_order' must be True or False";
    }
    void malformedRefused() {
        QFETCH(QByteArray, file);
        QFETCH(QString, fragment);
        const std::string bytes = file.toStdString();
        QString message;
        try {
            parseNpy(bytes);
        } catch (const InputError& e) {
            message = QString::fromUtf8(e.what());
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QString("threw a %1 instead of InputError: %2")
                                 .arg(typeid(e).name(), QString::fromUtf8(e.what()))));
        }
        QVERIFY2(!message.isNull(), "accepted");
        QVERIFY2(message.contains(fragment), qPrintable(message));
    }

    void writeNpy() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Eigen::MatrixXd m(2, 2);
        m << 1, -2, 3.25, 4e-5;
        const std::filesystem::path path = dir.filePath("m.npy").toStdString();
        attnlab::writeNpy(path, m);
        std::ifstream in(path, std::ios::binary);
        std::stringstream content;
        content << in.rdbuf();
        QCOMPARE(content.str(), npyBytes(m));
        QVERIFY(!std::filesystem::exists(path.string() + ".tmp")); // no temporary left behind
        // Overwrites an existing file.
        m(0, 0) = 9;
        attnlab::writeNpy(path, m);
        std::ifstream again(path, std::ios::binary);
        std::stringstream second;
        second << again.rdbuf();
        QVERIFY(sameBits(parseNpy(second.str()), m));
        // An unwritable place.
        const std::filesystem::path missing = dir.filePath("no/such/dir/m.npy").toStdString();
        const QString message = inputErrorOf([&] { attnlab::writeNpy(missing, m); });
        QVERIFY2(message.contains("cannot write"), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestNpy)
#include "test_npy.moc"