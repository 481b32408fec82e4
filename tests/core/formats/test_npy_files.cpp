// SPDX-License-Identifier: GPL-3.0-or-later
// Scenarios that refer to .npy files: a mask {"kind": "file", "path": ...} and weights
// {"npy": ...}, relative to the scenario's directory. They load into cells and values, save back
// as the file reference (relative to where the scenario is saved, so a copy saved elsewhere still
// points at the file), and every bad file is refused naming the JSON path, the file and the
// problem. A fixture numpy wrote (an additive 0/-inf mask) runs through a model.
#include "core/base/error.h"
#include "core/formats/npy.h"
#include "core/io/scenario_reader.h"
#include "core/io/scenario_writer.h"
#include "core/model/model.h"
#include "core/test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>

using namespace attnlab;
using namespace attnlab::test;
namespace fs = std::filesystem;

namespace {
// A float64 scenario of n one-hot tokens whose single layer has the given JSON fields.
std::string scenarioJson(int n, const std::string& layerFields) {
    // Appended piece by piece: GCC 12 warns (-Warray-bounds, a false positive) on a literal plus
    // a temporary string.
    std::string json = R"({"format": "attnlab-scenario", "version": 1, "precision": "float64",
        "tokens": {"one_hot": {"n": )";
    json += std::to_string(n);
    json += R"(}}, "layers": [{"mixer": {"kind": "softmax"}, )";
    json += layerFields;
    json += "}]}";
    return json;
}

// `path`, with its directory created.
fs::path makeRoom(const fs::path& path) {
    fs::create_directories(path.parent_path());
    return path;
}

void writeText(const fs::path& path, const std::string& text) {
    std::ofstream(makeRoom(path), std::ios::binary) << text;
}

// The n x n causal mask.
BoolMatrix causalCells(int n) {
    BoolMatrix m(n, n);
    for (int s = 0; s < n; ++s)
        for (int t = 0; t < n; ++t)
            m(s, t) = t <= s;
    return m;
}

bool sameCells(const BoolMatrix& a, const BoolMatrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && (a == b).all();
}

// The JSON of the scenario file at `path`.
nlohmann::json fileJson(const fs::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}
} // namespace

class TestNpyFiles : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    fs::path root() const { return fs::path(dir_.path().toStdString()); }

private slots:
    void fileMaskLoadsRelativeToTheScenario() {
        writeNpyMask(makeRoom(root() / "in/masks/m.npy"), causalCells(3));
        writeText(root() / "in/s.json",
                  scenarioJson(3, R"("mask": {"kind": "file", "path": "masks/m.npy"})"));
        const Scenario s = loadScenarioFile(root() / "in/s.json");
        const MaskSpec& mask = s.model.layers[0].mask;
        QCOMPARE(mask.kind, MaskSpec::Kind::Custom);
        QVERIFY(sameCells(mask.cells, causalCells(3)));
        QCOMPARE(mask.file, (root() / "in/masks/m.npy").string());
        QCOMPARE(mask.describe(), std::string("file(m.npy)"));
    }

