// SPDX-License-Identifier: GPL-3.0-or-later
// Where the documentation explains each property: the user guide's subsection (how to read it in
// the window: what the views draw, its parameters, its witness) and properties.md's section (the
// mathematics), as the property's unit declares them (core/checks/property_unit.h). The verdict
// panel's links and the tests ask here.
#pragma once

#include <QString>

namespace attnlab::ui {

/// The user guide's subsection on `property` ("user-guide.md#locality"), or "" when `property`
/// is not a registered check or the guide has no such heading.
QString guideTarget(const QString& property);

/// properties.md's section on `property` ("properties.md#23-locality-region-invariance"), or ""
/// when `property` is not a registered check.
QString mathematicsTarget(const QString& property);

} // namespace attnlab::ui
