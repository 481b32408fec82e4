// SPDX-License-Identifier: GPL-3.0-or-later
// Reports in words (core/checks/report_prose.h): the default scenario's equivariance witness read
// as the maps show it, a perturbation's as the output row it moved, what was checked as a
// sentence, and long values summarised rather than written out.
#include "core/checks/check_registry.h"
#include "core/checks/report_prose.h"
#include "core/io/scenario_reader.h"

#include <QTest>

using namespace attnlab;

namespace {

/// `property`'s report on `preset`, with the parameters the scenario gives it.
PropertyReport checkOf(const std::string& preset, const std::string& property) {
    const Scenario s = loadScenario("builtin:" + preset);
    CheckSpec spec = parseCheckArgument(property);
    for (const CheckSpec& own : s.checks)
        if (own.name == property) spec = own;
    return runChecks(s, {spec}, 0).front();
}

} // namespace

class TestReportProse : public QObject {
    Q_OBJECT
private slots:
    void aPermutationWitnessNamesTheCellOfEachSide() {
        const ReportProse prose =
            describeReport(checkOf("positional-counterexample", "permutation-equivariance"));
        QCOMPARE(QString::fromStdString(prose.witness),
                 QString("σ = (0 1): row 0 of f(P X) is 1 in column 0, while row 1 of f(X) "
                         "(row 0 of P f(X)) is 14/9."));
        QCOMPARE(QString::fromStdString(prose.checked),
                 QString("1 permutation tried of 2 planned (every permutation there is), the "
                         "scenario's σ among them; seed 0."));
        QVERIFY(prose.table.empty()); // the sentence says every value
    }

    void aPerturbationWitnessNamesTheRowThatMoved() {
        const ReportProse prose = describeReport(checkOf("window-stray-cell", "locality"));
        QCOMPARE(QString::fromStdString(prose.witness),
                 QString("perturbing input token 10 moved output row 3 (distance 7) in column 0: "
                         "93/272 became 12930339/53507492."));
        QVERIFY(prose.checked.find("claimed radius 2") != std::string::npos);
    }

    void twoComparedValuesAreASentence() {
        PropertyReport r;
        r.witness = Witness({WitnessCell::Map::Weights, 0, 1, 5, 3}, CellKeys::RowColumn)
                        .with("decode", 0.5)
                        .with("full_pass", 0.25)
                        .with("queries", 2);
        const ReportProse prose = describeReport(r);
        QCOMPARE(QString::fromStdString(prose.witness),
                 QString("At row 5, column 3 (layer 0 head 1): decode step's value 0.5 against "
                         "full pass's value 0.25."));
        QCOMPARE(prose.table.size(), std::size_t(1)); // queries
    }

    void otherValuesAreLabelledRows() {
        PropertyReport r;
        r.witness = Witness().with("decode", 0.5).with("queries", 3).with("alignment", "top-left");
        const ReportProse prose = describeReport(r);
        QVERIFY(prose.witness.empty());
        QCOMPARE(prose.table.size(), std::size_t(3));
        QCOMPARE(QString::fromStdString(prose.table.front().first),
                 QString("causal mask alignment"));
        QCOMPARE(QString::fromStdString(prose.table.front().second), QString("top-left"));
    }

    void longValuesAreSummarised() {
        std::vector<int> reversal(8192);
        std::string cycles;
        for (int i = 0; i < 8192; ++i) {
            reversal[std::size_t(i)] = 8191 - i;
            if (i < 4096)
                cycles.append("(")
                    .append(std::to_string(i))
                    .append(" ")
                    .append(std::to_string(8191 - i))
                    .append(")");
        }
        const std::string list = readableValue(reversal);
        QCOMPARE(QString::fromStdString(list),
                 QString("[8191, 8190, 8189, 8188, …, 1, 0] (8,192 entries)"));
        PropertyReport r;
        r.witness = Witness()
                        .with("cycles", cycles)
                        .with("permutation", reversal)
                        .with("row", 0)
                        .with("column", 0)
                        .with("transformed_then_model", 1)
                        .with("model_then_transformed", 2);
        const ReportProse prose = describeReport(r);
        QVERIFY2(prose.witness.size() < 200, prose.witness.c_str());
        QVERIFY(prose.witness.find("(8,192 tokens moved)") != std::string::npos);
        QVERIFY(prose.witness.find("row 8191 of f(X)") != std::string::npos);
    }
};

QTEST_MAIN(TestReportProse)
#include "test_report_prose.moc"
