// SPDX-License-Identifier: GPL-3.0-or-later
// Tile classification of masks from their parameters, and element masks of single tiles.
#include "core/spec/block_classification.h"

#include "core/base/error.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace attnlab::kernels {

long long BlockClassification::boundedEntries() const {
    long long total = 0;
    for (int i = 0; i < tileRows; ++i) {
        const long long rows = std::min(rowTile, n - i * rowTile);
        for (int j = 0; j < tileCols; ++j)
            if (at(i, j) != TileKind::Empty) total += rows * std::min(colTile, n - j * colTile);
    }
    return total;
}

long BlockClassification::count(TileKind kind) const {
    return long(std::count(kinds.begin(), kinds.end(), kind));
}

int BlockClassification::widestTileRow() const {
    int widest = 0;
    for (int i = 0; i < tileRows; ++i) {
        const auto row = kinds.begin() + std::ptrdiff_t(i) * tileCols;
        widest = std::max(widest, int(tileCols - std::count(row, row + tileCols, TileKind::Empty)));
    }
    return widest;
}

long long allowedEntries(const MaskSpec& spec, int n) {
    constexpr int tile = 256;
    const BlockClassification grid = classifyBlocks(spec, n, tile, tile);
    long long total = 0;
    for (int i = 0; i < grid.tileRows; ++i)
        for (int j = 0; j < grid.tileCols; ++j) {
            const int rows = std::min(tile, n - i * tile), cols = std::min(tile, n - j * tile);
            if (grid.at(i, j) == TileKind::Full) total += (long long)rows * cols;
            if (grid.at(i, j) == TileKind::Partial)
                total += tileMask(spec, n, i * tile, rows, j * tile, cols).count();
        }
    return total;
}

namespace {

// A half-open rectangle of query rows [s0, s1) and key columns [t0, t1).
struct Rect {
    long s0, s1, t0, t1;
    bool empty() const { return s0 >= s1 || t0 >= t1; }
};

// The kind of a tile whose allowed entries are those with lo <= s - t <= hi.
TileKind band(const Rect& r, long lo, long hi) {
    const long dmin = r.s0 - (r.t1 - 1), dmax = (r.s1 - 1) - r.t0;
    if (dmax < lo || dmin > hi) return TileKind::Empty;
    return dmin >= lo && dmax <= hi ? TileKind::Full : TileKind::Partial;
}

// Smallest multiple of k that is >= x (k > 0).
long ceilMultiple(long x, long k) {
    const long q = x / k;
    return q * k >= x ? q * k : (q + 1) * k;
}

class Classifier {
public:
    Classifier(const MaskSpec& root, int n) : n_(n) { collect(root); }

    TileKind kind(const MaskSpec& m, const Rect& r) const {
        using K = MaskSpec::Kind;
        switch (m.kind) {
        case K::All:
            return TileKind::Full;
        case K::None:
            return TileKind::Empty;
        case K::Causal:
            return band(r, 0, n_);
        case K::Window:
            return band(r, -long(m.radius), m.radius);
        case K::CausalWindow:
            return band(r, 0, m.radius);
        case K::Prefix: {
            if (r.t0 >= m.length && r.t0 > r.s1 - 1) return TileKind::Empty;
            const bool full = std::max<long>(r.t0, m.length) >= r.t1 || r.t1 - 1 <= r.s0;
            return full ? TileKind::Full : TileKind::Partial;
        }
        case K::Blocks:
            return blocks(m, r);
        case K::Dilated:
            return dilated(m, r);
        case K::Global: {
            const long g = m.count;
            const Rect rest{std::max(r.s0, g), r.s1, std::max(r.t0, g), r.t1};
            if (r.s0 >= g && r.t0 >= g) return kind(m.operands[0], r);
            if (rest.empty() || kind(m.operands[0], rest) == TileKind::Full) return TileKind::Full;
            return TileKind::Partial;
        }
        case K::Not: {
            const TileKind k = kind(m.operands[0], r);
            return k == TileKind::Full    ? TileKind::Empty
                   : k == TileKind::Empty ? TileKind::Full
                                          : TileKind::Partial;
        }
        case K::And:
        case K::Or:
            return combination(m, r);
        case K::Custom:
            return brute(m, r);
        }
        return brute(m, r);
    }

private:
    // and: any empty operand empties the tile, all full fill it; or: the dual. One partial
    // operand among neutral ones decides; several partial ones are resolved entry by entry.
    TileKind combination(const MaskSpec& m, const Rect& r) const {
        const bool conj = m.kind == MaskSpec::Kind::And;
        const TileKind absorbing = conj ? TileKind::Empty : TileKind::Full;
        int partial = 0;
        for (const MaskSpec& op : m.operands) {
            const TileKind k = kind(op, r);
            if (k == absorbing) return absorbing;
            partial += k == TileKind::Partial;
        }
        if (partial == 0) return conj ? TileKind::Full : TileKind::Empty;
        return partial == 1 ? TileKind::Partial : brute(m, r);
    }

