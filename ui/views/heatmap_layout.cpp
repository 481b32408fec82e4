// SPDX-License-Identifier: GPL-3.0-or-later
// Laying out a heatmap's ticks, title and message.
#include "ui/views/heatmap_layout.h"

#include "ui/views/heatmap_sizes.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace attnlab::ui {

namespace {

/// The smallest step of 1, 2 or 5 times a power of ten that is at least `step`.
int roundStep(int step) {
    for (int power = 1;; power *= 10)
        for (const int m : {1, 2, 5})
            if (m * power >= step) return m * power;
}

/// Every how many tokens an axis of this many pixels has room for a label in `font`.
int labelStep(const QStringList& labels, int pixels, const QFont& font) {
    const int line = QFontMetrics(font).height();
    return std::max(1, int(std::ceil(double(labels.size()) * line / std::max(pixels, 1))));
}

} // namespace

bool HeatmapTicks::setLabels(const QStringList& rows, const QStringList& columns) {
    if (rows == rows_ && columns == columns_) return false;
    rows_ = rows;
    columns_ = columns;
    reset();
    return true;
}

bool HeatmapTicks::update(QCustomPlot* plot, const ViewMatrix& matrix, const QString& family,
                          double scale) {
    const auto& v = matrix.values;
    if (v.size() == 0) return false;
    const QFont tokenFont = sizedFont(family, kTokenPoints, scale);
    const QFont tickFont = sizedFont(family, kTickPoints, scale);
    const QRect area = plot->axisRect()->rect();
    const double extents[] = {double(v.rows()) * matrix.rowBlock,
                              double(v.cols()) * matrix.colBlock};
    const QStringList* labels[] = {&rows_, &columns_};
    QCPAxis* axes[] = {plot->yAxis, plot->xAxis};
    const int pixels[] = {area.height(), area.width()};
    // Indices every so many tokens that each has room for its digits, the largest one's, and a
    // gap (a negative step: indices); a round step (1, 2 or 5 times a power of ten) past 16.
    const auto indexStep = [&](int a) {
        const QFontMetrics metrics(tickFont);
        const QString widest = QString::number(std::max(0, int(extents[a]) - 1));
        const double room = a == 0 ? metrics.height() * (extents[a] <= 16 ? 1 : 1.5)
                                   : metrics.horizontalAdvance(widest + "0");
        const double perIndex = pixels[a] / std::max(extents[a], 1.0);
        const int step = std::max(1, int(std::ceil(room / std::max(perIndex, 1e-9))));
        return -(extents[a] <= 16 ? step : roundStep(step));
    };
    const std::pair<int, int> steps{
        rows_.isEmpty() ? indexStep(0) : labelStep(rows_, pixels[0], tokenFont),
        columns_.isEmpty() ? indexStep(1) : labelStep(columns_, pixels[1], tokenFont)};
    if (steps == steps_) return false;
    steps_ = steps;
    const int stepOf[] = {steps.first, steps.second};
    for (int a = 0; a < 2; ++a) {
        QCPAxis* axis = axes[a];
        if (stepOf[a] > 0) {
            // Token strings, elided so that a long one does not push the map aside.
            auto text = QSharedPointer<QCPAxisTickerText>::create();
            const QFontMetrics metrics(tokenFont);
            for (int i = 0; i < labels[a]->size(); i += stepOf[a])
                text->addTick(i, metrics.elidedText(labels[a]->at(i), Qt::ElideRight,
                                                    metrics.horizontalAdvance("M") * 7));
            axis->setTicker(text);
            axis->setTickLabelFont(tokenFont);
            axis->setTickLabelRotation(axis == plot->xAxis ? 90 : 0);
            axis->setSubTicks(false);
        } else { // every so many token indices: each has room for its label
            auto fixed = QSharedPointer<QCPAxisTickerFixed>::create();
            fixed->setTickStep(-stepOf[a]);
            fixed->setScaleStrategy(QCPAxisTickerFixed::ssNone);
            axis->setTicker(fixed);
        }
        if (stepOf[a] <= 0) {
            axis->setTickLabelFont(tickFont);
            axis->setTickLabelRotation(0);
            axis->setSubTicks(true);
        }
    }
    return true;
}

namespace {

/// `text` on two lines: broken at its widest gap (two spaces, which part a map's name from its
/// input's) or else at the space nearest its middle; unchanged without a space.
QString onTwoLines(const QString& text) {
    int at = text.indexOf("  ");
    if (at >= 0) return text.left(at) + '\n' + text.mid(at + 2);
    at = -1;
    for (int i = 0; i < text.size(); ++i)
        if (text[i] == ' ' &&
            (at < 0 || std::abs(i - text.size() / 2) < std::abs(at - text.size() / 2)))
            at = i;
    return at < 0 ? text : text.left(at) + '\n' + text.mid(at + 1);
}

/// Whether every line of `text` is at most `width` wide in `font`.
bool fitsWidth(const QString& text, const QFont& font, int width) {
    const QFontMetricsF metrics(font);
    for (const QString& line : text.split('\n'))
        if (metrics.horizontalAdvance(line) > width) return false;
    return true;
}

} // namespace

bool fitAxisLabel(QCPAxis* axis, const QStringList& candidates, int length) {
    QString shown;
    for (const QString& candidate : candidates)
        for (const QString& form :
             {candidate, candidate.contains('\n') ? candidate : onTwoLines(candidate)})
            if (shown.isEmpty() && fitsWidth(form, axis->labelFont(), length)) shown = form;
    const bool elided = shown.isEmpty();
    if (elided)
        shown = QFontMetrics(axis->labelFont())
                    .elidedText(candidates.value(candidates.size() - 1), Qt::ElideRight, length);
    if (shown != axis->label()) axis->setLabel(shown);
    return elided;
}

bool fitTitle(QCPTextElement* title, const QString& text, const QFont& font) {
    // The title's line keeps the height of `font`, so that a map's title shrunk to fit does not
    // give its plot more room than its neighbours'.
    title->setMinimumSize(0, QFontMetrics(font).height());
    const int width = title->rect().width();
    const double smallest = font.pointSizeF() * kTickPoints / kTitlePoints;
    // One line as large as fits down to the ticks' size, else two lines, else elided.
    QFont fitted = font;
    QString shown = text;
    for (const QString& candidate : {text, onTwoLines(text)}) {
        fitted = font;
        shown = candidate;
        while (width > 0 && fitted.pointSizeF() > smallest && !fitsWidth(shown, fitted, width))
            fitted.setPointSizeF(std::max(smallest, fitted.pointSizeF() - 0.25));
        if (width <= 0 || fitsWidth(shown, fitted, width)) break;
    }
    const bool elided = width > 0 && !fitsWidth(shown, fitted, width);
    if (elided) shown = QFontMetrics(fitted).elidedText(text, Qt::ElideRight, width);
    if (fitted != title->font()) title->setFont(fitted);
    if (shown != title->text()) title->setText(shown);
    return elided;
}

void fitMessage(QCPItemText* message, const QString& family, double scale, const QCPAxisRect* map) {
    // As large as a token label, smaller where the map is narrower than the words.
    QFont font = sizedFont(family, kTokenPoints, scale, true);
    const double room = 0.9 * map->rect().width();
    const double width = QFontMetricsF(font).horizontalAdvance(message->text()) + 12;
    if (room > 0 && width > room)
        font.setPointSizeF(std::max(6.0, font.pointSizeF() * room / width));
    if (font != message->font()) message->setFont(font);
}

} // namespace attnlab::ui
