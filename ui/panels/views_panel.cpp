// SPDX-License-Identifier: GPL-3.0-or-later
// Side-by-side heatmaps of one layer and head.
#include "ui/panels/views_panel.h"

#include "ui/views/elided_label.h"
#include "ui/views/head_overview_view.h"
#include "ui/views/heatmap_view.h"
#include "ui/views/positional_page.h"

#include "core/explore/dependency_maps.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

using attnlab::ViewMatrix;
using attnlab::WitnessCell;

namespace attnlab::ui {

namespace {

const char* const kRowNames[] = {"scores S", "weights A", "output"};
const char* const kColourLabels[] = {"score", "weight", "output value"};

} // namespace

ViewsPanel::ViewsPanel(QWidget* parent)
    : QWidget(parent),
      dependency_(new HeatmapView("measured dependency", HeatmapView::Scale::Sequential)),
      bound_(new HeatmapView("bound implied by the masks", HeatmapView::Scale::Sequential)),
      excess_(new HeatmapView("measured − bound", HeatmapView::Scale::Diverging)),
      dependencySummary_(new QLabel), overview_(new HeadOverviewView),
      positions_(new PositionalPage), tabs_(new QTabWidget), layer_(new QComboBox),
      head_(new QComboBox), perMapScales_(new QCheckBox("per-map scales")),
      numbers_(new QCheckBox("numbers")), summary_(new ElidedLabel), warnings_(new QLabel) {
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel("Layer"));
    bar->addWidget(layer_);
    bar->addWidget(new QLabel("Head"));
    bar->addWidget(head_);
    bar->addSpacing(12);
    perMapScales_->setToolTip("Draw each map over its own range of values. Unticked, the original "
                              "and transformed maps of a row share one range, so equal colours "
                              "mean equal values.");
    numbers_->setTristate(true);
    numbers_->setCheckState(Qt::PartiallyChecked);
    numbers_->setToolTip("Values written in the cells: partly ticked, where they fit a map of up "
                         "to 16 × 16; ticked, wherever cells are large enough; unticked, never.");
    bar->addWidget(perMapScales_);
    bar->addWidget(numbers_);
    bar->addStretch();
    // On a line of its own, the largest difference first: beside the controls, a 1280 px screen
    // left it about 110 px, and even 1600 px cut off its number.
    summary_->setObjectName("viewsSummary"); // elided to the panel's width if it must be

    auto* maps = new QWidget;
    auto* grid = new QGridLayout(maps);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(2);
    for (int r = 0; r < RowCount; ++r)
        for (int c = 0; c < ColumnCount; ++c) {
            const auto scale =
                c == Difference ? HeatmapView::Scale::Diverging : HeatmapView::Scale::Sequential;
            views_[r][c] = new HeatmapView(kRowNames[r], scale);
            views_[r][c]->setColourLabel(c == Difference ? "difference" : kColourLabels[r]);
            if (r == Output) views_[r][c]->setAxisTitles("feature", "token");
            views_[r][c]->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
            grid->addWidget(views_[r][c], r, c);
        }
    for (int i = 0; i < 3; ++i) {
        grid->setColumnStretch(i, 1);
        grid->setRowStretch(i, 1);
    }

    dependency_->setColourLabel("output moved (1) or not (0)", {"moved (1)"});
    titleDependencies();
    auto* dep = new QWidget;
    auto* depLayout = new QGridLayout(dep);
    depLayout->setContentsMargins(2, 2, 2, 2);
    depLayout->setSpacing(2);
    // Square cells: a token's row and column the same length, the band of a radius diagonal.
    for (HeatmapView* v : {dependency_, bound_, excess_}) {
        v->setSquareCells(true);
        v->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    }
    // Two by two, the words beside the difference: three square maps in a row would each get a
    // third of the width and leave the page's height empty.
    depLayout->addWidget(dependency_, 0, 0);
    depLayout->addWidget(bound_, 0, 1);
    depLayout->addWidget(excess_, 1, 0);
    dependencySummary_->setWordWrap(true);
    dependencySummary_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    dependencySummary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    depLayout->addWidget(dependencySummary_, 1, 1);
    for (int i = 0; i < 2; ++i) {
        depLayout->setRowStretch(i, 1);
        depLayout->setColumnStretch(i, 1);
    }

