// SPDX-License-Identifier: GPL-3.0-or-later
// The error line of the window: a message about refused input, drawn over the bottom of the
// window's central area (so showing it moves and shrinks nothing), with a close button; Esc in
// the window closes it too.
#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace attnlab::ui {

class ErrorBanner : public QFrame {
    Q_OBJECT
public:
    /// Floats over the bottom edge of `host`, following its size.
    explicit ErrorBanner(QWidget* host);

    /// Shows `message` (replacing any earlier one) and raises the banner over its host.
    void showMessage(const QString& message);
    /// The message shown ("" when hidden).
    QString text() const;
    QToolButton* closeButton() const { return close_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void place();

    QLabel* label_;
    QToolButton* close_;
};

} // namespace attnlab::ui
