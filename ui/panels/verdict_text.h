// SPDX-License-Identifier: GPL-3.0-or-later
// How the verdict panel writes a property's report: the verdict's words and colour, its values,
// and the details under the table as HTML (the verdict, the explanation, deviation and tolerance,
// what was checked and the witness in words from core/checks/report_prose.h, the JSON one link
// away, links to the guide and the mathematics), or, for a row without a report, what its
// verdict cell says and why.
#pragma once

#include "core/checks/property_report.h"

#include <QColor>
#include <QString>

namespace attnlab::ui {

/// A verdict cell while its check runs.
inline const QString kComputing = QStringLiteral("computing…");
/// The details' links that show (or hide) the report's JSON and copy it.
inline const QString kShowJsonLink = QStringLiteral("attnlab:show-json");
inline const QString kCopyJsonLink = QStringLiteral("attnlab:copy-json");

/// Exact values as given ("5/9"), float values to 4 significant digits.
QString valueText(const attnlab::ReportNumber& v);
/// "✓ holds", "✗ fails", "– not applicable".
QString verdictLabel(attnlab::Verdict v);
/// Blue for holds and orange for fails: distinguishable with every common colour-vision
/// deficiency, and each verdict also carries a symbol.
QColor verdictColour(attnlab::Verdict v);
/// What the window calls the property `name` (its unit's display name).
QString displayName(const QString& name);

/// The details of `report`: its witness, or with `shrunk` its shrunk one; with `showJson`, its
/// JSON under the words.
QString reportDetailsHtml(const attnlab::PropertyReport& report, bool shrunk, bool showJson);
/// The details of property `name` without a report: what its verdict cell says (`state`), and
/// why (`error`, for a check that failed to run).
QString unreportedDetailsHtml(const QString& name, const QString& state, const QString& error);

} // namespace attnlab::ui