    auto* all = new QWidget;
    auto* allLayout = new QVBoxLayout(all);
    auto* allCaption = new QLabel("Attention weights A of the original input: one row per layer, "
                                  "one column per head. Click a map to show it side by side.");
    allCaption->setWordWrap(true);
    allLayout->addWidget(allCaption);
    allLayout->addWidget(overview_, 1);

    tabs_->addTab(maps, "Side by side");
    tabs_->addTab(dep, "Dependencies");
    tabs_->addTab(all, "All layers × heads");
    tabs_->addTab(positions_, "Positions");
    warnings_->setWordWrap(true);
    warnings_->setStyleSheet("color: #b35806;");
    warnings_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(summary_);
    layout->addWidget(warnings_);
    layout->addWidget(tabs_, 1);
    setDependencyReport(nullptr);

    connect(layer_, &QComboBox::currentIndexChanged, this, [this](int l) {
        redraw();
        emit layerChanged(l);
    });
    connect(head_, &QComboBox::currentIndexChanged, this, &ViewsPanel::redraw);
    connect(overview_, &HeadOverviewView::headSelected, this, &ViewsPanel::selectHead);
    connect(tabs_, &QTabWidget::currentChanged, this, &ViewsPanel::redrawPositions);
    connect(perMapScales_, &QCheckBox::toggled, this, &ViewsPanel::shareScales);
    connect(numbers_, &QCheckBox::stateChanged, this, &ViewsPanel::applyNumbers);
}

void ViewsPanel::shareScales() {
    for (const auto& row : views_) {
        const Eigen::MatrixXd& a = row[Original]->matrix().values;
        const Eigen::MatrixXd& b = row[Transformed]->matrix().values;
        const bool share = !perMapScales_->isChecked() && a.size() > 0 && b.size() > 0;
        const auto range =
            share ? std::optional(sharedColourRange(ColourScale::Sequential, a, b)) : std::nullopt;
        row[Original]->setFixedRange(range);
        row[Transformed]->setFixedRange(range);
    }
}

void ViewsPanel::applyNumbers() {
    const Qt::CheckState state = numbers_->checkState();
    const HeatmapView::Numbers mode = state == Qt::Checked     ? HeatmapView::Numbers::On
                                      : state == Qt::Unchecked ? HeatmapView::Numbers::Off
                                                               : HeatmapView::Numbers::Auto;
    for (HeatmapView* v : allViews())
        v->setNumbers(mode);
}

void ViewsPanel::setPresentation(bool on) {
    for (HeatmapView* v : allViews())
        v->setPresentation(on);
}

void ViewsPanel::redrawPositions() {
    if (tabs_->currentWidget() != positions_ || !shown_.sides) return;
    positions_->show(shown_.sides.get(), shown_.layer, shown_.head, shown_.maps[Original].scores);
}

void ViewsPanel::setOverview(std::shared_ptr<const attnlab::HeadOverview> overview) {
    overview_->setOverview(std::move(overview));
    overview_->setCurrent(layer(), head());
    overview_->setEnabled(true);
}

void ViewsPanel::markStale(bool dependencies) {
    viewsStale_ = true;
    for (const auto& row : views_)
        for (HeatmapView* v : row)
            v->setStale(true);
    summary_->setFullText("computing the views of the new input…");
    summary_->setToolTip(QString());
    overview_->setEnabled(false); // greyed: the previous input's heads
    positions_->setEnabled(false);
    if (dependencies) markDependenciesStale();
}

void ViewsPanel::markDependenciesStale() {
    dependencyStale_ = true;
    for (HeatmapView* v : {dependency_, bound_, excess_})
        v->setStale(true);
}

void ViewsPanel::clearViews(const QString& why) {
    sides_.reset();
    shown_ = {};
    viewsStale_ = false;
    for (const auto& row : views_)
        for (HeatmapView* v : row) {
            v->setMatrix({}, "not computed: " + why);
            v->setHighlights({});
            v->setStale(false);
        }
    summary_->setFullText("no views: " + why);
    overview_->setOverview(nullptr); // nothing of the previous input's heads either
}

