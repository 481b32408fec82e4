// SPDX-License-Identifier: GPL-3.0-or-later
// The centre of the window: for the chosen layer and head, the scores, weights and output of the
// original input, of the transformed input, and their difference, side by side (3 x 3 heatmaps),
// the mask over the weights, and a second page with the measured dependency map next to the bound
// the masks imply (or, for a probe of the user's program, the map measured by probing beside the
// intended mask), and a page of every layer x head as small maps (click one to show it). Token
// strings, when the tokens have them, name the axes. Witness cells of a failing property are
// outlined on the maps they lie on (not on another comparison's). The original and transformed maps
// of a row share one colour range unless "per-map scales" is ticked; "numbers" writes values in
// cells (automatic, forced on, forced off); presentation mode enlarges every map's fonts and lines.
#pragma once

#include "core/checks/property_report.h"
#include "core/checks/witness.h"
#include "core/explore/head_overview.h"
#include "core/explore/side_by_side.h"
#include "ui/document/drawn_comparison.h"

#include <QWidget>

#include <array>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QTabWidget;

namespace attnlab::ui {

class ElidedLabel;
class HeadOverviewView;
class HeatmapView;
class PositionalPage;

class ViewsPanel : public QWidget {
    Q_OBJECT
public:
    enum Row { Scores, Weights, Output, RowCount };
    enum Column { Original, Transformed, Difference, ColumnCount };

    explicit ViewsPanel(QWidget* parent = nullptr);

    /// Draws `views`, which draw `drawn`.
    void setViews(std::shared_ptr<const attnlab::SideBySide> views, const DrawnComparison& drawn);
    void setOverview(std::shared_ptr<const attnlab::HeadOverview> overview);
    /// The input changed: everything drawn of the previous one is veiled ("computing…") until
    /// the new input's views (setViews), overview (setOverview) and, with `dependencies`, its
    /// dependency report (setDependencyReport) arrive.
    void markStale(bool dependencies = true);
    /// Only the Dependencies page is of a previous input (its property runs again).
    void markDependenciesStale();
    /// The new input's views could not be computed (`why`): the previous input's are cleared,
    /// not left beside it as if they were its.
    void clearViews(const QString& why);
    /// Whether the side-by-side maps, or the Dependencies page, still show a previous input.
    bool viewsStale() const { return viewsStale_; }
    bool dependencyStale() const { return dependencyStale_; }
    /// Whose report the Dependencies page shows: the model's checks' (the bound the masks
    /// imply), or a probe's (the program's measured map against the intended mask).
    enum class DependencySource { Model, Probe };
    /// Shows the dependency and bound maps of a locality, causality or (a probe's) mask report,
    /// titled for `source` (null clears).
    void setDependencyReport(const attnlab::PropertyReport* report,
                             DependencySource source = DependencySource::Model);
    DependencySource dependencySource() const { return dependencySource_; }
    /// Outlines these witness cells, which lie on the maps `on` (the side-by-side maps when they
    /// draw those, the dependency page when it is of that state), switching layer and head to
    /// where they are.
    void showWitness(const std::vector<attnlab::WitnessCell>& cells, const DrawnComparison& on);

    /// Outlines these cells of a probe's Dependencies page (its witness: the probe's maps,
    /// whatever state the other pages draw) and turns to that page when there are any.
    void showProbeWitness(const std::vector<attnlab::WitnessCell>& cells);

    void setLayer(int layer);
    /// Shows layer `layer`, head `head` on the side-by-side page.
    void selectHead(int layer, int head);
    int layer() const;
    int head() const;
    HeatmapView* view(Row row, Column column) const { return views_[row][column]; }
    /// The Dependencies page's measured map, the masks' bound and their difference.
    HeatmapView* dependencyView() const { return dependency_; }
    HeatmapView* boundView() const { return bound_; }
    HeatmapView* excessView() const { return excess_; }
    /// The text under the Dependencies page's maps.
    QString dependencySummary() const;
    HeadOverviewView* overview() const { return overview_; }
    PositionalPage* positions() const { return positions_; }
    QComboBox* layerBox() const { return layer_; }
    QComboBox* headBox() const { return head_; }
    QTabWidget* tabs() const { return tabs_; }
    /// Ticked: each map over its own range; unticked: a row's two sides share one.
    QCheckBox* perMapScalesBox() const { return perMapScales_; }
    /// Partially checked: numbers where they fit a small map; checked / unchecked: forced.
    QCheckBox* numbersBox() const { return numbers_; }
    /// Large fonts and lines on every map for a projector (true), or normal ones.
    void setPresentation(bool on);
    /// Every heatmap, maps first, for export.
    QList<HeatmapView*> allViews() const;
    const attnlab::SideBySide* current() const { return sides_.get(); }

signals:
    void layerChanged(int layer);

private:
    void redraw();
    /// The Positions page for the shown head, when that page is on screen.
    void redrawPositions();
    /// Gives each row's original and transformed maps one range (or their own, per the box).
    void shareScales();
    void applyNumbers();
    /// The Dependencies page's titles for its source.
    void titleDependencies();
    /// The Dependencies page's witness outlines and token labels, for its source.
    void outlineDependencies();

    std::shared_ptr<const attnlab::SideBySide> sides_;
    std::array<std::array<HeatmapView*, ColumnCount>, RowCount> views_{};
    HeatmapView* dependency_;
    HeatmapView* bound_;
    HeatmapView* excess_; // measured − bound
    QLabel* dependencySummary_;
    HeadOverviewView* overview_;
    PositionalPage* positions_;
    QTabWidget* tabs_;
    QComboBox* layer_;
    QComboBox* head_;
    QCheckBox* perMapScales_;
    QCheckBox* numbers_;
    ElidedLabel* summary_;
    QLabel* warnings_;
    DrawnComparison drawn_; // what sides_ draws
    std::vector<attnlab::WitnessCell> witness_;
    DrawnComparison witnessOn_; // the maps witness_ lies on
    DependencySource dependencySource_ = DependencySource::Model;
    std::vector<attnlab::WitnessCell> probeWitness_; // on the Dependencies page of a probe
    bool redrawPending_ = false;
    bool viewsStale_ = false;      // sides_ are of a previous input
    bool dependencyStale_ = false; // the Dependencies page is of a previous input
    /// The head on screen, its maps made once for the three sides: a redraw that keeps the head
    /// (a witness, a new summary) converts nothing again.
    struct ShownHead {
        std::shared_ptr<const attnlab::SideBySide> sides; // held, so its address is not reused
        std::size_t layer = 0;
        int head = 0;
        std::array<attnlab::HeadView, ColumnCount> maps;
    };
    ShownHead shown_;
};

} // namespace attnlab::ui
