// SPDX-License-Identifier: GPL-3.0-or-later
// The line above the verdicts while the window probes a program: "Probing: COMMAND — STATUS"
// (the calls and sequences so far, or why it stopped) and the Stop probing button.
#pragma once

#include <QFrame>
#include <QStringList>

class QLabel;
class QPushButton;

namespace attnlab::ui {

class ProbeBanner : public QFrame {
    Q_OBJECT
public:
    explicit ProbeBanner(QWidget* parent = nullptr);

    /// The program probed and its arguments: shown with paths of files shortened to their
    /// names, whole in the tooltip.
    void setCommand(const QStringList& command);
    /// What the probe is doing or did ("call 2 of 4 (1033 sequences)", "failed").
    void setStatus(const QString& status);
    /// The line as shown, without markup.
    QString text() const;
    QPushButton* stopButton() const { return stop_; }

signals:
    void stopRequested();

private:
    void refresh();

    QLabel* label_;
    QPushButton* stop_;
    QString command_, status_;
};

} // namespace attnlab::ui