void ViewsPanel::selectHead(int layer, int head) {
    setLayer(layer);
    redraw(); // the head list of that layer
    if (head >= 0 && head < head_->count()) head_->setCurrentIndex(head);
    tabs_->setCurrentIndex(0);
}

int ViewsPanel::layer() const {
    return std::max(0, layer_->currentIndex());
}
int ViewsPanel::head() const {
    return std::max(0, head_->currentIndex());
}

void ViewsPanel::setLayer(int layer) {
    if (layer >= 0 && layer < layer_->count()) layer_->setCurrentIndex(layer);
}

QList<HeatmapView*> ViewsPanel::allViews() const {
    QList<HeatmapView*> all;
    for (const auto& row : views_)
        for (HeatmapView* v : row)
            all << v;
    return all << dependency_ << bound_ << excess_;
}

void ViewsPanel::setViews(std::shared_ptr<const attnlab::SideBySide> views,
                          const DrawnComparison& drawn) {
    sides_ = std::move(views);
    drawn_ = drawn;
    viewsStale_ = false;
    positions_->setEnabled(true);
    const QSignalBlocker blockLayer(layer_);
    const int layers = int(sides_->original.layers.size());
    const int keep = std::min(layer(), layers - 1);
    layer_->clear();
    for (int l = 0; l < layers; ++l)
        layer_->addItem(QString::number(l));
    layer_->setCurrentIndex(keep);
    // Results that arrive together (rapid edits) are drawn once, on the next turn of the loop.
    if (!redrawPending_) {
        redrawPending_ = true;
        QTimer::singleShot(0, this, [this] {
            redrawPending_ = false;
            redraw();
        });
    }
}

void ViewsPanel::redraw() {
    if (!sides_) return;
    const attnlab::SideBySide& s = *sides_;
    const std::size_t l = std::size_t(layer());
    const int heads = s.headCount(l);
    {
        const QSignalBlocker blockHead(head_);
        const int keep = std::min(head(), heads - 1);
        if (head_->count() != heads) {
            head_->clear();
            for (int h = 0; h < heads; ++h)
                head_->addItem(QString::number(h));
        }
        head_->setCurrentIndex(keep);
    }
    const std::size_t h = std::size_t(head());
    overview_->setCurrent(int(l), int(h));
    const QString columnTitles[] = {QString::fromStdString(s.originalLabel),
                                    QString::fromStdString(s.transformedLabel),
                                    QString::fromStdString(s.differenceLabel)};
    const attnlab::Side sides[] = {attnlab::Side::Original, attnlab::Side::Transformed,
                                   attnlab::Side::Difference};
    const bool last = l + 1 == s.layerCount();
    if (shown_.sides != sides_ || shown_.layer != l || shown_.head != int(h)) {
        shown_ = {sides_, l, int(h), {}};
        for (int c = 0; c < ColumnCount; ++c)
            shown_.maps[std::size_t(c)] = s.head(sides[c], l, int(h));
    }
    for (int c = 0; c < ColumnCount; ++c) {
        const attnlab::SideView& side = s.side(sides[c]);
        for (HeatmapView* v : {views_[Scores][c], views_[Weights][c], views_[Output][c]})
            v->setStale(viewsStale_);
        const attnlab::LayerView& lv = side.layers[l];
        const attnlab::HeadView& maps = shown_.maps[std::size_t(c)];
        views_[Scores][c]->setTitle("S  " + columnTitles[c]);
        const QString empty = QString::fromStdString(side.emptyNote);
        views_[Scores][c]->setMatrix(maps.scores, empty);
        views_[Weights][c]->setTitle("A  " + columnTitles[c]);
        views_[Weights][c]->setMatrix(maps.weights, empty);
        views_[Output][c]->setTitle((last ? "output  " : "layer output  ") + columnTitles[c]);
        views_[Output][c]->setMatrix(lv.output, empty);
        const std::vector<std::string>& labels = side.labels;
        views_[Scores][c]->setAxisLabels(labels, side.columnLabels());
        views_[Weights][c]->setAxisLabels(labels, side.columnLabels());
        views_[Output][c]->setAxisLabels(labels, {});
        const std::vector<BoolMatrix>& masks = s.masksOf(c == Transformed);
        if (c != Difference && l < masks.size()) views_[Weights][c]->setMaskOverlay(masks[l]);
    }
    shareScales();
    if (viewsStale_) return; // the previous input's maps, veiled: no outlines, no summary
    const QString transform = QString::fromStdString(s.transformText);
    const QString summary =
        QString("largest |%1| = %2 · %3 · %4 on %5")
            .arg(QString::fromStdString(s.differenceLabel),
                 QString::fromStdString(s.largestDifference), "%1",
                 QString::fromStdString(std::string(attnlab::precisionName(s.precision))),
                 QString::fromStdString(s.backend.value("backend", std::string("cpu"))));
    // The transformation takes the room the rest leaves on the line (200 px at least): it is
    // elided in its middle, the largest difference first and the precision last stay whole.
    const QFontMetrics metrics(summary_->font());
    const int room = std::max(200, summary_->width() - metrics.horizontalAdvance(summary.arg("")) -
                                       metrics.averageCharWidth());
    summary_->setFullText(summary.arg(metrics.elidedText(transform, Qt::ElideMiddle, room)));
    summary_->setToolTip(transform); // the whole transformation, however long
    QStringList warnings;
    for (const auto& w : s.warnings)
        warnings << QString::fromStdString(w);
    warnings_->setText(warnings.join("\n"));
    warnings_->setVisible(!warnings.isEmpty());

    // Witness outlines for this layer and head, when these maps are the witness's.
    const int layerCount = int(s.layerCount());
    const bool itsMaps = witnessOn_.sameMaps(drawn_);
    // Each side outlines the cell that holds what the witness compares there (row σ(r) of
    // f(X) beside row r of f(P X), for instance).
    for (int r = 0; r < RowCount; ++r) {
        std::array<QList<QPoint>, ColumnCount> cells;
        for (const WitnessCell& w : witness_) {
            const int wl = w.layer < 0 ? layerCount - 1 : w.layer;
            const bool mapMatches = (r == Output && w.map == WitnessCell::Map::Output) ||
                                    (r == Weights && w.map == WitnessCell::Map::Weights) ||
                                    (r == Scores && w.map == WitnessCell::Map::Scores);
            if (!itsMaps || !mapMatches || wl != int(l) || (w.head >= 0 && w.head != int(h)))
                continue;
            const auto onSides = s.witnessCells({w.row, w.column}, r != Output);
            for (int c = 0; c < ColumnCount; ++c)
                if (const auto& cell = onSides[std::size_t(c)])
                    cells[std::size_t(c)] << QPoint(cell->row, cell->column);
        }
        for (int c = 0; c < ColumnCount; ++c)
            views_[r][c]->setHighlights(cells[std::size_t(c)]);
    }
    outlineDependencies();
    redrawPositions();
}

