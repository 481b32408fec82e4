// SPDX-License-Identifier: GPL-3.0-or-later
// The words a heatmap shows about its values: colour bar labels, the plot's message, tooltips.
#include "ui/views/heatmap_words.h"

#include "core/formats/short_number.h"

#include <cmath>

namespace attnlab::ui {

QStringList colourLabelsWithTolerance(const QStringList& labels, double tolerance) {
    if (tolerance <= 0) return labels;
    const QString t = QString::fromStdString(shortNumber(tolerance, 2)), first = labels.front();
    return QStringList{first + QString("\n±tol = %1 drawn neutral").arg(t),
                       first + QString("\n±%1 drawn neutral").arg(t),
                       first + QString("\n±%1 neutral").arg(t)} +
           labels;
}

QString differenceMessage(ColourScale scale, const ViewMatrix& matrix) {
    const auto& v = matrix.values;
    if (scale != ColourScale::Diverging || v.size() == 0) return {};
    const double largest = v.cwiseAbs().maxCoeff();
    if (largest == 0) return "exactly 0";
    if (largest <= matrix.tolerance) return "rounding only"; // the tolerance is on the colour bar
    return {};
}

QString cellTooltip(const ViewMatrix& matrix, const QStringList& rowLabels,
                    const QStringList& columnLabels, int row, int column) {
    const auto& v = matrix.values;
    const int i = row / matrix.rowBlock, j = column / matrix.colBlock;
    if (row < 0 || column < 0 || i >= v.rows() || j >= v.cols()) return {};
    const QString value = QString::fromStdString(matrix.text(i, j));
    const auto named = [](const QStringList& labels, int k) {
        return k < labels.size() ? QString("%1 “%2”").arg(k).arg(labels[k]) : QString::number(k);
    };
    // The colour bar may be too short to say it: a value within the tolerance is drawn neutral.
    const double tol = matrix.tolerance;
    const QString neutral = tol > 0 && std::abs(v(i, j)) <= tol
                                ? QString(" (within ±tol = %1: drawn neutral)")
                                      .arg(QString::fromStdString(shortNumber(tol, 2)))
                                : QString();
    if (!matrix.pooled())
        return QString("[%1, %2] = %3%4")
            .arg(named(rowLabels, row), named(columnLabels, column), value, neutral);
    return QString("rows %1–%2, columns %3–%4: largest |value| %5")
        .arg(i * matrix.rowBlock)
        .arg((i + 1) * matrix.rowBlock - 1)
        .arg(j * matrix.colBlock)
        .arg((j + 1) * matrix.colBlock - 1)
        .arg(value + neutral);
}

} // namespace attnlab::ui
