// SPDX-License-Identifier: GPL-3.0-or-later
// Splitting a layer into heads for the fused kernel and concatenating the results. A source of
// every variant of the CPU kernels (kernel_variant.h).
#include "core/backend/cpu/kernel_variant.h"

#include <algorithm>

namespace attnlab::kernels::ATTNLAB_CPU_VARIANT {

namespace {
constexpr int kShortSequence = 512; // up to this many keys, key blocks of 64
} // namespace

template <class T>
LayerResult<T> fusedLayerAttention(const LayerTask<T>& task) {
    const auto& [layer, positional, q, k, v, lengths, offset, queryRows, reuse] = task;
    const int heads = layer.heads;
    const auto p = q.cols() / heads, pv = v.cols() / heads;
    std::vector<Matrix<T>> qs, ks, vs;
    for (int h = 0; h < heads; ++h) {
        qs.push_back(q.middleCols(h * p, p));
        ks.push_back(k.middleCols(h * p, p));
        vs.push_back(v.middleCols(h * pv, pv));
        if (positional.kind == PositionalSpec::Kind::Rope) {
            applyRope(qs.back(), positional, offset);
            applyRope(ks.back(), positional, offset);
        }
    }
    std::vector<HeadInputs<T>> inputs(static_cast<std::size_t>(heads));
    for (std::size_t h = 0; h < inputs.size(); ++h) {
        inputs[h] = {&qs[h], &ks[h], &vs[h], std::nullopt};
        if (positional.kind == PositionalSpec::Kind::Alibi)
            inputs[h].bias =
                DistanceBias{double(alibiSlope<T>(positional, int(h), heads)), positional.causal};
    }
    // A layer evaluated over key tiles of length b (flash-style) is the kernel with key blocks b.
    // Short sequences take key blocks of 64: less waste on a causal diagonal (n = 256 causality
    // sweep, one thread: 41 -> 29 ms), the same blocks whether all rows are computed or only the
    // first (a sweep compares them bit for bit).
    KernelTiles tiles;
    const int n = int(k.rows());
    if (layer.mixer.tile > 0)
        tiles.keyBlock = std::min(layer.mixer.tile, n);
    else if (n <= kShortSequence)
        tiles.keyBlock = 64;
    // Only the first rows needed: finer query blocks waste less past them (n = 256 causality
    // sweep: 128 -> 64 rows per block, 24 -> 22 ms).
    if (queryRows >= 0) tiles.queryBlock = 64;
    std::optional<BlockReuse<T>> blocks;
    if (reuse) {
        std::vector<Matrix<T>> outputs;
        for (int h = 0; h < heads; ++h)
            outputs.push_back(reuse->attention.middleCols(h * pv, pv));
        blocks.emplace(std::move(outputs), reuse->changedRows);
    }
    FusedResult<T> r = ATTNLAB_CPU_VARIANT::fusedAttention<T>(
        layer.mixer, layer.mask, inputs, tiles, queryRows, blocks ? &*blocks : nullptr);
    LayerResult<T> result{Matrix<T>(q.rows(), v.cols()), {std::move(r.allMaskedRows)}};
    for (int h = 0; h < heads; ++h)
        result.attention.middleCols(h * pv, pv) = r.outputs[std::size_t(h)];
    return result;
}

template LayerResult<float> fusedLayerAttention<float>(const LayerTask<float>&);
template LayerResult<double> fusedLayerAttention<double>(const LayerTask<double>&);

} // namespace attnlab::kernels::ATTNLAB_CPU_VARIANT
