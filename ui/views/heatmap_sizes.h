// SPDX-License-Identifier: GPL-3.0-or-later
// The sizes a heatmap's texts are drawn at: point sizes at the normal scale (presentation mode
// multiplies them), shared by the view and the layout of its ticks, title and message.
#pragma once

#include <QFont>
#include <QString>

namespace attnlab::ui {

/// Point sizes at the normal scale: token strings larger than index ticks, to be read from a
/// distance.
inline constexpr double kTitlePoints = 9, kTokenPoints = 9, kTickPoints = 7, kNumberPoints = 8;
/// The smallest numbers written in cells: normally, and in presentation mode (14 px at 96 dpi, to
/// be read from the back of a room; smaller ones are left to the colours).
inline constexpr double kSmallestNumberPoints = 6, kReadableNumberPoints = 10.5;
/// Significant digits of the numbers in cells: normally, and in presentation mode (shorter, so
/// that they fit larger).
inline constexpr int kNumberDigits = 3, kPresentationNumberDigits = 2;

/// A font of `family` at `points` times `scale` (1, or presentation mode's enlargement).
inline QFont sizedFont(const QString& family, double points, double scale, bool bold = false) {
    QFont f(family);
    f.setPointSizeF(points * scale);
    f.setBold(bold);
    return f;
}

} // namespace attnlab::ui