    TileKind blocks(const MaskSpec& m, const Rect& r) const {
        const std::vector<long>& ends = ends_.at(&m);
        auto segment = [&](long i) {
            return std::upper_bound(ends.begin(), ends.end(), i) - ends.begin();
        };
        const auto rowFirst = segment(r.s0), rowLast = segment(r.s1 - 1);
        const auto colFirst = segment(r.t0), colLast = segment(r.t1 - 1);
        if (rowLast < colFirst || colLast < rowFirst) return TileKind::Empty;
        const bool one = rowFirst == rowLast && colFirst == colLast && rowFirst == colFirst;
        return one ? TileKind::Full : TileKind::Partial;
    }

    TileKind dilated(const MaskSpec& m, const Rect& r) const {
        const long k = m.dilation, reach = long(m.radius) * k;
        const long dmin = r.s0 - (r.t1 - 1), dmax = (r.s1 - 1) - r.t0;
        const long lo = std::max(dmin, -reach), hi = std::min(dmax, reach);
        if (lo > hi || ceilMultiple(lo, k) > hi) return TileKind::Empty;
        const bool full = band(r, -reach, reach) == TileKind::Full && (k == 1 || dmin == dmax);
        return full ? TileKind::Full : TileKind::Partial;
    }

    TileKind brute(const MaskSpec& m, const Rect& r) const {
        bool any = false, blocked = false;
        for (long s = r.s0; s < r.s1; ++s)
            for (long t = r.t0; t < r.t1; ++t) {
                (m.allowed(int(s), int(t), n_) ? any : blocked) = true;
                if (any && blocked) return TileKind::Partial;
            }
        return any ? TileKind::Full : TileKind::Empty;
    }

    void collect(const MaskSpec& m) {
        if (m.kind == MaskSpec::Kind::Blocks) {
            std::vector<long>& ends = ends_[&m];
            long end = 0;
            for (int size : m.sizes)
                ends.push_back(end += size);
        }
        for (const MaskSpec& op : m.operands)
            collect(op);
    }

    int n_;
    std::unordered_map<const MaskSpec*, std::vector<long>> ends_; // per blocks node: segment ends
};

BlockClassification emptyGrid(int n, int rowTile, int colTile) {
    if (rowTile < 1 || colTile < 1) throw InputError("tile: must be a positive integer");
    BlockClassification c;
    c.n = n;
    c.rowTile = rowTile;
    c.colTile = colTile;
    c.tileRows = (n + rowTile - 1) / rowTile;
    c.tileCols = (n + colTile - 1) / colTile;
    c.kinds.resize(std::size_t(c.tileRows) * std::size_t(c.tileCols));
    return c;
}

Rect tileRect(const BlockClassification& c, int i, int j) {
    return {long(i) * c.rowTile, std::min<long>(long(i + 1) * c.rowTile, c.n), long(j) * c.colTile,
            std::min<long>(long(j + 1) * c.colTile, c.n)};
}

} // namespace

