// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer's picture of a scenario: the original input's maps and outputs, the same for the
// transformed input, and the difference f(T x) - T f(x), per layer and head. Values are converted
// to double for drawing, with each entry's exact text kept in exact mode; maps larger than the
// display limit are max-|value| pooled so peaks stay visible. The per-head maps stay in the
// precision they were computed in until a head is drawn (a 12-layer, 12-head model at n = 256
// would otherwise hold 864 maps as doubles). Computed here so that the GUI holds no mathematics.
#pragma once

#include "core/model/model.h"
#include "core/model/scenario.h"
#include "core/spec/transform.h"

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

/// A matrix ready to draw: values, the exact text of each entry (exact mode only) and, when it
/// was pooled, the block of source rows and columns each cell stands for.
struct ViewMatrix {
    Eigen::MatrixXd values;
    std::vector<std::string> exactText; // row-major; empty unless exact and not pooled
    int rowBlock = 1, colBlock = 1;     // > 1: each cell is the max-|value| of such a block
    /// A difference's: the largest |entry| the checks count as rounding (comparison.h's
    /// `tolerance` for these values and the scenario's depth); 0 in exact mode and elsewhere.
    double tolerance = 0;

    /// The entry as text: exact fraction in exact mode, else 9 significant digits.
    std::string text(Eigen::Index row, Eigen::Index col) const;
    bool pooled() const { return rowBlock > 1 || colBlock > 1; }
    /// The same picture: values, exact texts and blocks.
    bool operator==(const ViewMatrix& o) const {
        return rowBlock == o.rowBlock && colBlock == o.colBlock && tolerance == o.tolerance &&
               exactText == o.exactText && values.rows() == o.values.rows() &&
               values.cols() == o.values.cols() && values == o.values;
    }
};

struct HeadView {
    ViewMatrix scores, weights;
};

struct LayerView {
    ViewMatrix output;
};

struct SideView {
    ViewMatrix input; // after absolute positional features
    std::vector<LayerView> layers;
    ViewMatrix output;
    /// The tokens' labels in this side's row order (the rows, and the columns of the maps);
    /// empty when the tokens have none (axes show indices).
    std::vector<std::string> labels;
    /// The keys' labels (the columns of the maps) when they differ from the rows' (a decode
    /// step: its m queries read all n keys); empty: `labels`.
    std::vector<std::string> keyLabels;
    /// What an empty matrix of this side means (e.g. a transposed side has no outputs).
    std::string emptyNote;
    const std::vector<std::string>& columnLabels() const {
        return keyLabels.empty() ? labels : keyLabels;
    }
};

enum class Side { Original, Transformed, Difference };

/// One cell of a drawn map or output.
struct MapCell {
    int row = 0, column = 0;
    bool operator==(const MapCell&) const = default;
};

/// The scores and weights of every layer and head of both sides, kept as computed; a head's
/// views (the difference's too) are made when asked for. Immutable, so any thread may read it.
class HeadMaps {
public:
    virtual ~HeadMaps() = default;
    virtual std::size_t layerCount() const = 0;
    virtual int headCount(std::size_t layer) const = 0;
    /// Head `head` of layer `layer` on `side`, ready to draw.
    virtual HeadView head(Side side, std::size_t layer, int head) const = 0;
    /// Only its weights (the overview's thumbnails).
    virtual ViewMatrix weights(Side side, std::size_t layer, int head) const = 0;
};

