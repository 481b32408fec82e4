// The help window through real widgets: the shipped documents and their contents, opening a
// heading by its slug, links between documents, back and forward, find, F1 and the Help menu,
// and every docs/ reference in the presets' notes leading to a heading that exists.
#include "ui/editors/model_editor.h"
#include "ui/editors/tokens_editor.h"
#include "ui/help/doc_links.h"
#include "ui/help/help_window.h"
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
            const QString section = QString::fromStdString(attnlab::propertySection(check->name()));
            const QString target = HelpWindow::sectionTarget("properties.md", section);
            QVERIFY2(HelpWindow::hasTarget(target), qPrintable(section));
        }
        QCOMPARE(HelpWindow::sectionTarget("properties.md", "9.99"), QString());
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.properties()->select("permutation-equivariance");
        auto* details = w.properties()->findChild<QTextBrowser*>();
        QVERIFY(details->toHtml().contains("qrc:/docs/properties.md#21-"));
        emit details->anchorClicked(
            QUrl(details->toHtml().section("href=\"", 1).section('"', 0, 0)));
        auto* help = w.findChild<HelpWindow*>();
        QVERIFY(help && help->isVisible());
        QVERIFY(help->currentHeading().startsWith("21-permutation-equivariance"));
    }

    void aLinkInTheNotesOpensItsSection() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        auto* notes = w.findChild<QTextBrowser*>("scenarioNotes");
        QVERIFY(notes);
        QVERIFY(notes->toHtml().contains("qrc:/docs/properties.md#"));
        const QUrl link(notes->toHtml().section("href=\"", 1).section('"', 0, 0));
        emit notes->anchorClicked(link);
        auto* help = w.findChild<HelpWindow*>();
        QVERIFY(help && help->isVisible());
        QCOMPARE(help->currentHeading(), link.fragment());
    }
};

QTEST_MAIN(TestUiHelp)
#include "test_ui_help.moc"
