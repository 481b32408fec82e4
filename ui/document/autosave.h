// SPDX-License-Identifier: GPL-3.0-or-later
// Crash recovery: while the scenario has unsaved changes it is written (atomically) to an autosave
// file every few seconds; a clean exit removes it. A file left behind therefore means the previous
// session ended without saving — crashed or killed — and the next start offers to restore it.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

namespace attnlab::ui {

class ScenarioDocument;

class Autosave : public QObject {
    Q_OBJECT
public:
    /// Will autosave `document` into `directory` (created when missing) every `intervalMs`
    /// once started (start only after any recovery has been offered).
    Autosave(ScenarioDocument* document, const QString& directory, int intervalMs,
             QObject* parent = nullptr);
    void start() { timer_.start(); }

    /// The application's autosave directory (under the user's data location).
    static QString defaultDirectory();
    QString filePath() const;
    /// True when an earlier session left an autosave behind (call before the first save).
    bool hasRecovery() const;
    /// Writes now when there are unsaved changes not yet autosaved; returns whether it wrote.
    bool saveNow();
    /// Removes the autosave (clean exit, or the user declined to restore it).
    void discard();

signals:
    void saved(const QString& path);

private:
    ScenarioDocument* document_;
    QString directory_;
    QTimer timer_;
    quint64 savedGeneration_ = 0;
    quint64 generation_ = 0;
};

} // namespace attnlab::ui
