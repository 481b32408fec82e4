// SPDX-License-Identifier: GPL-3.0-or-later
// The outline of a band |row − column| ≤ r drawn over a heatmap, e.g. the locality radius a check
// claims: the staircase edges of the band's cells in token coordinates (so a pooled map shows it
// too), a dark line under a dashed light one, to be seen on any colour of the map.
#pragma once

#include <qcustomplot.h>

#include <optional>

namespace attnlab::ui {

class BandOutline : public QCPLayerable {
    Q_OBJECT
public:
    /// Draws over `map`'s axes, on the plot's layer `layer`.
    BandOutline(QCPColorMap* map, const QString& layer);
    /// The band |row − column| ≤ radius of a rows x columns token map; nullopt draws none.
    void setBand(std::optional<int> radius, int rows, int columns);
    std::optional<int> radius() const { return radius_; }
    /// The lines' width at the normal size (presentation mode enlarges it).
    void setScale(double scale) { scale_ = scale; }

protected:
    void applyDefaultAntialiasingHint(QCPPainter* painter) const override;
    QRect clipRect() const override;
    void draw(QCPPainter* painter) override;

private:
    /// One edge of the band (the left one or the right one) in pixels.
    QPolygonF edge(bool right) const;

    QCPColorMap* map_;
    std::optional<int> radius_;
    int rows_ = 0, columns_ = 0;
    double scale_ = 1;
};

} // namespace attnlab::ui
