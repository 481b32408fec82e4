// SPDX-License-Identifier: GPL-3.0-or-later
// Following the selected property in the views, or the Transform tab's transformation.
#include "ui/document/comparison_choice.h"

#include "ui/document/compute_service.h"
#include "ui/document/scenario_document.h"

namespace attnlab::ui {

ComparisonChoice::ComparisonChoice(ScenarioDocument* document, ComputeService* compute,
                                   QObject* parent)
    : QObject(parent), document_(document), compute_(compute), transform_(document->transform()) {
    // A new scenario starts on its own transformation: no property of the previous one is
    // followed into it (its `changed` follows and applies that).
    connect(document_, &ScenarioDocument::replaced, this, [this] {
        property_.clear();
        shrunk_ = false;
    });
    connect(document_, &ScenarioDocument::changed, this, &ComparisonChoice::documentChanged);
    connect(compute_, &ComputeService::checkReady, this,
            [this](int, const PropertyReport& report) { reportReady(report); });
}

void ComparisonChoice::followProperty(const QString& property, const PropertyReport* report) {
    if (property == property_) return; // its report, when newer, arrives through reportReady
    property_ = property;
    report_ = report ? std::optional<PropertyReport>(*report) : std::nullopt;
    apply(true);
}

void ComparisonChoice::followTransform() {
    if (property_.isEmpty()) return;
    property_.clear();
    report_.reset();
    apply(true);
}

void ComparisonChoice::setShrunk(bool shrunk) {
    if (shrunk == shrunk_) return;
    shrunk_ = shrunk;
    if (!property_.isEmpty()) apply(true);
}

DrawnComparison ComparisonChoice::witnessMaps(const QString& property, const PropertyReport* report,
                                              bool shrunk) const {
    return {document_->sharedState(),
            comparisonFor(document_->scenario(), property.toStdString(), report, shrunk)};
}

void ComparisonChoice::documentChanged() {
    // The report described the previous scenario; the new one's arrives with its checks.
    report_.reset();
    if (document_->transform() != transform_) {
        transform_ = document_->transform();
        property_.clear();
    }
    apply(false);
}

void ComparisonChoice::reportReady(const PropertyReport& report) {
    if (property_.toStdString() != report.name) return;
    const Scenario& s = document_->scenario();
    const PropertyComparison now =
        comparisonFor(s, report.name, report_ ? &*report_ : nullptr, shrunk_);
    report_ = report;
    if (comparisonFor(s, report.name, &report, shrunk_) != now)
        apply(true); // e.g. the witness's token
}

void ComparisonChoice::apply(bool redraw) {
    if (property_.isEmpty()) {
        compute_->setComparison({}, redraw);
        return;
    }
    compute_->setComparison(
        [name = property_.toStdString(), report = report_, shrunk = shrunk_](const Scenario& s) {
            return comparisonFor(s, name, report ? &*report : nullptr, shrunk);
        },
        redraw);
}

} // namespace attnlab::ui
