// NumPy .npy files: npyBytes → parseNpy round trips bit for bit, the header layout (magic,
// version 1.0, 64-byte alignment, C order), the other dtypes, orders and versions parseNpy reads,
// every kind of malformed input refused with InputError; masks: every accepted dtype (bool, 0/1
// integers and floats, additive 0/-inf floats), the refused ones naming the first bad entry,
// bool .npy written and read back, files with their names in messages, and the fixtures numpy
// wrote (scripts/hf-fixtures/make_mask_fixtures.py).
#include "core/base/error.h"
#include "core/io/npy.h"
#include "test_support.h"

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

namespace {
template <class T>
std::string rawBytes(const std::vector<T>& values) {
    std::string out(values.size() * sizeof(T), '\0');
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
}

// A hand-made .npy: magic, version, header length (2 bytes for 1.x, 4 for 2.x/3.x), the header
// dictionary padded to 64 bytes and the data.
std::string npyFile(const std::string& dict, const std::string& data, int major = 1) {
    const std::size_t preamble = major == 1 ? 10 : 12;
    std::string header = dict;
    header.append(64 - (preamble + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string out = "\x93NUMPY";
    out += char(major);
    out += char(0);
    const auto len = static_cast<std::uint32_t>(header.size());
    out += char(len & 0xff);
    out += char((len >> 8) & 0xff);
    if (major != 1) {
        out += char((len >> 16) & 0xff);
        out += char((len >> 24) & 0xff);
    }
    return out + header + data;
}

// A 2 x 2 .npy of dtype `descr` holding `values` in C order.
template <class T>
std::string npy2x2(const std::string& descr, const std::vector<T>& values) {
    return npyFile("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2, 2), }",
                   rawBytes<T>(values));
}

// Mask cells from rows of 0/1 separated by spaces: "10 11".
BoolMatrix cells(const QString& rows) {
    const QStringList lines = rows.split(' ');
    BoolMatrix m(lines.size(), lines.front().size());
    for (int i = 0; i < lines.size(); ++i)
        for (int j = 0; j < lines[i].size(); ++j)
            m(i, j) = lines[i][j] == '1';
    return m;
}

// The rows of a mask in the form cells() reads.
QString rowsOf(const BoolMatrix& m) {
    QStringList lines;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        QString line;
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            line += m(i, j) ? '1' : '0';
        lines << line;
    }
    return lines.join(' ');
}

} // namespace

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
        QTest::newRow("float16 dtype")
            << row(npyFile("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }",
                           four.substr(0, 8)))
            << "dtype '<f2' is not supported";
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
