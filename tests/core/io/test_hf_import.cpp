// SPDX-License-Identifier: GPL-3.0-or-later
// Imported Hugging Face checkpoints against the peer: for every architecture, the attention
// probabilities and final hidden states AttnLab computes from a checkpoint that transformers
// wrote are those transformers computed (tests/fixtures/hf, made by
// scripts/hf-fixtures/make_checkpoint_fixtures.py), in float32 and float64; scenarios that
// refer to a checkpoint round-trip; text goes through the checkpoint's tokenizer; a bad
// checkpoint is refused with a message naming it.
#include "core/base/error.h"
#include "core/io/hf_import.h"
#include "core/io/scenario_reader.h"
#include "core/io/scenario_writer.h"
#include "core/model/model.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace attnlab;
using nlohmann::json;

namespace {
const std::filesystem::path kFixtures =
    std::filesystem::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures";

json readJson(const std::filesystem::path& file) {
    std::ifstream in(file);
    return json::parse(in);
}

// The largest |a - b| over every layer, head and entry of the attention maps.
template <class T>
double attentionError(const Trace<T>& trace, const json& expected) {
    double worst = 0;
    for (std::size_t l = 0; l < expected.size(); ++l)
        for (std::size_t h = 0; h < expected[l].size(); ++h) {
            const Matrix<T>& w = trace.layers.at(l).heads.at(h).weights;
            for (std::size_t q = 0; q < expected[l][h].size(); ++q)
                for (std::size_t k = 0; k < expected[l][h][q].size(); ++k)
                    worst = std::max(worst, std::abs(double(w(Eigen::Index(q), Eigen::Index(k))) -
                                                     expected[l][h][q][k].get<double>()));
        }
    return worst;
}

template <class T>
Trace<T> forwardOf(const Scenario& s) {
    return Model<T>(s.model, s.d()).forward(s.tokens.materialize<T>());
}

QString inputErrorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

// A copy of fixture `name` in `dir`, optionally with a file replaced.
std::filesystem::path copyOf(const QTemporaryDir& dir, const std::string& name) {
    const std::filesystem::path to = std::filesystem::path(dir.path().toStdString()) / name;
    std::filesystem::copy(kFixtures / "hf" / name, to, std::filesystem::copy_options::recursive);
    return to;
}
} // namespace

class TestHfImport : public QObject {
    Q_OBJECT
private slots:
    void attentionMatchesTransformers_data() {
        QTest::addColumn<QString>("name");
        for (const auto& entry : std::filesystem::directory_iterator(kFixtures / "hf"))
            if (entry.is_directory())
                QTest::newRow(entry.path().filename().c_str())
                    << QString::fromStdString(entry.path().filename().string());
    }
    void attentionMatchesTransformers() {
        QFETCH(QString, name);
        const std::filesystem::path dir = kFixtures / "hf" / name.toStdString();
        const json expected = readJson(dir / "expected.json");
        ImportRequest request{dir, std::nullopt,
                              expected["token_ids"].get<std::vector<long long>>()};
        request.precision = Precision::Float64;
        const Scenario s = importScenario(request);
        QCOMPARE(int(s.model.layers.size()), int(expected["attentions_float64"].size()));
        const Trace<double> t64 = forwardOf<double>(s);
        const double e64 = attentionError(t64, expected["attentions_float64"]);
        QVERIFY2(e64 <= 1e-5, qPrintable(QString("float64 attention off by %1").arg(e64)));
        const double e32 = attentionError(forwardOf<float>(s), expected["attentions_float32"]);
        QVERIFY2(e32 <= 1e-5, qPrintable(QString("float32 attention off by %1").arg(e32)));
        // The final hidden states (after the final norm) as well.
        const json& hidden = expected["last_hidden_state_float64"];
        double worst = 0;
        for (std::size_t i = 0; i < hidden.size(); ++i)
            for (std::size_t j = 0; j < hidden[i].size(); ++j)
                worst = std::max(worst, std::abs(t64.output(Eigen::Index(i), Eigen::Index(j)) -
                                                 hidden[i][j].get<double>()));
        QVERIFY2(worst <= 1e-4, qPrintable(QString("hidden state off by %1").arg(worst)));
    }