struct SideBySide {
    Precision precision = Precision::Float64;
    SideView original, transformed, difference;
    std::shared_ptr<const HeadMaps> maps;     // the per-head maps of all three sides
    std::vector<BoolMatrix> masks;            // per layer, n x n (empty when n is above the limit)
    std::vector<std::vector<int>> maskedRows; // per layer: rows with no allowed key
    /// Per layer, the transformed side's m x n masks when its maps are not n x n (a decode
    /// step); empty: `masks` serve both sides.
    std::vector<BoolMatrix> transformedMasks;
    const std::vector<BoolMatrix>& masksOf(bool transformed) const {
        return transformed && !transformedMasks.empty() ? transformedMasks : masks;
    }
    std::string originalLabel = "f(X)"; // "f(X)", "f(X) in a batch of 4", ...
    std::string
        transformedLabel; // "f(P X)", "f(X) at positions + 3", "decode 4 of 6, top-left", ...
    std::string differenceLabel;   // "f(P X) - P f(X)", ...
    std::string transformText;     // "σ = (0 1)", "shift by 3", "X[2][0] += 1/2"
    std::string largestDifference; // largest |entry| of the output difference, as text
    /// Row r of the transformed side (and of the difference) is compared with row
    /// carriedRows[r] of the original: σ(r) for a permutation (row r of P f(X) is row σ(r) of
    /// f(X)), c + r for a decode step after a cache of c; empty: the same row.
    std::vector<int> carriedRows;
    /// Whether the maps' columns (keys) are carried the same way (a permutation's P A Pᵀ).
    bool carriedKeys = false;
    /// Whether a witness names its row on the original side (a decode step's names the full
    /// pass's row), rather than on the transformed side and the difference.
    bool witnessRowsOriginal = false;
    std::vector<std::string> warnings;
    nlohmann::json backend; // where the original side ran (run_report.h's backendJson shape)
    /// What the Positions page draws from (positional_term.h): the method, the tokens' width
    /// and, per layer, the width of one head's queries.
    PositionalSpec positional;
    int tokenWidth = 0;
    std::vector<int> headWidths;

    const SideView& side(Side s) const {
        return s == Side::Original ? original : s == Side::Transformed ? transformed : difference;
    }
    std::size_t layerCount() const { return maps ? maps->layerCount() : 0; }
    int headCount(std::size_t layer) const { return maps ? maps->headCount(layer) : 0; }
    HeadView head(Side s, std::size_t layer, int h) const { return maps->head(s, layer, h); }
    /// Per side (Original, Transformed, Difference), the cell holding what a witness at `cell`
    /// compares there: on a map (`onMap`: scores or weights, whose columns are keys) or an
    /// output (whose columns are features). nullopt where that side has no such row (a decode
    /// step's cached rows).
    std::array<std::optional<MapCell>, 3> witnessCells(MapCell cell, bool onMap) const;
};

/// Largest side of a drawn matrix; bigger ones are pooled.
inline constexpr int kViewLimit = 1024;

/// A matrix ready to draw: max-|value| pooled above kViewLimit, exact text kept in exact mode.
template <class T>
ViewMatrix view(const Matrix<T>& m);

/// Computes both sides and their difference on the scenario's backend (heads a device does not
/// take run on the CPU, with a notice). Throws InputError when the scenario
/// or the transformation does not fit (e.g. a perturbed token outside 0..n-1).
SideBySide compareSides(const Scenario& scenario, const Transform& transform);

/// One side of compareEvaluations: how it evaluates the scenario's tokens.
struct Evaluated {
    /// Another evaluation of the scenario's model (e.g. over key tiles); empty: the scenario's.
    std::optional<ModelSpec> model;
    Evaluation how; // e.g. split across tensor-parallel parts, or the unmasked code path
    /// Whether the maps are formed; without, the side runs the way long sequences do (the fused
    /// kernel) and has outputs only. The original side always forms them.
    bool maps = true;
    /// The tokens evaluated as the first sequence of one batch with these after them (the batch
    /// properties); empty: alone.
    std::vector<TokenSpec> batchMates;
};

/// The scenario's tokens evaluated two ways: both sides' maps and outputs and their difference
/// (labels left to the caller). Throws InputError as compareSides does.
SideBySide compareEvaluations(const Scenario& scenario, const Evaluated& original,
                              const Evaluated& other);

/// Every head's scores S beside their transpose Sᵀ (weights likewise, masks transposed) and the
/// difference Sᵀ − S (titled "transposed − f(X)"); the transposed and difference sides have no
/// input or outputs (their `emptyNote` says so). Throws InputError when the maps would not fit in
/// memory.
SideBySide compareTransposed(const Scenario& scenario);

} // namespace attnlab
