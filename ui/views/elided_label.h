// SPDX-License-Identifier: GPL-3.0-or-later
// A one-line label that takes the width its layout leaves and elides its text to it instead of
// widening the window; the whole text is its tooltip.
#pragma once

#include <QLabel>

namespace attnlab::ui {

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);
    void setFullText(const QString& text);
    const QString& fullText() const { return text_; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();
    QString text_;
};

} // namespace attnlab::ui
