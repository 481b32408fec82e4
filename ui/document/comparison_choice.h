// SPDX-License-Identifier: GPL-3.0-or-later
// Which comparison the explorer's views draw: the Transform tab's transformation, or the
// comparison of the property the user selected (core/explore/property_comparison.h: S beside
// Sᵀ for logit symmetry, the shift for shift invariance, ...). A followed property stays followed
// across edits of the scenario, its witness taken from its report once that arrives; editing
// the transformation, choosing the Transform tab, or a new scenario goes back to the
// transformation. A witness
// lies on the maps of its property's comparison (witnessMaps), drawn now or not.
#pragma once

#include "core/checks/property_report.h"
#include "core/spec/transform.h"
#include "ui/document/drawn_comparison.h"

#include <QObject>
#include <QString>

#include <optional>

namespace attnlab::ui {

class ComputeService;
class ScenarioDocument;

class ComparisonChoice : public QObject {
    Q_OBJECT
public:
    /// Construct it before anything else that reacts to `document`'s changes: it tells
    /// `compute` what to draw before the edit's views are requested.
    ComparisonChoice(ScenarioDocument* document, ComputeService* compute,
                     QObject* parent = nullptr);

    /// Draws `property`'s comparison now and after later edits, its witness from `report`.
    void followProperty(const QString& property, const PropertyReport* report);
    /// Draws the Transform tab's transformation again.
    void followTransform();
    /// Draws the followed property's shrunk witness on the few tokens it keeps (or its witness
    /// on every token again).
    void setShrunk(bool shrunk);
    /// The property followed; empty when the views draw the transformation.
    QString property() const { return property_; }
    /// The maps `property`'s witness in `report` (its shrunk one, with `shrunk`) lies on: its
    /// comparison of the current state, whether followed or not.
    DrawnComparison witnessMaps(const QString& property, const PropertyReport* report,
                                bool shrunk) const;

private:
    void documentChanged();
    void reportReady(const PropertyReport& report);
    /// Tells the worker what to draw (with `redraw`, at once).
    void apply(bool redraw);

    ScenarioDocument* document_;
    ComputeService* compute_;
    QString property_;
    std::optional<PropertyReport> report_; // the followed property's, for the current scenario
    Transform transform_;                  // the transformation when last seen
    bool shrunk_ = false;
};

} // namespace attnlab::ui
