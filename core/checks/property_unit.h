// SPDX-License-Identifier: GPL-3.0-or-later
// One property, whole: its check, the name the window shows, where the documentation explains
// it, the comparison the explorer draws for it, and what the window does with it beyond running
// the check. Each property's folder under core/checks/properties/ declares its unit; the registry
// (check_registry.h) lists them, and the explorer, the window and the command line ask it rather
// than the property's name.
#pragma once

#include "core/checks/black_box.h"
#include "core/checks/property_check.h"
#include "core/checks/property_comparison.h"
#include "core/spec/transform.h"

#include <functional>
#include <memory>
#include <string>

namespace attnlab {

/// Where the documentation explains a property.
struct PropertyDocs {
    /// Its subsection under user-guide.md's "The properties, one by one" (the heading's text).
    std::string guideHeading;
    /// Its section of properties.md, "2.3".
    std::string section;
};

/// What the window's dependency page takes from a property's report.
enum class DependencyMapRole {
    None,
    /// Its report's map, always (the property measures the dependencies).
    Source,
    /// Until a Source's report has arrived: its report's map when it measured one (to find its
    /// witness), else nothing.
    Fallback,
};

struct PropertyUnit {
    std::unique_ptr<PropertyCheck> check;
    /// What the window calls it.
    std::string displayName;
    PropertyDocs docs;
    /// The comparison the explorer draws while the property is followed.
    std::function<PropertyComparison(const ComparisonSource&)> comparison;
    /// Folds the explorer's transformation into the parameters the window runs the check with,
    /// those the user left to "auto" (`params` holds the others); empty: it does not follow it.
    std::function<void(nlohmann::json& params, const Transform& transform)> followTransform = {};
    DependencyMapRole dependencyMap = DependencyMapRole::None;
    /// How it is measured on a black box (another program: the probe); none where it needs the
    /// model's insides.
    std::shared_ptr<const BlackBoxProperty> blackBox = {};

    /// The check's name (the command line's and the scenario files').
    std::string name() const { return check->name(); }
};

} // namespace attnlab
