// SPDX-License-Identifier: GPL-3.0-or-later
// The help window through real widgets: the shipped documents and their contents, opening a
// heading by its slug, links between documents, back and forward, find, F1 and the Help menu,
// every docs/ reference in the presets' notes leading to a heading that exists, and every
// property's subsections of the guide and of the mathematics, linked from the notes and the verdict
// details.
#include "ui/editors/model_editor.h"
#include "ui/editors/tokens_editor.h"
#include "ui/help/doc_links.h"
#include "ui/help/help_window.h"
#include "ui/help/property_guide.h"
#include "ui/mask/mask_editor.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"
#include "ui_support.h"

#include "core/checks/check_registry.h"
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"

#include <QAction>
#include <QComboBox>
#include <QLineEdit>
#include <QMenuBar>
#include <QRegularExpression>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTreeWidget>

using namespace attnlab::ui;

namespace {

/// The first link in `html` whose address starts with `prefix`, or an invalid URL.
QUrl linkTo(const QString& html, const QString& prefix) {
    const QRegularExpression href("href=\"(" + QRegularExpression::escape(prefix) + "[^\"]*)\"");
    const auto match = href.match(html);
    return match.hasMatch() ? QUrl(match.captured(1)) : QUrl();
}

} // namespace

class TestUiHelp : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void slugsAreGithubs_data() {
        QTest::addColumn<QString>("heading");
        QTest::addColumn<QString>("slug");
        QTest::newRow("numbered") << "2.1 Permutation equivariance"
                                  << "21-permutation-equivariance";
        QTest::newRow("code and punctuation")
            << "1.2 State-space (linear-recurrence) mixer `ssm(a)`"
            << "12-state-space-linear-recurrence-mixer-ssma";
        QTest::newRow("underscore kept") << "The causal_window mask"
                                         << "the-causal_window-mask";
    }
    void slugsAreGithubs() {
        QFETCH(QString, heading);
        QFETCH(QString, slug);
        QCOMPARE(headingSlug(heading), slug);
    }

    void referencesInTextBecomeLinks() {
        const QString html = linkDocReferences("See docs/cli.md#exit-status. And docs/x.md.");
        QVERIFY(
            html.contains("<a href=\"qrc:/docs/cli.md#exit-status\">docs/cli.md#exit-status</a>."));
        QVERIFY(html.contains("<a href=\"qrc:/docs/x.md\">docs/x.md</a>."));
        QCOMPARE(linkDocReferences("no reference here"), QString("no reference here"));
        const QString titled =
            linkDocReferences("See docs/properties.md#24-causality.", &HelpWindow::headingTitle);
        QVERIFY2(titled.contains(">2.4 Causality</a>."), qPrintable(titled));
    }

    void everyDocumentIsShippedWithItsContents() {
        HelpWindow help;
        QCOMPARE(help.contents()->topLevelItemCount(), 4);
        for (const char* doc : {"user-guide.md", "properties.md", "scenario-format.md", "cli.md"})
            QVERIFY2(HelpWindow::hasTarget(doc), doc);
        QVERIFY(!HelpWindow::hasTarget("nonexistent.md"));
        QVERIFY(!HelpWindow::hasTarget("properties.md#no-such-heading"));
        for (int i = 0; i < help.contents()->topLevelItemCount(); ++i)
            QVERIFY(help.contents()->topLevelItem(i)->childCount() > 0);
    }

    void aHeadingOpensScrolledToIt() {
        HelpWindow help;
        help.resize(900, 600);
        help.show();
        QVERIFY(help.open("properties.md"));
        QCOMPARE(help.browser()->verticalScrollBar()->value(), 0);
        // The last section of the mathematics, far down the page.
        QVERIFY(help.contents()->topLevelItemCount() > 1);
        QTreeWidgetItem* doc = help.contents()->topLevelItem(1);
        QVERIFY(doc->childCount() > 0);
        const QString last = doc->child(doc->childCount() - 1)->data(0, Qt::UserRole).toString();
        QVERIFY(help.open(last));
        QCOMPARE(help.currentDocument(), QString("properties.md"));
        QCOMPARE(help.currentHeading(), last.section('#', 1));
        QVERIFY(help.browser()->verticalScrollBar()->value() > 0);
        QVERIFY(help.browser()->textCursor().block().text().size() > 0);
        QVERIFY(!help.open("properties.md#no-such-heading")); // refused, nothing changes
        QCOMPARE(help.currentHeading(), last.section('#', 1));
    }

    void linksBackAndForward() {
        HelpWindow help;
        help.show();
        QVERIFY(help.open("user-guide.md"));
        emit help.browser()->anchorClicked(QUrl("cli.md"));
        QCOMPARE(help.currentDocument(), QString("cli.md"));
        const QList<QAction*> actions = help.findChildren<QAction*>();
        auto named = [&](const QString& text) {
            for (QAction* a : actions)
                if (a->text() == text) return a;
            return static_cast<QAction*>(nullptr);
        };
        QAction* back = named("Back");
        QVERIFY(back && back->isEnabled());
        back->trigger();
        QCOMPARE(help.currentDocument(), QString("user-guide.md"));
        named("Forward")->trigger();
        QCOMPARE(help.currentDocument(), QString("cli.md"));
    }

    void findSelectsTheText() {
        HelpWindow help;
        help.show();
        QVERIFY(help.open("cli.md"));
        auto* find = help.findChild<QLineEdit*>();
        QVERIFY(find);
        find->setText("exit status");
        QTest::keyClick(find, Qt::Key_Return);
        QCOMPARE(help.browser()->textCursor().selectedText().toLower(), QString("exit status"));
    }

    void f1OpensTheGuideFromTheWindow() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QTest::keyClick(&w, Qt::Key_F1);
        auto* help = w.findChild<HelpWindow*>();
        QVERIFY(help && help->isVisible());
        QCOMPARE(help->currentDocument(), QString("user-guide.md"));
    }

    void f1OnAPanelOpensItsSection() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        const QString mask =
            w.guideSectionFor(w.modelEditor()->maskEditor()->findChild<QWidget*>());
        QCOMPARE(mask, QString("user-guide.md#the-mask-editor"));
        for (const QString& target :
             {mask, w.guideSectionFor(w.tokensEditor()), w.guideSectionFor(w.views()->layerBox()),
              w.guideSectionFor(w.properties()->tree())}) {
            QVERIFY2(target.contains('#') && HelpWindow::hasTarget(target), qPrintable(target));
        }
        QCOMPARE(w.guideSectionFor(nullptr), QString("user-guide.md"));
        w.properties()->tree()->setFocus();
        QTest::keyClick(w.properties()->tree(), Qt::Key_F1);
        auto* help = w.findChild<HelpWindow*>();
        QVERIFY(help && help->isVisible());
        QCOMPARE(help->currentHeading(), QString("right-the-verdicts"));
    }

    void everyPresetsNotesLinkToAHeading() {
        static const QRegularExpression reference(R"(docs/[A-Za-z0-9_-]+\.md(#[A-Za-z0-9_-]+)?)");
        for (const attnlab::PresetInfo& p : attnlab::builtinPresets()) {
            const QString notes =
                QString::fromStdString(attnlab::loadScenario("builtin:" + p.name).notes);
            const auto match = reference.match(notes);
            QVERIFY2(match.hasMatch(), qPrintable(QString::fromStdString(p.name) + ": no link"));
            for (auto it = reference.globalMatch(notes); it.hasNext();) {
                const QString target = it.next().captured();
                QVERIFY2(HelpWindow::hasTarget(target), qPrintable(target));
            }
        }
    }

    void everyPropertyHasASectionAndThePanelLinksToIt() {
        for (const auto& check : attnlab::propertyChecks()) {
            const QString name = QString::fromStdString(check->name());
            QVERIFY2(HelpWindow::hasTarget(mathematicsTarget(name)), qPrintable(name));
        }
        QCOMPARE(mathematicsTarget("no-such-property"), QString());
        QCOMPARE(HelpWindow::sectionTarget("properties.md", "9.99"), QString());
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.properties()->select("permutation-equivariance");
        auto* details = w.properties()->findChild<QTextBrowser*>();
        const QUrl link = linkTo(details->toHtml(), "qrc:/docs/properties.md#21-");
        QVERIFY(link.isValid());
        emit details->anchorClicked(link);
        auto* help = w.findChild<HelpWindow*>();
        QVERIFY(help && help->isVisible());
        QVERIFY(help->currentHeading().startsWith("21-permutation-equivariance"));
    }

    void everyPropertyHasAGuideSubsection() {
        for (const auto& check : attnlab::propertyChecks()) {
            const QString name = QString::fromStdString(check->name());
            const QString target = guideTarget(name);
            QVERIFY2(target.startsWith("user-guide.md#") && HelpWindow::hasTarget(target),
                     qPrintable(name));
            QCOMPARE(HelpWindow::headingTitle(target), name); // the heading is the name
        }
        QCOMPARE(guideTarget("no-such-property"), QString());
        QVERIFY(!HelpWindow::hasTarget("user-guide.md#localty")); // a misspelt anchor is no target
    }

    void everyPresetsNotesLinkToTheGuideOnItsProperty() {
        static const QRegularExpression guide(R"(docs/(user-guide\.md#[A-Za-z0-9_-]+))");
        static const QRegularExpression maths(R"(docs/(properties\.md#[A-Za-z0-9_-]+))");
        for (const attnlab::PresetInfo& p : attnlab::builtinPresets()) {
            const QString name = QString::fromStdString(p.name);
            const QString notes =
                QString::fromStdString(attnlab::loadScenario("builtin:" + p.name).notes);
            const auto g = guide.match(notes), m = maths.match(notes);
            QVERIFY2(g.hasMatch() && m.hasMatch(), qPrintable(name + ": " + notes));
            QVERIFY2(g.capturedStart() < m.capturedStart(), qPrintable(name)); // guide first
            // The property whose mathematics the notes link to: the guide link is its subsection.
            QString property;
            for (const auto& check : attnlab::propertyChecks())
                if (mathematicsTarget(QString::fromStdString(check->name())) == m.captured(1))
                    property = QString::fromStdString(check->name());
            QVERIFY2(!property.isEmpty(), qPrintable(name + ": " + m.captured(1)));
            QCOMPARE(g.captured(1), guideTarget(property));
        }
    }

    void theDetailsLinkToTheGuide() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.properties()->select("locality");
        auto* details = w.properties()->findChild<QTextBrowser*>();
        const QUrl link = linkTo(details->toHtml(), "qrc:/docs/user-guide.md#");
        QVERIFY2(link.isValid(), qPrintable(details->toHtml()));
        QCOMPARE(docTarget(link), guideTarget("locality"));
        emit details->anchorClicked(link);
        auto* help = w.findChild<HelpWindow*>();
        QVERIFY(help && help->isVisible());
        QCOMPARE(help->currentDocument(), QString("user-guide.md"));
        QCOMPARE(help->currentHeading(), QString("locality"));
        QCOMPARE(help->browser()->textCursor().block().text(), QString("locality"));
    }

    void aLinkInTheNotesOpensItsSection() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        auto* notes = w.findChild<QTextBrowser*>("scenarioNotes");
        QVERIFY(notes);
        // Both references are links, each opening its heading: the guide's, then the mathematics'.
        for (const char* prefix :
             {"qrc:/docs/user-guide.md#permutation-equivariance", "qrc:/docs/properties.md#21-"}) {
            const QUrl link = linkTo(notes->toHtml(), prefix);
            QVERIFY2(link.isValid(), prefix);
            emit notes->anchorClicked(link);
            auto* help = w.findChild<HelpWindow*>();
            QVERIFY(help && help->isVisible());
            QCOMPARE(help->currentHeading(), link.fragment());
        }
    }
};

QTEST_MAIN(TestUiHelp)
#include "test_ui_help.moc"
