// SPDX-License-Identifier: GPL-3.0-or-later
// The registry is whole (core/checks/property_unit.h): every property has a name of its own, a
// display name, a section of docs/properties.md and a subsection of docs/user-guide.md that
// exist, in the order of properties.md's sections, and a comparison that names it.
#include "core/checks/check_registry.h"
#include "core/io/scenario_reader.h"

#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace attnlab;

namespace {

/// docs/<name>'s lines.
QStringList documentLines(const QString& name) {
    QFile file(QStringLiteral(ATTNLAB_SOURCE_DIR) + "/docs/" + name);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll()).split('\n');
}

/// The numbers of properties.md's sections under "2. Properties", in order ("2.1", "2.2", ...).
QStringList propertySections() {
    static const QRegularExpression heading("^### (2\\.\\d+) ");
    QStringList sections;
    for (const QString& line : documentLines("properties.md"))
        if (const auto match = heading.match(line); match.hasMatch()) sections << match.captured(1);
    return sections;
}

/// The headings of user-guide.md's subsections under "The properties, one by one".
QStringList guideHeadings() {
    QStringList headings;
    bool inside = false;
    for (const QString& line : documentLines("user-guide.md")) {
        if (line.startsWith("## "))
            inside = line == "## The properties, one by one";
        else if (inside && line.startsWith("### "))
            headings << line.mid(4).trimmed();
    }
    return headings;
}

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

class TestPropertyUnits : public QObject {
    Q_OBJECT
private slots:
    void everyUnitHasANameOfItsOwnAndADisplayName() {
        QSet<QString> names;
        for (const PropertyUnit& unit : propertyUnits()) {
            QVERIFY(unit.check);
            const QString name = text(unit.name());
            QVERIFY2(!name.isEmpty(), "a unit without a name");
            QVERIFY2(!names.contains(name), qPrintable(name + " is registered twice"));
            names << name;
            QVERIFY2(!unit.displayName.empty(), qPrintable(name + " has no display name"));
            QCOMPARE(findPropertyUnit(unit.name()), &unit);
            QCOMPARE(findPropertyCheck(unit.name()), unit.check.get());
            QCOMPARE(propertyDisplayName(unit.name()), unit.displayName);
        }
        QCOMPARE(propertyChecks().size(), propertyUnits().size());
        QCOMPARE(findPropertyUnit("no-such-property"), nullptr);
        QCOMPARE(propertyDisplayName("no-such-property"), std::string("no-such-property"));
    }

    void theUnitsFollowPropertiesMdsSections() {
        const QStringList sections = propertySections();
        QVERIFY2(!sections.isEmpty(), "docs/properties.md has no section 2.x");
        QStringList declared;
        for (const PropertyUnit& unit : propertyUnits()) {
            declared << text(unit.docs.section);
            QVERIFY2(sections.contains(text(unit.docs.section)),
                     qPrintable(text(unit.name()) + ": properties.md has no section " +
                                text(unit.docs.section)));
            QCOMPARE(propertySection(unit.name()), unit.docs.section);
        }
        // Then the properties only a black box is checked for (the probe's).
        for (const BlackBoxProperty* property : blackBoxProperties())
            if (!findPropertyUnit(property->name())) declared << text(property->section());
        // One property per section, in the order of the document (the command line's order).
        QCOMPARE(declared, sections);
    }

    void everyUnitHasItsSubsectionInTheUserGuide() {
        const QStringList headings = guideHeadings();
        QVERIFY2(!headings.isEmpty(), "docs/user-guide.md has no \"The properties, one by one\"");
        for (const PropertyUnit& unit : propertyUnits())
            QVERIFY2(headings.contains(text(unit.docs.guideHeading)),
                     qPrintable(text(unit.name()) + ": the user guide has no heading \"" +
                                text(unit.docs.guideHeading) + "\""));
    }

    void everyUnitHasAComparisonThatNamesIt() {
        const Scenario s = loadScenario("builtin:positional-counterexample");
        for (const PropertyUnit& unit : propertyUnits()) {
            QVERIFY2(unit.comparison, qPrintable(text(unit.name()) + " has no comparison"));
            const PropertyComparison c =
                unit.comparison({s, nullptr, unit.name(), unit.displayName});
            QVERIFY2(c.summary.starts_with(unit.displayName + ": "),
                     qPrintable(text(unit.name()) + ": " + text(c.summary)));
        }
    }
};

QTEST_GUILESS_MAIN(TestPropertyUnits)
#include "test_property_units.moc"
