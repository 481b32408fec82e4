// SPDX-License-Identifier: GPL-3.0-or-later
// A figure as the bytes of a PNG, SVG or PDF file, and the names of exported files.
#include "ui/views/figure.h"

#include "ui/views/view_export.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace attnlab::ui {

namespace {

constexpr int kPngScale = 2;

QByteArray png(const Figure& figure, const QString& path) {
    const QSize size = figureSize(figure);
    QImage image(size * kPngScale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(kPngScale);
    {
        QPainter painter(&image);
        paintFigure(painter, figure);
    }
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, "png");
    if (!writer.write(image)) failExport(path, writer.errorString());
    return buffer.data();
}

QByteArray svg(const Figure& figure, const QString& path) {
    const QSize size = figureSize(figure);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(), size));
    generator.setTitle(figure.title);
    QPainter painter;
    if (!painter.begin(&generator)) failExport(path, "the SVG could not be drawn");
    paintFigure(painter, figure);
    painter.end();
    return buffer.data();
}

QByteArray pdf(const Figure& figure, const QString& path) {
    const QSize size = figureSize(figure);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setResolution(72); // one logical pixel per point
    writer.setPageSize(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch));
    writer.setPageMargins(QMarginsF());
    writer.setTitle(figure.title);
    writer.setCreator("AttnLab");
    QPainter painter;
    if (!painter.begin(&writer)) failExport(path, "the PDF could not be drawn");
    paintFigure(painter, figure);
    painter.end();
    return buffer.data();
}

} // namespace

QByteArray figureFile(const Figure& figure, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "png") return png(figure, path);
    if (suffix == "svg") return svg(figure, path);
    if (suffix == "pdf") return pdf(figure, path);
    failExport(path, "unknown image format (use .png, .svg or .pdf)");
}

QString figureStem(const QString& scenario, int layer, int head) {
    const QString name = fileStem(scenario);
    return QString("%1_L%2_H%3").arg(name.isEmpty() ? "figure" : name).arg(layer).arg(head);
}

} // namespace attnlab::ui