void ViewsPanel::showWitness(const std::vector<WitnessCell>& cells, const DrawnComparison& on) {
    witness_ = cells;
    witnessOn_ = on;
    if (sides_ && !cells.empty()) {
        const WitnessCell& w = cells.front();
        if (w.map == WitnessCell::Map::Dependency) {
            tabs_->setCurrentIndex(1);
        } else {
            tabs_->setCurrentIndex(0);
            const int layers = int(sides_->layerCount());
            const QSignalBlocker block(layer_);
            layer_->setCurrentIndex(w.layer < 0 ? layers - 1 : w.layer);
            if (w.head >= 0) {
                redraw();
                const QSignalBlocker blockHead(head_);
                head_->setCurrentIndex(w.head);
            }
        }
    }
    redraw();
}

void ViewsPanel::outlineDependencies() {
    const bool probe = dependencySource_ == DependencySource::Probe;
    QList<QPoint> cells; // the model's page is of the state, whatever the comparison drawn
    for (const WitnessCell& w : probe ? probeWitness_ : witness_)
        if (w.map == WitnessCell::Map::Dependency &&
            (probe || (sides_ && witnessOn_.state == drawn_.state)))
            cells << QPoint(w.row, w.column);
    dependency_->setHighlights(cells);
    excess_->setHighlights(cells);
    // The tokens' strings where the map is of them (a probe's drawn input is not).
    const std::vector<std::string> none, &labels = sides_ ? sides_->original.labels : none;
    const auto fits = [&](Eigen::Index size) { return Eigen::Index(labels.size()) == size; };
    const Eigen::MatrixXd& map = dependency_->matrix().values;
    for (HeatmapView* v : {dependency_, bound_, excess_})
        v->setAxisLabels(fits(map.rows()) ? labels : none, fits(map.cols()) ? labels : none);
}

