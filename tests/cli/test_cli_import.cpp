// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli import` then `run --out` for every architecture of tests/fixtures/hf: the
// attention weights written as .npy are those transformers computed (within 1e-5, float32 and
// float64); the text form labels rows with tokens; bad checkpoints and arguments exit 2 with a
// message.
#include "cli_runner.h"

#include "core/formats/npy.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using nlohmann::json;

namespace {
const std::filesystem::path kFixtures =
    std::filesystem::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures";

Eigen::MatrixXd npyFile(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return attnlab::parseNpy(std::string(std::istreambuf_iterator<char>(in), {}));
}

QString idList(const json& ids) {
    QStringList parts;
    for (const auto& id : ids)
        parts << QString::number(id.get<long long>());
    return parts.join(',');
}
} // namespace

class TestCliImport : public QObject {
    Q_OBJECT
private slots:
    void importThenRunReproducesTransformers_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("precision");
        for (const auto& entry : std::filesystem::directory_iterator(kFixtures / "hf"))
            if (entry.is_directory())
                for (const char* precision : {"float32", "float64"})
                    QTest::newRow(qPrintable(
                        QString::fromStdString(entry.path().filename().string()) + " " + precision))
                        << QString::fromStdString(entry.path().filename().string()) << precision;
    }
    void importThenRunReproducesTransformers() {
        QFETCH(QString, name);
        QFETCH(QString, precision);
        const std::filesystem::path dir = kFixtures / "hf" / name.toStdString();
        std::ifstream in(dir / "expected.json");
        const json expected = json::parse(in);
        QTemporaryDir tmp;
        const QString scenario = tmp.filePath("s.json"), out = tmp.filePath("out");
        const CliResult imported =
            runCli({"import", QString::fromStdString(dir.string()), "--token-ids",
                    idList(expected["token_ids"]), "--precision", precision, "--out", scenario});
        QVERIFY2(imported.exitCode == 0, imported.err.constData());
        QVERIFY(imported.out.contains("wrote"));
        const CliResult ran = runCli({"run", scenario, "--out", out});
        QVERIFY2(ran.exitCode == 0, ran.err.constData());
        const json& attentions = expected["attentions_" + precision.toStdString()];
        double worst = 0;
        for (std::size_t l = 0; l < attentions.size(); ++l)
            for (std::size_t h = 0; h < attentions[l].size(); ++h) {
                const auto file = std::filesystem::path(out.toStdString()) /
                                  ("original_layers" + std::to_string(l) + "_heads" +
                                   std::to_string(h) + "_weights.npy");
                const Eigen::MatrixXd w = npyFile(file);
                for (std::size_t q = 0; q < attentions[l][h].size(); ++q)
                    for (std::size_t k = 0; k < attentions[l][h][q].size(); ++k)
                        worst = std::max(worst, std::abs(w(Eigen::Index(q), Eigen::Index(k)) -
                                                         attentions[l][h][q][k].get<double>()));
            }
        QVERIFY2(worst <= 1e-5, qPrintable(QString("attention off by %1").arg(worst)));
    }

    void textLabelsTheRows() {
        QTemporaryDir tmp;
        const auto model = std::filesystem::path(tmp.path().toStdString()) / "gpt2";
        std::filesystem::copy(kFixtures / "hf/gpt2", model);
        std::filesystem::copy_file(kFixtures / "tokenizers/gpt2/tokenizer.json",
                                   model / "tokenizer.json");
        const QString scenario = tmp.filePath("s.json");
        const CliResult imported = runCli({"import", QString::fromStdString(model.string()),
                                           "--text", "hello world", "--out", scenario});
        QVERIFY2(imported.exitCode == 0, imported.err.constData());
        const CliResult ran = runCli({"run", scenario});
        QVERIFY2(ran.exitCode == 0, ran.err.constData());
        QVERIFY2(ran.out.contains("tokens:") && ran.out.contains("'␣"),
                 ran.out.left(600).constData());
        QVERIFY(ran.out.contains("the first 16 columns")); // 32-wide hidden states, cut
    }

    void badInputExitsTwo_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("fragment");
        const QString gpt2 = QString::fromStdString((kFixtures / "hf/gpt2").string());
        QTest::newRow("no directory")
            << QStringList{"import", "/nonexistent", "--token-ids", "1", "--out", "/tmp/x.json"}
            << "config.json";
        QTest::newRow("both text and ids")
            << QStringList{"import", gpt2, "--text", "a", "--token-ids", "1", "--out", "x.json"}
            << "exactly one of --text and --token-ids";
        QTest::newRow("bad id") << QStringList{"import", gpt2,    "--token-ids",
                                               "1,x",    "--out", "x.json"}
                                << "'x' is not a token id";
        QTest::newRow("id outside")
            << QStringList{"import", gpt2, "--token-ids", "1,600", "--out", "x.json"}
            << "id 600 is not in the vocabulary (512 tokens)";
        QTest::newRow("layers") << QStringList{"import",   gpt2,  "--token-ids", "1",
                                               "--layers", "3:1", "--out",       "x.json"}
                                << "not a range of the model's 2 layers";
        QTest::newRow("no tokenizer")
            << QStringList{"import", gpt2, "--text", "hi", "--out", "x.json"}
            << "has no tokenizer.json";
    }
    void badInputExitsTwo() {
        QFETCH(QStringList, args);
        QFETCH(QString, fragment);
        const CliResult r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(fragment), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliImport)
#include "test_cli_import.moc"
