// SPDX-License-Identifier: GPL-3.0-or-later
// The core's colour scales (core/formats/color_maps.h) as QCustomPlot gradients, and the
// translucent overlay that shades masked cells.
#pragma once

#include "core/formats/color_maps.h"

#include <qcustomplot.h>

namespace attnlab::ui {

/// The scale's colour stops, interpolated linearly in RGB at 255 levels (an odd count, so that
/// the diverging scale's centre is drawn exactly in its neutral colour).
QCPColorGradient gradientOf(ColourScale scale);
/// Transparent at 0, a translucent neutral grey at 1: drawn over a map where cells are masked.
QCPColorGradient maskOverlayGradient();

} // namespace attnlab::ui
