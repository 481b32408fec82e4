// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the ui tests: waiting for the explorer's worker to answer the newest edit.
#pragma once

#include "ui/document/compute_service.h"
#include "ui/main_window.h"

#include <QSignalSpy>
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
