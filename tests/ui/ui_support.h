// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the ui tests: waiting for the explorer's worker to answer the newest edit,
// showing the window at a projector's 1280x720, typing into the token table.
#pragma once

#include "ui/document/compute_service.h"
#include "ui/editors/tokens_editor.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

/// Processes events until the worker has answered the newest request (views and verdicts).
/// Then runs the events already posted, so the views have drawn what arrived.
inline bool waitForIdle(attnlab::ui::MainWindow& window, int timeoutMs = 60000) {
    QSignalSpy idle(window.compute(), &attnlab::ui::ComputeService::idle);
    const bool answered =
        !window.compute()->isBusy() || idle.wait(timeoutMs) || !window.compute()->isBusy();
    QCoreApplication::processEvents();
    return answered;
}

/// The window at 1280x720 (a projector), shown, on `source`, with its worker done.
inline bool showAt1280(attnlab::ui::MainWindow& w, const QString& source) {
    w.resize(1280, 720);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w) || !w.openSource(source)) return false;
    const bool idle = waitForIdle(w);
    QCoreApplication::processEvents();
    return idle;
}

/// Types `text` into the token table's cell editor at (row, col) and presses Enter.
inline void typeIntoCell(attnlab::ui::TokensEditor* editor, int row, int col, const QString& text) {
    QTableView* table = editor->table();
    const QModelIndex index = table->model()->index(row, col);
    table->setCurrentIndex(index);
    table->edit(index);
    QLineEdit* line = nullptr; // a refused edit's editor may linger until deleteLater runs
    for (QLineEdit* e : table->viewport()->findChildren<QLineEdit*>())
        if (e->isVisible()) line = e;
    QVERIFY(line);
    line->selectAll();
    QTest::keyClicks(line, text);
    QTest::keyClick(line, Qt::Key_Return);
    QApplication::processEvents(); // the delegate commits the editor's text in a queued call
}