    void scenarioRefersToTheCheckpointAndRoundTrips() {
        QTemporaryDir dir;
        const std::filesystem::path model = copyOf(dir, "llama");
        ImportRequest request{model, std::nullopt, {5, 6, 7, 8}, 1, 2};
        const Scenario s = importScenario(request);
        QCOMPARE(int(s.model.layers.size()), 1);
        const std::filesystem::path file =
            std::filesystem::path(dir.path().toStdString()) / "runs" / "s.json";
        std::filesystem::create_directory(file.parent_path());
        saveScenarioFile(s, file);
        const json written = readJson(file);
        QCOMPARE(written["checkpoint"]["path"].get<std::string>(), std::string("../llama"));
        QCOMPARE(written["checkpoint"]["layers"].get<std::string>(), std::string("1:2"));
        QVERIFY(!written.contains("layers"));
        const Scenario loaded = loadScenarioFile(file);
        QVERIFY(loaded == s);
        QVERIFY(forwardOf<double>(loaded).output == forwardOf<double>(s).output);
        // A mask given to every layer is kept as the checkpoint's mask override...
        Scenario masked = s;
        masked.model.layers[0].mask = MaskSpec::causalWindow(1);
        saveScenarioFile(masked, file);
        QCOMPARE(readJson(file)["checkpoint"]["mask"]["kind"].get<std::string>(),
                 std::string("causal_window"));
        QVERIFY(loadScenarioFile(file) == masked);
        // ...other edits cannot be kept by a reference to the checkpoint: saving refuses them
        // and leaves the file as it was.
        Scenario edited = s;
        edited.model.layers[0].heads = 2;
        const QString message = inputErrorOf([&] { saveScenarioFile(edited, file); });
        QVERIFY2(message.contains("layers[0]") && message.contains("reference to its checkpoint"),
                 qPrintable(message));
        QVERIFY(loadScenarioFile(file) == masked);
    }

    void textGoesThroughTheTokenizer() {
        QTemporaryDir dir;
        const std::filesystem::path model = copyOf(dir, "gpt2");
        std::filesystem::copy_file(kFixtures / "tokenizers/gpt2/tokenizer.json",
                                   model / "tokenizer.json");
        const json cases = readJson(kFixtures / "tokenizers/gpt2/expected.json");
        const json& sample = cases["cases"][5]; // "  hello  world  "
        const std::string text = sample["text"];
        ImportRequest request{model, text, {}};
        const Scenario s = importScenario(request);
        QVERIFY(s.model.checkpoint->tokenizer);
        QCOMPARE(s.tokens.ids, sample["ids"].get<std::vector<long long>>()); // as tokenizers has it
        QCOMPARE(s.tokens.ids.size(), s.tokens.labels.size());
        QCOMPARE(s.tokens.labels.front(), std::string("␣")); // a space token, drawn visibly
        // A file may give the text instead of the ids.
        const auto file = std::filesystem::path(dir.path().toStdString()) / "t.json";
        const json doc = {{"format", "attnlab-scenario"},
                          {"version", 1},
                          {"checkpoint", {{"path", "gpt2"}}},
                          {"tokens", {{"text", text}}}};
        std::ofstream(file) << doc.dump();
        QCOMPARE(loadScenarioFile(file).tokens.ids, s.tokens.ids);
        // Text without a tokenizer is refused, naming what to do instead.
        const QString message = inputErrorOf([&] {
            importScenario(ImportRequest{kFixtures / "hf/llama", std::string("hi"), {}});
        });
        QVERIFY2(message.contains("no tokenizer.json") && message.contains("token ids"),
                 qPrintable(message));
    }

    void badCheckpointsAreRefused_data() {
        QTest::addColumn<QString>("breakage");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("no config") << "rm config.json"
                                   << "config.json";
        QTest::newRow("unsupported architecture")
            << "config bert"
            << "supported: gpt2, llama, mistral, qwen2, gpt_neox, bloom";
        QTest::newRow("truncated weights") << "truncate"
                                           << "model.safetensors";
        QTest::newRow("layer range") << "layers 1:5"
                                     << "not a range of the model's 2 layers";
        QTest::newRow("id outside vocabulary") << "id 512"
                                               << "id 512 is not in the vocabulary";
    }
    void badCheckpointsAreRefused() {
        QFETCH(QString, breakage);
        QFETCH(QString, fragment);
        QTemporaryDir dir;
        const std::filesystem::path model = copyOf(dir, "gpt2");
        ImportRequest request{model, std::nullopt, {1, 2, 3}};
        if (breakage == "rm config.json") std::filesystem::remove(model / "config.json");
        if (breakage == "config bert") {
            json config = readJson(model / "config.json");
            config["model_type"] = "bert";
            std::ofstream(model / "config.json") << config.dump();
        }
        if (breakage == "truncate")
            std::filesystem::resize_file(model / "model.safetensors",
                                         std::filesystem::file_size(model / "model.safetensors") /
                                             2);
        if (breakage == "layers 1:5") request.endLayer = 5, request.firstLayer = 1;
        if (breakage == "id 512") request.ids = {1, 512};
        const QString message = inputErrorOf([&] { importScenario(request); });
        QVERIFY2(message.contains(fragment), qPrintable("message was: " + message));
    }

    void aScenariosIdOutsideTheVocabularyIsNamedOnce() {
        QTemporaryDir dir;
        const std::filesystem::path model = copyOf(dir, "gpt2");
        const json doc = {{"format", "attnlab-scenario"},
                          {"version", 1},
                          {"precision", "float32"},
                          {"checkpoint", {{"path", model.string()}}},
                          {"tokens", {{"ids", {1, 2, 512}}}}};
        const QString message = inputErrorOf([&] { parseScenario(doc.dump()); });
        QCOMPARE(message, QString("tokens: id 512 is not in the vocabulary (512 tokens)"));
    }
};

QTEST_GUILESS_MAIN(TestHfImport)
#include "test_hf_import.moc"
