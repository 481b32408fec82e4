// SPDX-License-Identifier: GPL-3.0-or-later
// Exact rationals: parsing ("k", "p/q", decimals) into lowest terms, the exact value of a
// double's shortest decimal, the nearest double of a rational, and the refusals of exact mode.
#include "core/base/error.h"
#include "core/base/scalar.h"
#include "core/test_support.h"

#include <QtTest>

#include <limits>
#include <string>

using namespace attnlab;
using namespace attnlab::test;

namespace {
QString text(const Rational& q) {
    return QString::fromStdString(rationalText(q));
}
} // namespace

class TestScalar : public QObject {
    Q_OBJECT
private slots:
    void parseRational_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("integer") << "3"
                                 << "3";
        QTest::newRow("negative integer") << "-12"
                                          << "-12";
        QTest::newRow("plus sign") << "+7"
                                   << "7";
        QTest::newRow("zero") << "0"
                              << "0";
        QTest::newRow("negative zero") << "-0"
                                       << "0";
        QTest::newRow("fraction") << "-1/2"
                                  << "-1/2";
        QTest::newRow("fraction canonical") << "2/4"
                                            << "1/2";
        QTest::newRow("negative fraction canonical") << "-6/4"
                                                     << "-3/2";
        QTest::newRow("fraction to integer") << "6/3"
                                             << "2";
        QTest::newRow("decimal") << "0.25"
                                 << "1/4";
        QTest::newRow("negative decimal") << "-0.5"
                                          << "-1/2";
        QTest::newRow("leading dot") << ".5"
                                     << "1/2";
        QTest::newRow("trailing dot") << "5."
                                      << "5";
        QTest::newRow("exponent") << "1e-3"
                                  << "1/1000";
        QTest::newRow("exponent plus") << "1.5E+2"
                                       << "150";
        QTest::newRow("decimal exponent") << "2.5e-1"
                                          << "1/4";
        QTest::newRow("one tenth exactly") << "0.1"
                                           << "1/10";
        QTest::newRow("long decimal") << "0.3333333333333333"
                                      << "3333333333333333/10000000000000000";
    }
    void parseRational() {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        QCOMPARE(text(attnlab::parseRational(input.toStdString())), expected);
    }

    void parseRationalRefuses_data() {
        QTest::addColumn<QString>("input");
        for (const char* bad : {"",      "abc",  "-",     "+",   "1/",  "/2",  "1/0",       "-3/0",
                                "1/2/3", "1/-2", "1.2.3", ".",   "1e",  "e5",  "1e+",       "--1",
                                "0x10",  " 1",   "1 ",    "nan", "inf", "1,5", "1e1234567", "½"})
            QTest::newRow(bad[0] ? bad : "(empty)") << QString::fromUtf8(bad);
    }
    void parseRationalRefuses() {
        QFETCH(QString, input);
        const std::string raw = input.toStdString();
        const QString message = inputErrorOf([&] { attnlab::parseRational(raw); });
        QVERIFY2(!message.isNull(), "no InputError");
        // The message names the offending text.
        QVERIFY2(message.contains("'" + input + "'"), qPrintable(message));
    }

    void decimalRational_data() {
        QTest::addColumn<double>("x");
        QTest::addColumn<QString>("expected");
        QTest::newRow("0.1") << 0.1 << "1/10";
        QTest::newRow("0.25") << 0.25 << "1/4";
        QTest::newRow("-2.5") << -2.5 << "-5/2";
        QTest::newRow("1e-3") << 1e-3 << "1/1000";
        QTest::newRow("3") << 3.0 << "3";
        QTest::newRow("0") << 0.0 << "0";
        QTest::newRow("-0") << -0.0 << "0";
        QTest::newRow("1e20") << 1e20 << "100000000000000000000";
        QTest::newRow("1/3 shortest") << 1.0 / 3.0 << "3333333333333333/10000000000000000";
    }
    void decimalRational() {
        QFETCH(double, x);
        QFETCH(QString, expected);
        QCOMPARE(text(attnlab::decimalRational(x)), expected);
    }

    void decimalRationalRefusesNonFinite_data() {
        QTest::addColumn<double>("x");
        QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN();
        QTest::newRow("+Inf") << std::numeric_limits<double>::infinity();
        QTest::newRow("-Inf") << -std::numeric_limits<double>::infinity();
    }
    void decimalRationalRefusesNonFinite() {
        QFETCH(double, x);
        const QString message = inputErrorOf([&] { attnlab::decimalRational(x); });
        QVERIFY2(!message.isNull(), "no InputError");
        QVERIFY2(message.contains("non-finite"), qPrintable(message));
    }

    void toDoubleNearest_data() {
        QTest::addColumn<QString>("q");
        QTest::addColumn<double>("expected");
        // mpq_get_d truncates toward zero; 0.1, 0.2 and -0.1 are the doubles just above |q|,
        // so truncation would give the wrong neighbour.
        QTest::newRow("1/10") << "1/10" << 0.1;
        QTest::newRow("-1/10") << "-1/10" << -0.1;
        QTest::newRow("1/5") << "1/5" << 0.2;
        QTest::newRow("1/3") << "1/3" << 1.0 / 3.0;
        QTest::newRow("2/3") << "2/3" << 2.0 / 3.0;
        QTest::newRow("7/10") << "7/10" << 0.7;
        QTest::newRow("0") << "0" << 0.0;
        QTest::newRow("big") << "123456789012345678901234567890"
                             << 123456789012345678901234567890.0;
    }
    void toDoubleNearest() {
        QFETCH(QString, q);
        QFETCH(double, expected);
        QCOMPARE(attnlab::toDouble(attnlab::parseRational(q.toStdString())), expected);
    }

    void toDoubleNearestExhaustive() {
        // For integers below 2^53 IEEE division is correctly rounded, so p/q in double is the
        // nearest double to the rational p/q.
        for (long p = -60; p <= 60; ++p)
            for (long q = 1; q <= 60; ++q) {
                Rational r(p, q);
                r.canonicalize();
                const double expected = double(p) / double(q);
                if (attnlab::toDouble(r) != expected)
                    QFAIL(qPrintable(QString("toDouble(%1/%2) = %3, nearest is %4")
                                         .arg(p)
                                         .arg(q)
                                         .arg(attnlab::toDouble(r), 0, 'g', 17)
                                         .arg(expected, 0, 'g', 17)));
            }
    }

    // Numerators and denominators up to 2^64 (the division fast path) and past it, with
    // constructed midpoints between two doubles: the result is never further from q than either
    // neighbouring double. Decimals of random doubles convert back to those doubles.
    void toDoubleNearestForWideParts() {
        auto nearest = [](const Rational& q, double d) {
            const Rational error = abs(Rational(d) - q);
            for (double side : {HUGE_VAL, -HUGE_VAL}) {
                const double neighbour = std::nextafter(d, side);
                if (std::isfinite(neighbour) && abs(Rational(neighbour) - q) < error) return false;
            }
            return true;
        };
        std::vector<Rational> cases;
        const mpz_class two64 = mpz_class(1) << 64, two53 = mpz_class(1) << 53;
        for (const mpz_class& midpoint :
             std::vector<mpz_class>{two53 + 1, two53 * 3 + 2, mpz_class(two53 + 1) << 10})
            cases.emplace_back(midpoint); // midpoints between consecutive doubles
        cases.emplace_back(two64 - 1, mpz_class(3));
        cases.emplace_back(mpz_class(1), two64 - 1);
        cases.emplace_back(two64 + 1, mpz_class(7)); // past one limb: the GMP path
        std::mt19937_64 random(11);
        for (int i = 0; i < 20000; ++i) {
            const int bits = 1 + int(random() % 64);
            const mpz_class p(static_cast<unsigned long>(random() >> (64 - bits)));
            const mpz_class q(static_cast<unsigned long>((random() >> (random() % 64)) | 1));
            cases.emplace_back(i % 2 ? mpz_class(-p) : p, q);
        }
        for (Rational& q : cases) {
            q.canonicalize();
            const double d = attnlab::toDouble(q);
            if (!nearest(q, d))
                QFAIL(qPrintable(QString("toDouble(%1) = %2 is not the nearest double")
                                     .arg(QString::fromStdString(q.get_str()))
                                     .arg(d, 0, 'g', 17)));
        }
        for (int i = 0; i < 20000; ++i) {
            const double x =
                std::ldexp(double(random() >> 11), -int(random() % 120)) * (i % 2 ? -1.0 : 1.0);
            QCOMPARE(attnlab::toDouble(attnlab::decimalRational(x)), x);
        }
    }

    void exactRefusesTranscendentals_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("needs");
        QTest::newRow("exp") << 0 << "needs exp";
        QTest::newRow("sin") << 1 << "needs sin";
        QTest::newRow("cos") << 2 << "needs cos";
        QTest::newRow("sqrt") << 3 << "needs sqrt";
        QTest::newRow("pow") << 4 << "needs a real power";
    }
    void exactRefusesTranscendentals() {
        QFETCH(int, which);
        QFETCH(QString, needs);
        using Ops = ScalarOps<Rational>;
        const Rational x(1);
        const QString message = inputErrorOf([&] {
            switch (which) {
            case 0:
                Ops::exp(x, "mixer softmax");
                break;
            case 1:
                Ops::sin(x, "mixer softmax");
                break;
            case 2:
                Ops::cos(x, "mixer softmax");
                break;
            case 3:
                Ops::sqrt(x, "mixer softmax");
                break;
            default:
                Ops::pow(x, x, "mixer softmax");
                break;
            }
        });
        QVERIFY2(!message.isNull(), "no InputError");
        QVERIFY2(message.contains("precision exact"), qPrintable(message));
        QVERIFY2(message.contains(needs), qPrintable(message));
        QVERIFY2(message.contains("mixer softmax"), qPrintable(message)); // names the caller
    }

    void floatOpsCompute() {
        QCOMPARE(ScalarOps<double>::exp(0.0, "test"), 1.0);
        QCOMPARE(ScalarOps<double>::sqrt(4.0, "test"), 2.0);
        QCOMPARE(ScalarOps<float>::fromRational(attnlab::parseRational("1/4")), 0.25f);
        QCOMPARE(text(ScalarOps<Rational>::fromDouble(0.1)), QString("1/10"));
        QVERIFY(ScalarOps<Rational>::exact);
        QVERIFY(!ScalarOps<double>::exact);
    }

    void integerPowerAndRelu() {
        QCOMPARE(text(integerPower(Rational(1, 2), 3)), QString("1/8"));
        QCOMPARE(text(integerPower(Rational(-2, 3), 2)), QString("4/9"));
        QCOMPARE(text(integerPower(Rational(5), 0)), QString("1"));
        QCOMPARE(integerPower(3.0, 4), 81.0);
        QCOMPARE(text(relu(Rational(-1, 2))), QString("0"));
        QCOMPARE(text(relu(Rational(3, 2))), QString("3/2"));
        QCOMPARE(relu(-2.0), 0.0);
        QCOMPARE(relu(2.5), 2.5);
    }

    void precisionNames_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("precision");
        QTest::newRow("float32") << "float32" << int(Precision::Float32);
        QTest::newRow("float64") << "float64" << int(Precision::Float64);
        QTest::newRow("exact") << "exact" << int(Precision::Exact);
    }
    void precisionNames() {
        QFETCH(QString, name);
        QFETCH(int, precision);
        QCOMPARE(int(parsePrecision(name.toStdString())), precision);
        QCOMPARE(QString::fromUtf8(precisionName(Precision(precision)).data()), name);
    }

    void parsePrecisionRefuses() {
        const QString message = inputErrorOf([] { parsePrecision("double"); });
        QVERIFY2(message.contains("'double'"), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestScalar)
#include "test_scalar.moc"
