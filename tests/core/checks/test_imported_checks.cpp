// SPDX-License-Identifier: GPL-3.0-or-later
// Verdicts on imported checkpoints, one per architecture (tests/fixtures/hf, written by
// transformers): a causal LM is causal, its rows sum to 1 and it decodes against a KV cache
// (bottom-right aligned, not top-left); permutation equivariance fails
// because of its positions, says so, and shrinks to two tokens; shift invariance holds to
// rounding with relative positions (RoPE, ALiBi) and fails with GPT-2's learned ones.
#include "core/checks/check_registry.h"
#include "core/io/hf_import.h"

#include <QtTest>

using namespace attnlab;

namespace {
const std::filesystem::path kFixtures =
    std::filesystem::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/hf";

PropertyReport checkOf(const Scenario& s, const std::string& property) {
    return runChecks(s, {parseCheckArgument(property)}, 0).front();
}
} // namespace

class TestImportedChecks : public QObject {
    Q_OBJECT
private slots:
    void verdictsOfEachArchitecture_data() {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("positions"); // how the equivariance explanation names them
        QTest::addColumn<bool>("shiftInvariant");
        QTest::newRow("gpt2") << "gpt2"
                              << "absolute positional features (learned)" << false;
        for (const char* rope : {"llama", "mistral", "qwen2", "gpt_neox", "llama3-scaled"})
            QTest::newRow(rope) << rope << "relative positions (rope)" << true;
        QTest::newRow("bloom") << "bloom"
                               << "relative positions (alibi (causal))" << true;
    }

    void verdictsOfEachArchitecture() {
        QFETCH(QString, architecture);
        QFETCH(QString, positions);
        QFETCH(bool, shiftInvariant);
        ImportRequest request;
        request.directory = kFixtures / architecture.toStdString();
        request.ids = {1, 5, 9, 13, 17, 21, 25, 29};
        const Scenario s = importScenario(request);

        QCOMPARE(checkOf(s, "causality").verdict, Verdict::Holds);
        QCOMPARE(checkOf(s, "row-sums").verdict, Verdict::Holds);
        QCOMPARE(checkOf(s, "kv-cache").verdict, Verdict::Holds);
        QCOMPARE(checkOf(s, "kv-cache:alignment=top-left").verdict, Verdict::Fails);

        const PropertyReport equivariance = checkOf(s, "permutation-equivariance");
        QCOMPARE(equivariance.verdict, Verdict::Fails);
        QVERIFY2(QString::fromStdString(equivariance.explanation).contains(positions),
                 equivariance.explanation.c_str());
        QVERIFY(equivariance.shrunkWitness);
        QCOMPARE(equivariance.shrunkWitness->json().at("n").get<int>(), 2);

        const PropertyReport shift = checkOf(s, "shift-invariance");
        QCOMPARE(shift.verdict, shiftInvariant ? Verdict::Holds : Verdict::Fails);
        if (shiftInvariant) // to rounding: the float32 deviation stays well inside the bound
            QVERIFY(shift.maxDeviation.toDouble() < shift.tolerance.toDouble());
    }
};

QTEST_GUILESS_MAIN(TestImportedChecks)
#include "test_imported_checks.moc"
