// Colour scales for heatmaps: viridis (sequential, perceptually uniform, colour-blind safe;
// QCustomPlot has no preset for it), a blue–white–orange diverging scale for differences centred on
// zero, and the translucent overlay that shades masked cells.
#pragma once

#include <qcustomplot.h>

/// Viridis, sampled from its published 256-entry table at 9 stops.
QCPColorGradient viridisGradient();
/// Blue (negative) – near white (zero) – orange (positive); use with a symmetric data range.
QCPColorGradient divergingGradient();
/// Transparent at 0, a translucent neutral grey at 1: drawn over a map where cells are masked.
QCPColorGradient maskOverlayGradient();
