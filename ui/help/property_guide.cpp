// SPDX-License-Identifier: GPL-3.0-or-later
// The guide's and the mathematics' sections of each property.
#include "ui/help/property_guide.h"

#include "core/checks/check_registry.h"
#include "ui/help/doc_links.h"
#include "ui/help/help_window.h"

namespace attnlab::ui {

QString guideTarget(const QString& property) {
    if (!attnlab::findPropertyCheck(property.toStdString())) return {};
    const QString target = "user-guide.md#" + headingSlug(property);
    return HelpWindow::hasTarget(target) ? target : QString();
}

QString mathematicsTarget(const QString& property) {
    const std::string section = attnlab::propertySection(property.toStdString());
    if (section.empty()) return {};
    return HelpWindow::sectionTarget("properties.md", QString::fromStdString(section));
}

} // namespace attnlab::ui