void ViewsPanel::showProbeWitness(const std::vector<WitnessCell>& cells) {
    probeWitness_ = cells;
    if (!cells.empty() && cells.front().map == WitnessCell::Map::Dependency)
        tabs_->setCurrentIndex(1);
    outlineDependencies();
}

QString ViewsPanel::dependencySummary() const {
    return dependencySummary_->text();
}

void ViewsPanel::titleDependencies() {
    const bool probe = dependencySource_ == DependencySource::Probe;
    dependency_->setTitle(probe ? "measured by probing" : "measured dependency");
    bound_->setTitle(probe ? "intended mask" : "bound implied by the masks");
    // Short enough for the title's full size over a narrow map; the colour bar says "difference".
    excess_->setTitle(probe ? "+1 leak, −1 dead key" : "measured − bound");
    bound_->setColourLabel(probe ? "allowed by the intended mask (1)" : "allowed by the masks (1)",
                           {"allowed (1)"});
    excess_->setColourLabel(
        probe ? "difference: +1 leak (read though masked), −1 dead key "
                "(allowed, unmoved)"
              : "+1 moved though masked, −1 allowed, unmoved",
        {probe ? "+1 leak, −1 dead key" : "+1 masked yet moved, −1 unmoved", "+1 leak, −1 unused"});
}

namespace {

/// The radius a locality report claims (its band drawn on the maps), or nullopt.
std::optional<int> claimedRadius(const attnlab::PropertyReport& report) {
    const auto r = report.details.find("claimed_radius");
    if (r == report.details.end() || !r->is_number_integer()) return std::nullopt;
    return r->get<int>();
}

/// The radii a locality report measured and claimed, said in words before its explanation.
QString radiusSummary(const attnlab::PropertyReport& report) {
    const auto claimed = claimedRadius(report);
    if (!claimed) return {};
    const nlohmann::json& d = report.details;
    QString text =
        QString("Claimed radius %1 (the dashed band on the maps: outputs that read tokens at "
                "most %1 away)")
            .arg(*claimed);
    if (d.contains("measured_radius") && d["measured_radius"].is_number_integer())
        text += QString(" · measured radius %1").arg(d["measured_radius"].get<int>());
    if (d.contains("bound_radius") && d["bound_radius"].is_number_integer())
        text += QString(" · the masks' bound %1").arg(d["bound_radius"].get<int>());
    return text + ".\n";
}

} // namespace

void ViewsPanel::setDependencyReport(const attnlab::PropertyReport* report,
                                     DependencySource source) {
    const bool probe = source == DependencySource::Probe;
    dependencyStale_ = false;
    for (HeatmapView* v : {dependency_, bound_, excess_})
        v->setStale(false);
    if (source != dependencySource_) {
        dependencySource_ = source;
        probeWitness_.clear();
        titleDependencies();
    }
    const auto maps = report ? dependencyMaps(*report) : std::nullopt;
    if (!maps) {
        // In a word under the empty map; the summary below says the rest.
        dependency_->setMatrix({}, probe ? "not measured yet" : "not run yet");
        bound_->setMatrix({});
        excess_->setMatrix({});
        dependencySummary_->setText(
            probe ? "The probe perturbs each input token of the program and records which of its "
                    "outputs change; the map appears here when the probe has finished."
                  : "The locality check perturbs each input token and records which outputs "
                    "change; it appears here once it has run (as does the map a failing "
                    "causality check measures).");
    } else {
        dependency_->setMatrix(maps->measured);
        bound_->setMatrix(maps->bound);
        excess_->setMatrix(maps->excess,
                           probe ? "no intended mask to compare with" : "no bound to compare with");
        dependencySummary_->setText(radiusSummary(*report) +
                                    QString::fromStdString(report->explanation));
    }
    const std::optional<int> band = report && maps ? claimedRadius(*report) : std::nullopt;
    for (HeatmapView* v : {dependency_, bound_, excess_})
        v->setBand(band);
    outlineDependencies();
}

} // namespace attnlab::ui
