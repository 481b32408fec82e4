// SPDX-License-Identifier: GPL-3.0-or-later
// A decode step against the full pass it must reproduce (properties.md §2.15): the step's m rows
// of output and m x n weights of every head next to the last m rows of the full pass's, the
// worst entry and the first one beyond the tolerance, and the witness of an entry.
#pragma once

#include "core/checks/comparison.h"
#include "core/checks/witness.h"
#include "core/model/decode.h"

#include <optional>
#include <vector>

namespace attnlab {

/// The decode step's maps and the full pass's last m rows of the same maps: the output first,
/// then the weights of every head, layer by layer.
template <class T>
struct DecodeMaps {
    DecodeStep step;
    int tokens = 0; // n
    struct Map {
        int layer = -1, head = -1; // -1: the model's output
    };
    std::vector<Map> maps;
    std::vector<Matrix<T>> decoded, full;

    /// The decode step of `model` on `x`, next to `fullPass` (the model's forward of `x`, maps
    /// kept). Throws InputError as decode() does.
    DecodeMaps(const Model<T>& model, const Matrix<T>& x, const Trace<T>& fullPass,
               const DecodeStep& s)
        : step(s), tokens(int(x.rows())) {
        const Trace<T> d = decode(model, x, step);
        const Eigen::Index m = step.queries;
        maps.push_back({});
        decoded.push_back(d.output);
        full.push_back(fullPass.output.bottomRows(m));
        for (std::size_t l = 0; l < d.layers.size(); ++l)
            for (std::size_t h = 0; h < d.layers[l].heads.size(); ++h) {
                maps.push_back({int(l), int(h)});
                decoded.push_back(d.layers[l].heads[h].weights);
                full.push_back(fullPass.layers[l].heads[h].weights.bottomRows(m));
            }
    }

    /// The largest difference over every map, and which map holds it.
    ListDeviation<T> compare() const { return compareLists(decoded, full); }

    /// The witness of entry (row, column) of map `index`: its cell on the full pass's maps (row
    /// c + row, the token the query belongs to), m, the alignment, the decode step's row and
    /// both values.
    Witness witness(std::size_t index, Eigen::Index row, Eigen::Index column) const {
        const Map& map = maps.at(index);
        const int cache = tokens - step.queries;
        const WitnessCell cell{map.layer < 0 ? WitnessCell::Map::Output : WitnessCell::Map::Weights,
                               map.layer, map.head, cache + int(row), int(column)};
        return Witness(cell, CellKeys::RowColumn)
            .with("queries", step.queries)
            .with("alignment", alignmentName(step.alignment))
            .with("map", map.layer < 0 ? "output" : "weights")
            .with("decode_row", row)
            .with("decode", scalarJson<T>(decoded[index](row, column)))
            .with("full_pass", scalarJson<T>(full[index](row, column)));
    }

    /// The witness at the largest difference of compare().
    Witness worstWitness() const {
        const ListDeviation<T> d = compare();
        return witness(d.index, d.deviation.row, d.deviation.col);
    }

    /// The witness at the first entry (maps in order, then reading order) that differs by more
    /// than the tolerance for `depth`; nullopt when none does.
    std::optional<Witness> firstWitness(long depth) const {
        const T tol = tolerance<T>(compare().deviation.magnitude, depth);
        for (std::size_t k = 0; k < maps.size(); ++k)
            for (Eigen::Index i = 0; i < decoded[k].rows(); ++i)
                for (Eigen::Index j = 0; j < decoded[k].cols(); ++j)
                    if (absolute<T>(T(decoded[k](i, j) - full[k](i, j))) > tol)
                        return witness(k, i, j);
        return std::nullopt;
    }
};

} // namespace attnlab