BlockClassification classifyBlocks(const MaskSpec& spec, int n, int rowTile, int colTile) {
    spec.validate(n);
    BlockClassification c = emptyGrid(n, rowTile, colTile);
    const Classifier classifier(spec, n);
    for (int i = 0; i < c.tileRows; ++i)
        for (int j = 0; j < c.tileCols; ++j)
            c.kinds[std::size_t(i) * std::size_t(c.tileCols) + std::size_t(j)] =
                classifier.kind(spec, tileRect(c, i, j));
    return c;
}

BlockClassification classifyBlocks(const BoolMatrix& mask, int rowTile, int colTile) {
    if (mask.rows() != mask.cols()) throw InputError("mask: must be square");
    BlockClassification c = emptyGrid(int(mask.rows()), rowTile, colTile);
    for (int i = 0; i < c.tileRows; ++i)
        for (int j = 0; j < c.tileCols; ++j) {
            const Rect r = tileRect(c, i, j);
            const auto block = mask.block(r.s0, r.t0, r.s1 - r.s0, r.t1 - r.t0);
            c.kinds[std::size_t(i) * std::size_t(c.tileCols) + std::size_t(j)] =
                block.all()   ? TileKind::Full
                : block.any() ? TileKind::Partial
                              : TileKind::Empty;
        }
    return c;
}

namespace {
// The allowed keys of row s as one interval [lo, hi], for the kinds whose rows are intervals.
bool rowInterval(const MaskSpec& m, const std::vector<long>& blockEnds, long s, long& lo,
                 long& hi) {
    using K = MaskSpec::Kind;
    switch (m.kind) {
    case K::All:
        lo = 0, hi = std::numeric_limits<int>::max();
        return true;
    case K::None:
        lo = 1, hi = 0;
        return true;
    case K::Causal:
        lo = 0, hi = s;
        return true;
    case K::Window:
        lo = s - m.radius, hi = s + m.radius;
        return true;
    case K::CausalWindow:
        lo = s - m.radius, hi = s;
        return true;
    case K::Prefix:
        lo = 0, hi = std::max<long>(m.length - 1, s);
        return true;
    case K::Blocks: {
        const auto k = std::upper_bound(blockEnds.begin(), blockEnds.end(), s) - blockEnds.begin();
        lo = k == 0 ? 0 : blockEnds[std::size_t(k - 1)];
        hi = blockEnds[std::size_t(k)] - 1;
        return true;
    }
    default:
        return false;
    }
}
} // namespace

bool rowKeyRanges(const MaskSpec& spec, int s0, int rows,
                  std::vector<std::pair<long, long>>& ranges) {
    std::vector<long> ends;
    long end = 0;
    for (int size : spec.sizes)
        ends.push_back(end += size);
    long lo = 0, hi = 0;
    if (!rowInterval(spec, ends, s0, lo, hi)) return false;
    ranges.resize(std::size_t(rows));
    for (int i = 0; i < rows; ++i) {
        rowInterval(spec, ends, s0 + i, lo, hi);
        ranges[std::size_t(i)] = {lo, hi};
    }
    return true;
}

BoolMatrix tileMask(const MaskSpec& spec, int n, int s0, int rows, int t0, int cols) {
    if (spec.kind == MaskSpec::Kind::Custom) return spec.cells.block(s0, t0, rows, cols);
    BoolMatrix out(rows, cols);
    std::vector<std::pair<long, long>> ranges;
    if (!rowKeyRanges(spec, s0, rows, ranges)) {
        for (int j = 0; j < cols; ++j)
            for (int i = 0; i < rows; ++i)
                out(i, j) = spec.allowed(s0 + i, t0 + j, n);
        return out;
    }
    out.setConstant(false);
    for (int i = 0; i < rows; ++i) {
        const auto [lo, hi] = ranges[std::size_t(i)];
        const long first = std::max<long>(lo, t0), last = std::min<long>(hi, long(t0) + cols - 1);
        if (first <= last) out.row(i).segment(first - t0, last - first + 1).setConstant(true);
    }
    return out;
}

} // namespace attnlab::kernels
