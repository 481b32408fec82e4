// SPDX-License-Identifier: GPL-3.0-or-later
// tiling and chunkwise, declared, and the block size they are drawn with.
#include "core/checks/properties/tiling/tiling_units.h"

#include "core/checks/properties/tiling/tiling_check.h"

#include <algorithm>

namespace attnlab {

namespace {

using BlockKind = PropertyComparison::BlockKind;

/// The witness's block size, the scenario's, else the smallest ragged one.
PropertyComparison blocksComparison(const ComparisonSource& source, BlockKind blocks) {
    const Scenario& s = source.scenario;
    PropertyComparison c;
    c.kind = PropertyComparison::Kind::Blocks;
    c.blocks = blocks;
    const bool chunkwise = blocks == BlockKind::Chunks;
    const std::string key = chunkwise ? "chunk" : "tile";
    std::optional<long> size = firstInteger(source.witness(key));
    if (!size) size = firstInteger(source.parameter(key));
    for (int b = 2; !size && b < s.n(); ++b)
        if (s.n() % b != 0) size = b;
    c.blockSize = int(std::clamp<long>(size.value_or(1), 1, std::max(1, s.n())));
    c.summary = source.displayName + ": " + (chunkwise ? "chunks of " : "key tiles of ") +
                std::to_string(c.blockSize);
    const bool any =
        std::any_of(s.model.layers.begin(), s.model.layers.end(),
                    [&](const LayerSpec& l) { return evaluatedInBlocks(l, chunkwise); });
    if (!any)
        c.note = source.displayName + ": no layer here is " +
                 (chunkwise ? "an ssm layer to scan in chunks" : "an attention layer to tile") +
                 ", so both sides are the same";
    return c;
}

} // namespace

PropertyUnit tilingUnit() {
    return {.check = makeTilingCheck(false),
            .displayName = "tiling",
            .docs = {.guideHeading = "tiling", .section = "2.8"},
            .comparison = [](const ComparisonSource& source) {
                return blocksComparison(source, BlockKind::Tiles);
            }};
}

PropertyUnit chunkwiseUnit() {
    return {.check = makeTilingCheck(true),
            .displayName = "chunkwise",
            .docs = {.guideHeading = "chunkwise", .section = "2.9"},
            .comparison = [](const ComparisonSource& source) {
                return blocksComparison(source, BlockKind::Chunks);
            }};
}

} // namespace attnlab