    void savingKeepsPointingAtTheFile() {
        writeNpyMask(makeRoom(root() / "a/m.npy"), causalCells(2));
        Matrix<double> w(2, 2);
        w << 0.5, -2, 1e-3, 3;
        writeNpy(makeRoom(root() / "a/weights/wq.npy"), w);
        writeText(root() / "a/s.json", scenarioJson(2, R"("mask": {"kind": "file", "path": "m.npy"},
                                     "wq": {"npy": "weights/wq.npy"})"));
        const Scenario s = loadScenarioFile(root() / "a/s.json");
        QCOMPARE(toDouble(s.model.layers[0].wq.values(1, 0)), 1e-3); // the binary value exactly

        saveScenarioFile(s, root() / "a/copy.json"); // the same directory
        nlohmann::json layer = fileJson(root() / "a/copy.json")["layers"][0];
        QCOMPARE(layer["mask"].dump(), std::string(R"({"kind":"file","path":"m.npy"})"));
        QCOMPARE(layer["wq"].dump(), std::string(R"({"npy":"weights/wq.npy"})"));

        saveScenarioFile(s, makeRoom(root() / "b/deeper/moved.json")); // elsewhere
        layer = fileJson(root() / "b/deeper/moved.json")["layers"][0];
        QCOMPARE(layer["mask"]["path"].get<std::string>(), std::string("../../a/m.npy"));
        QCOMPARE(layer["wq"]["npy"].get<std::string>(), std::string("../../a/weights/wq.npy"));
        QVERIFY(loadScenarioFile(root() / "b/deeper/moved.json") == s);

        // Without a directory the text names the files absolutely, and reads back anywhere.
        QVERIFY(scenarioText(s).find((root() / "a/m.npy").string()) != std::string::npos);
        QVERIFY(parseScenario(scenarioText(s)) == s);
    }

    void paintedCellsAreNoLongerTheFile() {
        const MaskSpec file = MaskSpec::fromFile(causalCells(2), "/x/m.npy");
        QVERIFY(!(file == MaskSpec::custom(causalCells(2))));
        const MatrixSpec npy = MatrixSpec::fromNpy(rat("1 0; 0 1"), "/x/w.npy");
        QVERIFY(!(npy == MatrixSpec::given(rat("1 0; 0 1"))));
    }

    void badFilesAreRefused_data() {
        QTest::addColumn<QString>("layerFields");
        QTest::addColumn<QStringList>("fragments");
        QTest::newRow("missing mask file")
            << R"("mask": {"kind": "file", "path": "nope.npy"})"
            << QStringList{"layers[0].mask.path: ", "nope.npy: no such file"};
        QTest::newRow("mask of another size")
            << R"("mask": {"kind": "file", "path": "m3.npy"})"
            << QStringList{"layers[0].mask: path: ", "m3.npy holds a 3 x 3 mask, expected 2 x 2",
                           "n = 2 tokens"};
        QTest::newRow("mask not square") << R"("mask": {"kind": "file", "path": "m2x3.npy"})"
                                         << QStringList{"m2x3.npy: the mask is 2 x 3", "square"};
        QTest::newRow("mask with a 2") << R"("mask": {"kind": "file", "path": "twos.npy"})"
                                       << QStringList{"twos.npy: .npy mask: entry (0, 0) is 2"};
        QTest::newRow("not a .npy") << R"("mask": {"kind": "file", "path": "text.npy"})"
                                    << QStringList{"text.npy: not a .npy file"};
        QTest::newRow("truncated mask") << R"("mask": {"kind": "file", "path": "cut.npy"})"
                                        << QStringList{"cut.npy: .npy: the data is truncated"};
        QTest::newRow("empty path") << R"("mask": {"kind": "file", "path": ""})"
                                    << QStringList{"layers[0].mask.path: must name a file"};
        QTest::newRow("extra key") << R"("mask": {"kind": "file", "path": "m3.npy", "n": 3})"
                                   << QStringList{"layers[0].mask.n: unknown key"};
        QTest::newRow("missing weights")
            << R"("wq": {"npy": "none.npy"})"
            << QStringList{"layers[0].wq.npy: ", "none.npy: no such file"};
        QTest::newRow("weights with a NaN")
            << R"("wq": {"npy": "nan.npy"})" << QStringList{"nan.npy: .npy: entry (0, 1)"};
        QTest::newRow("weights of the wrong shape")
            << R"("wq": {"npy": "m3.npy"})" << QStringList{"layers[0]", "3 x 3"};
        QTest::newRow("npy and random together")
            << R"("wq": {"npy": "m3.npy", "random": {"seed": 1}})"
            << QStringList{"layers[0].wq.random: unknown key"};
    }
    void badFilesAreRefused() {
        QFETCH(QString, layerFields);
        QFETCH(QStringList, fragments);
        const fs::path dir = root() / "bad";
        fs::create_directories(dir);
        writeNpyMask(dir / "m3.npy", causalCells(3));
        writeNpyMask(dir / "m2x3.npy", BoolMatrix::Constant(2, 3, true));
        writeNpy(dir / "twos.npy", Eigen::MatrixXd::Constant(2, 2, 2.0));
        writeText(dir / "text.npy", "not numpy at all");
        writeText(dir / "cut.npy", npyMaskBytes(causalCells(2)).substr(0, 129));
        std::string nan = npyBytes(Eigen::MatrixXd::Zero(2, 2));
        const double notANumber = std::nan("");
        std::memcpy(nan.data() + 128 + 8, &notANumber, 8);
        writeText(dir / "nan.npy", nan);
        writeText(dir / "s.json", scenarioJson(2, layerFields.toStdString()));
        const QString message = inputErrorOf([&] { loadScenarioFile(dir / "s.json"); });
        QVERIFY2(!message.isNull(), "accepted");
        for (const QString& fragment : fragments)
            QVERIFY2(message.contains(fragment), qPrintable(message));
    }

    // transformers' kind of mask, as numpy saved it: the masked keys get no attention weight.
    void additiveFixtureMasksAModel() {
        const fs::path fixtures = fs::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/masks";
        const Scenario s = parseScenario(
            scenarioJson(6, R"("mask": {"kind": "file", "path": "causal_padding_additive.npy"})"),
            fixtures);
        const Trace<double> t =
            Model<double>(s.model, s.d()).forward(s.tokens.materialize<double>());
        const Matrix<double>& weights = t.layers[0].heads[0].weights;
        const BoolMatrix mask = buildMask(s.model.layers[0].mask, 6);
        for (int q = 0; q < 6; ++q)
            for (int k = 0; k < 6; ++k)
                QVERIFY2((weights(q, k) > 0) == mask(q, k) && mask(q, k) == (k <= q && k < 4),
                         qPrintable(QString("query %1, key %2").arg(q).arg(k)));
    }
};

QTEST_GUILESS_MAIN(TestNpyFiles)
#include "test_npy_files.moc"
