// SPDX-License-Identifier: GPL-3.0-or-later
// Mask construction, evaluation and reachability.
#include "core/spec/mask.h"

#include "core/base/error.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <optional>
#include <sstream>

namespace attnlab {

MaskSpec MaskSpec::window(int r) {
    MaskSpec m = withKind(Kind::Window);
    m.radius = r;
    return m;
}
MaskSpec MaskSpec::causalWindow(int r) {
    MaskSpec m = withKind(Kind::CausalWindow);
    m.radius = r;
    return m;
}
MaskSpec MaskSpec::prefix(int p) {
    MaskSpec m = withKind(Kind::Prefix);
    m.length = p;
    return m;
}
MaskSpec MaskSpec::blocks(std::vector<int> sizes) {
    MaskSpec m = withKind(Kind::Blocks);
    m.sizes = std::move(sizes);
    return m;
}
MaskSpec MaskSpec::dilated(int r, int k) {
    MaskSpec m = withKind(Kind::Dilated);
    m.radius = r;
    m.dilation = k;
    return m;
}
MaskSpec MaskSpec::global(int g, MaskSpec base) {
    MaskSpec m = withKind(Kind::Global);
    m.count = g;
    m.operands.push_back(std::move(base));
    return m;
}
MaskSpec MaskSpec::custom(BoolMatrix cells) {
    MaskSpec m = withKind(Kind::Custom);
    m.cells = std::move(cells);
    return m;
}
MaskSpec MaskSpec::fromFile(BoolMatrix cells, std::string file) {
    MaskSpec m = custom(std::move(cells));
    m.file = std::move(file);
    return m;
}
MaskSpec MaskSpec::both(std::vector<MaskSpec> masks) {
    MaskSpec m = withKind(Kind::And);
    m.operands = std::move(masks);
    return m;
}
MaskSpec MaskSpec::either(std::vector<MaskSpec> masks) {
    MaskSpec m = withKind(Kind::Or);
    m.operands = std::move(masks);
    return m;
}
MaskSpec MaskSpec::negation(MaskSpec mask) {
    MaskSpec m = withKind(Kind::Not);
    m.operands.push_back(std::move(mask));
    return m;
}

namespace {
// Index of the segment that position i falls in, for block-diagonal masks.
int segmentOf(const std::vector<int>& sizes, int i) {
    int end = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        end += sizes[k];
        if (i < end) return static_cast<int>(k);
    }
    return -1;
}

// For the masks that allow a band of diagonals, lowest <= s - t <= highest: that band (the
// difference of two ints never reaches kUnbounded).
constexpr long long kUnbounded = 1LL << 40;
std::optional<std::pair<long long, long long>> diagonalBand(const MaskSpec& spec) {
    using Kind = MaskSpec::Kind;
    switch (spec.kind) {
    case Kind::All:
        return std::pair{-kUnbounded, kUnbounded};
    case Kind::None:
        return std::pair{1LL, 0LL};
    case Kind::Causal:
        return std::pair{0LL, kUnbounded};
    case Kind::Window:
        return std::pair{-(long long)spec.radius, (long long)spec.radius};
    case Kind::CausalWindow:
        return std::pair{0LL, (long long)spec.radius};
    default:
        return std::nullopt;
    }
}

} // namespace

bool MaskSpec::allowed(int s, int t, int n) const {
    if (const auto band = diagonalBand(*this))
        return band->first <= (long long)s - t && (long long)s - t <= band->second;
    switch (kind) {
    case Kind::All:
    case Kind::None:
    case Kind::Causal:
    case Kind::Window:
    case Kind::CausalWindow:
        break; // bands of diagonals, answered above
    case Kind::Prefix:
        return t < length || t <= s;
    case Kind::Blocks:
        return segmentOf(sizes, s) == segmentOf(sizes, t);
    case Kind::Dilated:
        return std::abs(s - t) <= static_cast<long long>(radius) * dilation &&
               (s - t) % dilation == 0;
    case Kind::Global:
        return s < count || t < count || operands[0].allowed(s, t, n);
    case Kind::Custom:
        return cells(s, t);
    case Kind::And:
        for (const auto& m : operands)
            if (!m.allowed(s, t, n)) return false;
        return true;
    case Kind::Or:
        for (const auto& m : operands)
            if (m.allowed(s, t, n)) return true;
        return false;
    case Kind::Not:
        return !operands[0].allowed(s, t, n);
    }
    return false;
}

