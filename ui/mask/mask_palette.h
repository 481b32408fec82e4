// SPDX-License-Identifier: GPL-3.0-or-later
// The colours the mask views share: palette colours where the meaning is "allowed" or
// "background" (so light and dark themes both read), Okabe-Ito colours (colour-blind safe)
// where two things must be told apart, and patterns so that nothing depends on colour alone.
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

namespace attnlab::ui::mask_palette {

/// Blocked entries and empty tiles: the view's base colour.
inline QColor blocked(const QPalette& p) {
    return p.color(QPalette::Base);
}
/// Allowed entries and full tiles.
inline QColor allowed(const QPalette& p) {
    return p.color(QPalette::Highlight);
}
/// Thin grid lines between cells.
inline QColor gridLine(const QPalette& p) {
    return p.color(QPalette::Mid);
}
/// Rows with no allowed key (Okabe-Ito vermillion).
inline QColor warning() {
    return QColor(0xD5, 0x5E, 0x00);
}
/// Entries only the first mask of a diff allows (Okabe-Ito orange).
inline QColor onlyA() {
    return QColor(0xE6, 0x9F, 0x00);
}
/// Entries only the second mask of a diff allows (Okabe-Ito blue).
inline QColor onlyB() {
    return QColor(0x00, 0x72, 0xB2);
}
/// Entries both masks allow: a neutral between text and base.
inline QColor both(const QPalette& p) {
    const QColor a = p.color(QPalette::Text), b = p.color(QPalette::Base);
    return QColor((a.red() * 2 + b.red() * 3) / 5, (a.green() * 2 + b.green() * 3) / 5,
                  (a.blue() * 2 + b.blue() * 3) / 5);
}
/// `c` half-way to `base`: the screen-resolution stand-in for a hatched fill.
inline QColor halfway(const QColor& c, const QColor& base) {
    return QColor((c.red() + base.red()) / 2, (c.green() + base.green()) / 2,
                  (c.blue() + base.blue()) / 2);
}
/// A coloured glyph for rich-text legends (a filled square unless told otherwise).
inline QString swatch(const QColor& c, const QString& glyph = QStringLiteral("&#9632;")) {
    return QStringLiteral("<span style=\"color:%1\">%2</span> ").arg(c.name(), glyph);
}

} // namespace attnlab::ui::mask_palette
