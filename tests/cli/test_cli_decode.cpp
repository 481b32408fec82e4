// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli run --decode`: the decode step against a KV cache beside the full pass, as text,
// JSON and .npy files; bottom-right on a causal model is the full pass's last rows exactly,
// top-left is not; refusals of a bad m, alignment or mask file.
#include "cli_runner.h"
#include "core/formats/npy.h"
#include "core/spec/mask_conventions.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

using namespace attnlab;

class TestCliDecode : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(!qEnvironmentVariable("ATTNLAB_CLI").isEmpty()); }

    void bottomRightIsTheFullPassExactly() { // alibi-causal: exact, n = 5, causal
        const CliResult r = runCli({"run", "builtin:alibi-causal", "--decode", "2"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("decode step: 2 queries against a KV cache of 3 (bottom-right)"),
                 r.out.constData());
        QVERIFY(r.out.contains("layer 0 head 0 weights (2 x 5)"));
        QVERIFY(r.out.contains("largest |decode - rows 3..4 of f(X)| = 0\n"));
    }

    void topLeftIsNot() {
        const CliResult r = runCli(
            {"run", "builtin:alibi-causal", "--decode", "2", "--alignment", "top-left", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject decode = QJsonDocument::fromJson(r.out).object()["decode"].toObject();
        QCOMPARE(decode["queries"].toInt(), 2);
        QCOMPARE(decode["cache"].toInt(), 3);
        QCOMPARE(decode["alignment"].toString(), QString("top-left"));
        const QJsonArray weights = decode["layers"][0]["heads"][0]["weights"].toArray(); // 2 x 5
        QCOMPARE(weights.size(), 2);
        QCOMPARE(weights[0].toArray().size(), 5);
        QCOMPARE(weights[0].toArray()[1].toString(), QString("0")); // query 3 sees key 0 only
        QVERIFY(decode["largest_difference"].toString() != "0");
    }

    void outWritesTheDecodeStep() {
        QTemporaryDir dir;
        const CliResult r =
            runCli({"run", "builtin:causal-model", "--decode", "3", "--out", dir.path()});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(readNpy(dir.filePath("original_layers0_heads1_weights.npy").toStdString()).rows(),
                 Eigen::Index(6));
        const Eigen::MatrixXd w =
            readNpy(dir.filePath("decode_layers0_heads1_weights.npy").toStdString());
        QCOMPARE(w.rows(), Eigen::Index(3));
        QCOMPARE(w.cols(), Eigen::Index(6));
        QVERIFY(readNpy(dir.filePath("decode_difference.npy").toStdString()).cwiseAbs().maxCoeff() <
                1e-12);
    }

    void aMaskFileReplacesTheAlignedRows() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("m.npy").toStdString();
        writeNpyMask(path, rectangularCausal(2, 5, CausalAlignment::TopLeft));
        const CliResult r = runCli({"run", "builtin:alibi-causal", "--decode", "2", "--decode-mask",
                                    QString::fromStdString(path), "--json"});
        QCOMPARE(r.exitCode, 0);
        const CliResult topLeft = runCli(
            {"run", "builtin:alibi-causal", "--decode", "2", "--alignment", "top-left", "--json"});
        const auto largest = [](const CliResult& c) {
            return QJsonDocument::fromJson(c.out)
                .object()["decode"]
                .toObject()["largest_difference"]
                .toString();
        };
        QCOMPARE(largest(r), largest(topLeft));
        writeNpyMask(path, rectangularCausal(5, 5, CausalAlignment::TopLeft));
        const CliResult wrong = runCli({"run", "builtin:alibi-causal", "--decode", "2",
                                        "--decode-mask", QString::fromStdString(path)});
        QCOMPARE(wrong.exitCode, 2);
        QVERIFY2(wrong.err.contains("decode.mask: the mask is 5 x 5, the decode step needs 2 x 5"),
                 wrong.err.constData());
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("m > n") << QStringList{"--decode", "6"} << "decode.queries";
        QTest::newRow("m = 0") << QStringList{"--decode", "0"} << "--decode";
        QTest::newRow("alignment") << QStringList{"--decode", "1", "--alignment", "diagonal"}
                                   << "\"diagonal\" is not an alignment";
        QTest::newRow("no decode") << QStringList{"--alignment", "top-left"} << "go with --decode";
    }
    void refusals() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliResult r = runCli(QStringList{"run", "builtin:alibi-causal"} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    }
};

QTEST_APPLESS_MAIN(TestCliDecode)
#include "test_cli_decode.moc"
