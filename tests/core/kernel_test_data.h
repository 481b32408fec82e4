// SPDX-License-Identifier: GPL-3.0-or-later
// The data of the CPU kernel tests (core.kernels, core.kernel_layouts): every mask kind, random
// inputs, and the fused kernel's error against the reference mixer.
#pragma once

#include "core/backend/cpu/fused_attention.h"
#include "core/backend/head_forward.h"
#include "core/spec/matrix_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace attnlab::test {

/// A custom mask whose row 3 is all-masked.
inline BoolMatrix customCells(int n) {
    BoolMatrix m(n, n);
    for (int s = 0; s < n; ++s)
        for (int t = 0; t < n; ++t)
            m(s, t) = s != 3 && (s * 7 + t * 3) % 5 != 0; // row 3 is all-masked
    return m;
}

/// Every mask kind of properties.md §1.5 over n tokens.
inline std::vector<std::pair<const char*, MaskSpec>> maskCatalogue(int n) {
    return {{"all", MaskSpec::all()},
            {"none", MaskSpec::none()},
            {"causal", MaskSpec::causal()},
            {"window", MaskSpec::window(5)},
            {"causal_window", MaskSpec::causalWindow(9)},
            {"prefix", MaskSpec::prefix(11)},
            {"blocks", MaskSpec::blocks({n / 3, n - n / 3 - 4, 4})},
            {"dilated", MaskSpec::dilated(3, 4)},
            {"global", MaskSpec::global(2, MaskSpec::window(1))},
            {"and", MaskSpec::both({MaskSpec::causal(), MaskSpec::window(6)})},
            {"and_disjoint",
             MaskSpec::both({MaskSpec::causal(), MaskSpec::negation(MaskSpec::causal())})},
            {"or", MaskSpec::either({MaskSpec::window(2), MaskSpec::prefix(3)})},
            {"not", MaskSpec::negation(MaskSpec::causalWindow(2))},
            {"custom", MaskSpec::custom(customCells(n))}};
}

/// Random n x d values (MatrixSpec::random) of a seed.
template <class T>
Matrix<T> data(int rows, int cols, std::uint64_t seed) {
    return MatrixSpec::random(seed).materialize<T>(rows, cols);
}

/// ALiBi's bias matrix, -slope·|s - t| (or -slope·(s - t) when causal).
template <class T>
Matrix<T> aliBias(int n, double slope, bool causal) {
    Matrix<T> b(n, n);
    for (int s = 0; s < n; ++s)
        for (int t = 0; t < n; ++t)
            b(s, t) = T(-slope * (causal ? s - t : std::abs(s - t)));
    return b;
}

/// Largest |fused - reference| relative to the largest |reference| (at least 1).
template <class T>
double fusedError(MixerSpec::Kind kind, const MaskSpec& mask, int n, kernels::KernelTiles tiles,
                  bool alibi, std::vector<int>* masked = nullptr, int depth = 8,
                  int valueWidth = 6) {
    MixerSpec mixer;
    mixer.kind = kind;
    const Matrix<T> q = data<T>(n, depth, 1), k = data<T>(n, depth, 2),
                    v = data<T>(n, valueWidth, 3);
    const Matrix<T> bias = aliBias<T>(n, 0.25, false);
    const HeadResult<T> ref =
        attendHead<T>(mixer, q, k, v, alibi ? &bias : nullptr, buildMask(mask, n));
    std::vector<kernels::HeadInputs<T>> heads{{&q, &k, &v, std::nullopt}};
    if (alibi) heads[0].bias = kernels::DistanceBias{0.25, false};
    const kernels::FusedResult<T> r = kernels::fusedAttention<T>(mixer, mask, heads, tiles);
    if (masked) *masked = r.allMaskedRows;
    if (r.allMaskedRows != ref.allMaskedRows) return 1e300;
    const double scale = std::max(1.0, double(ref.output.cwiseAbs().maxCoeff()));
    return double((r.outputs[0] - ref.output).cwiseAbs().maxCoeff()) / scale;
}

} // namespace attnlab::test
