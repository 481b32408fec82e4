// SPDX-License-Identifier: GPL-3.0-or-later
// The guide's and the mathematics' sections of each property.
#include "ui/help/property_guide.h"

#include "core/checks/check_registry.h"
#include "ui/help/doc_links.h"
#include "ui/help/help_window.h"

namespace attnlab::ui {

QString guideTarget(const QString& property) {
    const attnlab::PropertyUnit* unit = attnlab::findPropertyUnit(property.toStdString());
    if (!unit) return {};
    const QString target =
        "user-guide.md#" + headingSlug(QString::fromStdString(unit->docs.guideHeading));
    return HelpWindow::hasTarget(target) ? target : QString();
}

QString mathematicsTarget(const QString& property) {
    const attnlab::PropertyUnit* unit = attnlab::findPropertyUnit(property.toStdString());
    if (!unit) return {};
    return HelpWindow::sectionTarget("properties.md", QString::fromStdString(unit->docs.section));
}

} // namespace attnlab::ui