void MaskSpec::validate(int n) const {
    switch (kind) {
    case Kind::Window:
    case Kind::CausalWindow:
        if (radius < 0) throw InputError("radius: must be a non-negative integer");
        break;
    case Kind::Prefix:
        if (length < 0) throw InputError("length: must be a non-negative integer");
        break;
    case Kind::Dilated:
        if (radius < 0) throw InputError("radius: must be a non-negative integer");
        if (dilation < 1) throw InputError("dilation: must be a positive integer");
        break;
    case Kind::Global:
        if (count < 0) throw InputError("count: must be a non-negative integer");
        break;
    case Kind::Blocks: {
        long total = 0;
        for (int s : sizes) {
            if (s < 1) throw InputError("sizes: every block size must be positive");
            total += s;
        }
        if (total != n)
            throw InputError("sizes: blocks add up to " + std::to_string(total) +
                             ", expected n = " + std::to_string(n));
        break;
    }
    case Kind::Custom: {
        if (cells.rows() == n && cells.cols() == n) break;
        const std::string size =
            std::to_string(cells.rows()) + " x " + std::to_string(cells.cols());
        const std::string expected = std::to_string(n) + " x " + std::to_string(n);
        if (file.empty())
            throw InputError("cells: custom mask is " + size + ", expected " + expected);
        throw InputError("path: " + file + " holds a " + size + " mask, expected " + expected +
                         " for n = " + std::to_string(n) + " tokens");
    }
    case Kind::And:
    case Kind::Or:
        if (operands.empty()) throw InputError("a combination needs at least one mask");
        break;
    default:
        break;
    }
    for (const auto& m : operands)
        m.validate(n);
}

std::string MaskSpec::describe() const {
    auto join = [&](const char* name) {
        std::ostringstream out;
        out << name << '(';
        for (std::size_t k = 0; k < operands.size(); ++k)
            out << (k ? ", " : "") << operands[k].describe();
        out << ')';
        return out.str();
    };
    switch (kind) {
    case Kind::All:
        return "all";
    case Kind::None:
        return "none";
    case Kind::Causal:
        return "causal";
    case Kind::Window:
        return "window(" + std::to_string(radius) + ")";
    case Kind::CausalWindow:
        return "causal_window(" + std::to_string(radius) + ")";
    case Kind::Prefix:
        return "prefix(" + std::to_string(length) + ")";
    case Kind::Blocks: {
        std::string text = "blocks(";
        for (std::size_t k = 0; k < sizes.size(); ++k) {
            if (k) text += ',';
            text += std::to_string(sizes[k]);
        }
        return text + ")";
    }
    case Kind::Dilated:
        return "dilated(" + std::to_string(radius) + ", " + std::to_string(dilation) + ")";
    case Kind::Global:
        return "global(" + std::to_string(count) + ", " + operands[0].describe() + ")";
    case Kind::Custom:
        return file.empty() ? "custom"
                            : "file(" + std::filesystem::path(file).filename().string() + ")";
    case Kind::And:
        return join("and");
    case Kind::Or:
        return join("or");
    case Kind::Not:
        return join("not");
    }
    return "?";
}

bool MaskSpec::operator==(const MaskSpec& o) const {
    const bool sameCells = cells.rows() == o.cells.rows() && cells.cols() == o.cells.cols() &&
                           (cells == o.cells).all();
    return kind == o.kind && radius == o.radius && dilation == o.dilation && length == o.length &&
           count == o.count && sizes == o.sizes && sameCells && file == o.file &&
           operands == o.operands;
}

BoolMatrix buildMask(const MaskSpec& spec, int n) {
    spec.validate(n);
    BoolMatrix m(n, n);
    if (const auto band = diagonalBand(spec)) { // each column's rows t + lowest .. t + highest
        for (int t = 0; t < n; ++t) {
            const long long first = std::max(0LL, t + band->first),
                            last = std::min((long long)n - 1, t + band->second);
            m.col(t).setConstant(false);
            if (first <= last) m.col(t).segment(first, last - first + 1).setConstant(true);
        }
        return m;
    }
    for (int t = 0; t < n; ++t) // down each column: the matrix is column-major
        for (int s = 0; s < n; ++s)
            m(s, t) = spec.allowed(s, t, n);
    return m;
}

std::vector<int> allMaskedRows(const BoolMatrix& mask) {
    std::vector<int> rows;
    for (Eigen::Index s = 0; s < mask.rows(); ++s)
        if (!mask.row(s).any()) rows.push_back(static_cast<int>(s));
    return rows;
}

BoolMatrix booleanProduct(const BoolMatrix& a, const BoolMatrix& b) {
    const Eigen::MatrixXi product = a.cast<int>().matrix() * b.cast<int>().matrix();
    return (product.array() > 0);
}

BoolMatrix reachability(const std::vector<BoolMatrix>& layerMasks) {
    if (layerMasks.empty()) return {};
    const auto n = layerMasks.front().rows();
    BoolMatrix identity = Eigen::MatrixXi::Identity(n, n).array() > 0;
    // The first layer's reach is its mask with the identity: no product (n³) needed.
    BoolMatrix reach = layerMasks.front() || identity;
    for (std::size_t l = 1; l < layerMasks.size(); ++l)
        reach = booleanProduct(layerMasks[l] || identity, reach);
    return reach;
}

int dependencyRadius(const BoolMatrix& map) {
    int radius = -1;
    for (Eigen::Index s = 0; s < map.rows(); ++s)
        for (Eigen::Index t = 0; t < map.cols(); ++t)
            if (map(s, t)) radius = std::max(radius, static_cast<int>(std::abs(s - t)));
    return radius;
}

} // namespace attnlab
