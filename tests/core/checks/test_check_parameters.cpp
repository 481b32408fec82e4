// SPDX-License-Identifier: GPL-3.0-or-later
// Check parameters as the window takes them: text to JSON values (integers, lists, words) with
// bad text refused by name, and the panel's checks with the window's parameters over the
// scenario's and shift-invariance's offsets following the transform's shift.
#include "core/base/error.h"
#include "core/checks/check_registry.h"
#include "core/checks/parameter_text.h"
#include "core/explore/panel_checks.h"
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"

#include <QtTest>

using namespace attnlab;

namespace {

const CheckParameter& declared(const std::string& property, std::size_t i = 0) {
    static std::vector<CheckParameter> keep; // parameters() returns copies
    keep.push_back(findPropertyCheck(property)->parameters().at(i));
    return keep.back();
}

nlohmann::json paramsOf(const std::vector<CheckSpec>& checks, const std::string& name) {
    for (const CheckSpec& c : checks)
        if (c.name == name) return c.params;
    return nullptr;
}

} // namespace

class TestCheckParameters : public QObject {
    Q_OBJECT
private slots:
    void textBecomesTheValue_data() {
        QTest::addColumn<QString>("property");
        QTest::addColumn<int>("parameter");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("json");
        QTest::newRow("integer") << "locality" << 0 << " 4 "
                                 << "4";
        QTest::newRow("blank is auto") << "locality" << 0 << "  "
                                       << "null";
        QTest::newRow("one offset") << "shift-invariance" << 0 << "5"
                                    << "5";
        QTest::newRow("a list") << "shift-invariance" << 0 << "1, 7 5"
                                << "[1,7,5]";
        QTest::newRow("brackets") << "shift-invariance" << 0 << "[2]"
                                  << "[2]";
        QTest::newRow("a word") << "kv-cache" << 1 << "top-left"
                                << "\"top-left\"";
    }
    void textBecomesTheValue() {
        QFETCH(QString, property);
        QFETCH(int, parameter);
        QFETCH(QString, text);
        QFETCH(QString, json);
        const CheckParameter& p = declared(property.toStdString(), std::size_t(parameter));
        const nlohmann::json value = parameterValue(p, text.toStdString());
        QCOMPARE(QString::fromStdString(value.dump()), json);
        if (!value.is_null())
            QCOMPARE(parameterValue(p, parameterText(value)), value); // shown text reads back
    }

    void badTextIsRefusedByName_data() {
        QTest::addColumn<QString>("property");
        QTest::addColumn<int>("parameter");
        QTest::addColumn<QString>("text");
        QTest::newRow("not a number") << "locality" << 0 << "two";
        QTest::newRow("a list for an integer") << "locality" << 0 << "1, 2";
        QTest::newRow("a piece") << "shift-invariance" << 0 << "2, x";
        QTest::newRow("empty list") << "shift-invariance" << 0 << "[]";
        QTest::newRow("unknown word") << "kv-cache" << 1 << "middle";
    }
    void badTextIsRefusedByName() {
        QFETCH(QString, property);
        QFETCH(int, parameter);
        QFETCH(QString, text);
        const CheckParameter& p = declared(property.toStdString(), std::size_t(parameter));
        try {
            parameterValue(p, text.toStdString());
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(p.name) + ":"), e.what());
        }
    }

    void badCheckArgumentsAreRefusedByName_data() {
        QTest::addColumn<QString>("argument"); // as `check --property` takes it
        QTest::addColumn<QString>("message");
        QTest::newRow("a key twice") << "locality:radius=1,radius=2"
                                     << "--property locality:radius=1,radius=2: radius is given "
                                        "twice";
        QTest::newRow("a trailing comma") << "locality:radius=1,"
                                          << "expected key=value, got ''";
        // An empty list would check nothing and read as holding.
        QTest::newRow("no offsets")
            << "shift-invariance:offset=[]"
            << "property shift-invariance: offset: an empty list checks nothing";
        QTest::newRow("no queries") << "kv-cache:queries=[]"
                                    << "property kv-cache: queries: an empty list checks nothing";
        // Beyond a scenario's own offsets: float rounding of huge angles, or an overflowing sum.
        QTest::newRow("a huge offset")
            << "shift-invariance:offset=1000000000000000000"
            << "offset: c = 1000000000000000000 is outside -65536..65536";
        QTest::newRow("an offset beyond long")
            << "shift-invariance:offset=[1, 18446744073709551615]"
            << "offset: 18446744073709551615 is too large";
    }
    void badCheckArgumentsAreRefusedByName() {
        QFETCH(QString, argument);
        QFETCH(QString, message);
        const Scenario s = loadScenario("builtin:rope-shift");
        try {
            (void)runChecks(s, {parseCheckArgument(argument.toStdString())}, 0);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    void panelChecksTakeTheWindowsParametersAndTheShift() {
        const Scenario s = loadScenario(std::string("builtin:") + kDefaultPreset);
        Transform t;
        QVERIFY(!paramsOf(panelChecks(s, t), "shift-invariance").contains("offset"));
        t.kind = Transform::Kind::Shift;
        t.shift = 5;
        QCOMPARE(paramsOf(panelChecks(s, t), "shift-invariance").at("offset").dump(),
                 std::string("[1,7,5]"));
        t.shift = 7; // already among the defaults
        QCOMPARE(paramsOf(panelChecks(s, t), "shift-invariance").at("offset").dump(),
                 std::string("[1,7]"));
        const ChosenParameters chosen{{"shift-invariance", {{"offset", 3}}},
                                      {"locality", {{"radius", 1}}}};
        const auto checks = panelChecks(s, t, chosen);
        QCOMPARE(paramsOf(checks, "shift-invariance").dump(), std::string(R"({"offset":3})"));
        QCOMPARE(paramsOf(checks, "locality").dump(), std::string(R"({"radius":1})"));
        QCOMPARE(checks.size(), propertyChecks().size());
    }
};

QTEST_GUILESS_MAIN(TestCheckParameters)
#include "test_check_parameters.moc"
