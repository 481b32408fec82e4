// SPDX-License-Identifier: GPL-3.0-or-later
// Exporting what the explorer shows: heatmaps as PNG, SVG or PDF (by the file's suffix) and the
// matrices behind them as CSV or NPY. Throws std::runtime_error naming the file when writing fails.
#pragma once

#include "core/explore/side_by_side.h"

#include <QByteArray>
#include <QString>

namespace attnlab::ui {

class HeatmapView;

/// Writes one heatmap; the format follows the suffix (.png, .svg, .pdf).
void exportHeatmap(HeatmapView* view, const QString& path, int width = 640, int height = 520);
/// Writes the matrix a heatmap shows; .csv or .npy by suffix.
void exportMatrix(const ViewMatrix& matrix, const QString& path);
/// Throws std::runtime_error "path: why".
[[noreturn]] void failExport(const QString& path, const QString& why);
/// Replaces the file at `path` by `bytes` only once all are written (an existing file stays as it
/// was on failure); throws through failExport with the system's reason.
void writeFileBytes(const QString& path, const QByteArray& bytes);
/// A file-name-safe form of a view title: "weights A — f(X)" -> "weights_A_f_X".
QString fileStem(const QString& title);

} // namespace attnlab::ui
