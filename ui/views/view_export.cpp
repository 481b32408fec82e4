// SPDX-License-Identifier: GPL-3.0-or-later
// Heatmap and matrix export.
#include "ui/views/view_export.h"

#include "core/formats/npy.h"
#include "core/formats/table_text.h"
#include "ui/views/heatmap_view.h"

#include <QFile>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>

#include <qcustomplot.h>

#include <stdexcept>

namespace attnlab::ui {

void failExport(const QString& path, const QString& why) {
    throw std::runtime_error((path + ": " + why).toStdString());
}

void writeFileBytes(const QString& path, const QByteArray& bytes) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        failExport(path, file.errorString());
}

void exportHeatmap(HeatmapView* view, const QString& path, int width, int height) {
    QCustomPlot* plot = view->plot();
    bool ok = false;
    if (path.endsWith(".png", Qt::CaseInsensitive)) {
        ok = plot->savePng(path, width, height, 2.0);
    } else if (path.endsWith(".pdf", Qt::CaseInsensitive)) {
        ok = plot->savePdf(path, width, height);
    } else if (path.endsWith(".svg", Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle(view->title());
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, width, height);
            painter.end();
            ok = QFile(path).size() > 0;
        }
    } else {
        failExport(path, "unknown image format (use .png, .svg or .pdf)");
    }
    if (!ok) failExport(path, "could not be written");
}

void exportMatrix(const ViewMatrix& matrix, const QString& path) {
    if (path.endsWith(".npy", Qt::CaseInsensitive)) {
        writeNpy(path.toStdString(), matrix.values);
        return;
    }
    const std::string text = tableText(matrix.values);
    writeFileBytes(path, QByteArray::fromStdString(text));
}

QString fileStem(const QString& title) {
    QString stem = title;
    stem.replace(QRegularExpression("[^A-Za-z0-9]+"), "_");
    return stem.remove(QRegularExpression("^_+|_+$"));
}

} // namespace attnlab::ui
