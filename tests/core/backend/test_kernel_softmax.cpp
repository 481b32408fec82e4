// SPDX-License-Identifier: GPL-3.0-or-later
// The fused CPU kernel's online softmax against its references, float and double: scores that
// move each query's shift in every tile, scores past the whole shifts' limit (against the exact
// softmax), and the AVX-512 score product's exp in its registers against the second pass, bit
// for bit. ctest runs it on every variant of the CPU kernels this CPU has (ATTNLAB_CPU_PATH,
// kernel_dispatch.h).
#include "core/backend/cpu/fused_attention.h"
#include "core/backend/cpu/softmax_column.h"
#include "core/backend/head_forward.h"
#include "core/kernel_test_data.h"
#include "core/spec/mask.h"
#include "core/test_support.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>
#include <utility>

using namespace attnlab;
using namespace attnlab::kernels;
using namespace attnlab::test;

namespace {

// Whole numbers over d = 4 (scale 1/2): scores ±t/2 give or take a few for key t, up to 152
// (219 in the kernels' base 2: past 128 above the shift, float's 2^x overflows, so a shift left
// behind is no number).
// Rising for even queries, falling for odd ones. The last key block is whole packets (n = 304:
// 48 keys of blocks of 64 or 128).
template <class T>
void risingScores(Matrix<T>& q, Matrix<T>& k, int n) {
    q.resize(n, 4);
    k.resize(n, 4);
    for (int s = 0; s < n; ++s) {
        q.row(s) << T(s % 2 ? -1 : 1), T(s % 3 - 1), T(0), T(1);
        k.row(s) << T(s), T(s % 5), T(s % 7 - 3), T(s % 3);
    }
}

// Scores far past kWholeShiftLimit (2^21 in float, 2^50 in double), whose shifts the kernels
// subtract before the 2^x, with several keys of each query in its softmax: at the scale ln(2)
// the kernels' base-2 scores are q·k itself (ln(2)·log2(e) rounds to 1), here
// top + σ·4·(t % 7 + t / 8) for key t, top = 3·2^24 in float and 3·2^53 in double, where the
// spacing is 4: every product and sum is exact, and the 2^x without the subtraction would not be
// (roundWithBias - shift is no number there). The scores rise along the keys for even queries
// (σ = 1; up to 43 steps of 4, so the shift moves) and fall for odd ones (σ = -1). The expected
// output is the exact softmax of those numbers, in long double: Σ 2^(S - max)·V / Σ 2^(S - max)
// over the allowed keys.
template <class T>
void checkHugeScores(double tolerance) {
    const int n = 304;
    const bool single = std::is_same_v<T, float>;
    const T gain = T(3 * std::ldexp(1.0, single ? 19 : 48)), unit = T(4);
    QVERIFY(gain * 32 > 2 * kWholeShiftLimit<T>);
    const auto rise = [](int t) { return t % 7 + t / 8; };
    Matrix<T> q = Matrix<T>::Zero(n, 4), k = Matrix<T>::Zero(n, 4);
    for (int s = 0; s < n; ++s) {
        q.row(s).head(2) << gain, s % 2 ? -unit : unit;
        k.row(s).head(2) << T(32), T(rise(s));
    }
    const Matrix<T> v = data<T>(n, 5, 4);
    MixerSpec softmax;
    softmax.scale = Rational(std::numbers::ln2);
    for (const MaskSpec& mask : {MaskSpec::all(), MaskSpec::causal(), MaskSpec::window(40)}) {
        const BoolMatrix allowed = buildMask(mask, n);
        Matrix<T> expected(n, 5);
        for (int s = 0; s < n; ++s) {
            const auto score = [&](int t) { return (s % 2 ? -1 : 1) * rise(t); }; // in units
            int top = std::numeric_limits<int>::min();
            for (int t = 0; t < n; ++t)
                if (allowed(s, t)) top = std::max(top, score(t));
            long double total = 0;
            Eigen::Matrix<long double, 1, 5> sum = Eigen::Matrix<long double, 1, 5>::Zero();
            for (int t = 0; t < n; ++t)
                if (allowed(s, t)) {
                    const long double w = std::exp2((long double)(unit) * (score(t) - top));
                    total += w;
                    sum += w * v.row(t).template cast<long double>();
                }
            expected.row(s) = (sum / total).template cast<T>();
        }
        for (KernelTiles tiles : {KernelTiles{}, KernelTiles{8, 16}, KernelTiles{64, 32}}) {
            const Matrix<T> out =
                fusedAttention<T>(softmax, mask, {{&q, &k, &v, {}}}, tiles).outputs.front();
            QVERIFY2((out - expected).cwiseAbs().maxCoeff() < tolerance,
                     qPrintable(QString("%1, tiles %2 x %3")
                                    .arg(QString::fromStdString(mask.describe()))
                                    .arg(tiles.queryBlock)
                                    .arg(tiles.keyBlock)));
        }
    }
}

template <class T>
void checkRisingScores(double tolerance) {
    const int n = 304;
    Matrix<T> q, k;
    risingScores(q, k, n);
    const Matrix<T> v = data<T>(n, 5, 4);
    const MixerSpec softmax;
    for (const MaskSpec& mask : {MaskSpec::all(), MaskSpec::causal(), MaskSpec::window(40)}) {
        const Matrix<T> expected =
            attendHead<T>(softmax, q, k, v, nullptr, buildMask(mask, n)).output;
        for (KernelTiles tiles : {KernelTiles{}, KernelTiles{8, 16}, KernelTiles{64, 32}}) {
            const Matrix<T> out =
                fusedAttention<T>(softmax, mask, {{&q, &k, &v, {}}}, tiles).outputs.front();
            QVERIFY((out - expected).cwiseAbs().maxCoeff() < tolerance);
        }
    }
}

// The kernel with and without a distance bias of slope 0, which leaves every score as it is
// but keeps the score product from exponentiating (exponentiable): the same bits, on random
// scores and on rising ones (whose shift moves in the tiles exponentiated), for masks with full
// tiles, with key blocks packed first and on use.
template <class T>
void checkExpInProductIsTheSecondPass() {
    const int n = 304;
    Matrix<T> risingQ, risingK;
    risingScores(risingQ, risingK, n);
    const Matrix<T> q = data<T>(n, 16, 1), k = data<T>(n, 16, 2), v = data<T>(n, 5, 4);
    const MixerSpec softmax;
    for (const MaskSpec& mask : {MaskSpec::all(), MaskSpec::causal(), MaskSpec::window(20)})
        for (KernelTiles tiles : {KernelTiles{}, KernelTiles{16, 16}, KernelTiles{64, 32}})
            for (const auto& [qs, ks] :
                 {std::pair{&q, &k}, std::pair{&std::as_const(risingQ), &std::as_const(risingK)}}) {
                const HeadInputs<T> plain{qs, ks, &v, {}};
                HeadInputs<T> biased = plain;
                biased.bias = DistanceBias{0.0, false};
                const Matrix<T> fused = fusedAttention<T>(softmax, mask, {plain}, tiles).outputs[0];
                const Matrix<T> twoPass =
                    fusedAttention<T>(softmax, mask, {biased}, tiles).outputs[0];
                QVERIFY(sameBits(fused, twoPass));
            }
}

} // namespace

class TestKernelSoftmax : public QObject {
    Q_OBJECT

private slots:
    // Scores that rise along the keys by more than kShiftSlack per tile for half the queries
    // (their shift moves in every tile) and fall for the others, over a sequence that is no
    // multiple of the tile: the kernel equals the reference. With AVX-512 the score product
    // exponentiates each tile whose keys are all allowed, and the queries whose shift must move
    // take that tile again.
    void risingScoresEqualReference() {
        checkRisingScores<float>(2e-5);
        checkRisingScores<double>(1e-12);
    }

    // Scores past the whole shifts' limit, several keys in each query's softmax: the kernel
    // subtracts each query's shift before its 2^x, and equals the exact softmax.
    void hugeScoresEqualTheExactSoftmax() {
        checkHugeScores<float>(2e-5);
        checkHugeScores<double>(1e-12);
    }

    // With AVX-512 the score product exponentiates each tile whose keys are all allowed, doing
    // the second pass's steps in its registers: the same bits as that pass.
    void expInProductIsTheSecondPass() {
        checkExpInProductIsTheSecondPass<float>();
        checkExpInProductIsTheSecondPass<double>();
    }
};

QTEST_MAIN(TestKernelSoftmax)
#include "test_kernel_softmax.moc"
