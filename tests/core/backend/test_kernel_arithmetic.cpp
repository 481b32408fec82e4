// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU kernels' arithmetic, on the variant this CPU runs (ctest runs it again on each lower
// variant): the register-blocked product's rows independent of the call, the online softmax's
// 2^x (accurate, exactly 0 for blocked keys and at or below its floor, never subnormal), and the
// model's matrix product the same on any number of threads.
#include "core/backend/cpu/fused_attention.h"
#include "core/backend/cpu/matrix_product.h"
#include "core/backend/cpu/packed_head.h"
#include "core/backend/cpu/softmax_column.h"
#include "core/kernel_test_data.h"
#include "core/model/matrix_times.h"
#include "core/spec/matrix_spec.h"
#include "core/test_support.h"

#include <QtTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace attnlab;
using namespace attnlab::kernels;

namespace {

Matrix<float> random(int rows, int cols, std::uint64_t seed) {
    return MatrixSpec::random(seed).materialize<float>(rows, cols);
}

} // namespace

class TestKernelArithmetic : public QObject {
    Q_OBJECT

private slots:
    // A blocked key has weight exactly 0, not the smallest value a vectorised exp reaches: a huge
    // value behind the mask must not leak into any output row (it did, by 1e-39 of it, while
    // also taking the processor's slow subnormal path).
    void aBlockedKeysValueNeverReachesTheOutput() {
        const int n = 40;
        const Matrix<float> q = random(n, 8, 1), k = random(n, 8, 2);
        Matrix<float> v = random(n, 4, 3);
        const MixerSpec softmax;
        for (KernelTiles tiles : {KernelTiles{8, 16}, KernelTiles{}}) {
            Matrix<float> huge = v;
            huge.row(n - 1).setConstant(3e38f); // allowed to the last query only (causal)
            const Matrix<float> plain =
                fusedAttention<float>(softmax, MaskSpec::causal(), {{&q, &k, &v, {}}}, tiles)
                    .outputs.front();
            const Matrix<float> withHuge =
                fusedAttention<float>(softmax, MaskSpec::causal(), {{&q, &k, &huge, {}}}, tiles)
                    .outputs.front();
            QVERIFY(withHuge.topRows(n - 1) == plain.topRows(n - 1));
        }
    }

    // The same through the fused kernel, so on the variant this CPU runs (ctest runs
    // core.kernels on each): one query against keys whose scores fall from 0 to -100 (the
    // maximum first, so each weight is exp(score) over the sum) or rise to 0 (the maximum last,
    // so earlier tiles are rescaled as it moves). With V the identity, the output row is the
    // weights: within float rounding of softmax in double where the score is above -80, and in
    // the first order exactly 0 at or below the floor (2^-125.5 = e^-86.99).
    void fusedWeightsFollowExpDownToTheFloor() {
        const int n = 200;
        const Matrix<float> q = Matrix<float>::Ones(n, 1);
        const Matrix<float> v = Matrix<float>::Identity(n, n);
        for (const bool maximumFirst : {true, false}) {
            Matrix<float> k(n, 1);
            for (int t = 0; t < n; ++t)
                k(t, 0) = -100.0f * float(maximumFirst ? t : n - 1 - t) / float(n - 1);
            Eigen::ArrayXd exact = k.col(0).cast<double>().array().exp();
            exact /= exact.sum();
            for (KernelTiles tiles : {KernelTiles{16, 16}, KernelTiles{}}) {
                const Matrix<float> w =
                    fusedAttention<float>(MixerSpec{}, MaskSpec::all(), {{&q, &k, &v, {}}}, tiles)
                        .outputs.front();
                for (int t = 0; t < n; ++t) {
                    const double score = k(t, 0), got = w(n - 1, t);
                    const QString where =
                        QString("score %1: %2, softmax %3").arg(score).arg(got).arg(exact(t));
                    if (score >= -80)
                        QVERIFY2(std::abs(got - exact(t)) <= 2e-5 * exact(t), qPrintable(where));
                    else if (maximumFirst && score < -87)
                        QVERIFY2(got == 0, qPrintable(where));
                    QVERIFY2(std::isfinite(got) && got >= 0, qPrintable(where));
                }
            }
        }
    }

    // The fused kernel's one product: equal to Eigen's up to rounding, and each row of C the
    // same bits whatever rows and columns the call has (a query block of 64 or of 128, a key
    // range that starts inside a strip of the panel), with an odd number of rows, a remainder of
    // vectors, strips of several widths and a depth that is no multiple of anything; B's rows
    // from k0 on are the product over those rows.
    void blockProductRowsDoNotDependOnTheCall() {
        using RowMajor = RowMajorMatrix<float>;
        constexpr int L = kLanes<float>;
        const int rows = 13, depth = 37, vectors = 2 * kTileVectors + 3, width = vectors * L;
        const RowMajor a = random(rows, depth, 1);
        const Matrix<float> b = random(depth, width, 2);
        const PackedValues<float> packed(b); // one panel row per row of b
        QCOMPARE(*packed.panel().at(5, 3 * L + 1), b(5, 3 * L + 1));
        RowMajor whole(rows, width);
        blockProduct(false, rows, depth, a.data(), depth, packed.panel(), 0, 0, vectors,
                     whole.data(), width);
        QVERIFY(((whole - a * b).cwiseAbs().array() < 1e-5f).all());
        for (int first : {0, 5, 12})
            for (const auto& [v0, v1] : {std::pair{3, 4}, std::pair{1, vectors - 1}}) {
                RowMajor part(1, (v1 - v0) * L);
                blockProduct(false, 1, depth, a.row(first).data(), depth, packed.panel(), 0, v0, v1,
                             part.data(), part.cols());
                QVERIFY(part.row(0) == whole.row(first).segment(v0 * L, part.cols()));
            }
        RowMajor twice = whole; // accumulate adds the whole sum to C at the end
        blockProduct(true, rows, depth, a.data(), depth, packed.panel(), 0, 0, vectors,
                     twice.data(), width);
        QVERIFY(twice == whole + whole);
        const int k0 = 11;
        RowMajor tail(rows, width);
        blockProduct(false, rows, depth - k0, a.data() + k0, depth, packed.panel(), k0, 0, vectors,
                     tail.data(), width);
        const RowMajor expected = a.rightCols(depth - k0) * b.bottomRows(depth - k0);
        QVERIFY(((tail - expected).cwiseAbs().array() < 1e-5f).all());
    }

    // The online softmax's 2^x over a column of base-2 scores, float and double, as compiled for
    // this test (the x86-64 baseline's SSE2 by default, the -march of a build with ATTNLAB_ARCH;
    // the variants' own run in core.kernels on each variant): 2^x within 2 ulp where it is a
    // normal number, exactly 0 for a blocked key (-inf) and at or below the floor (-125.5,
    // -1021.5: never a subnormal weight, which would send the product with V down the slow path),
    // NaN kept; the sum is of what was stored. At whole shifts (3 and ±kWholeShiftLimit), whose
    // scores are taken as they are, and at shifts from which they are subtracted first: one not
    // whole (0.5), and a whole one past kWholeShiftLimit.
    void softmaxExpIsExpWithoutSubnormals_data() {
        QTest::addColumn<bool>("single");
        QTest::newRow("float") << true;
        QTest::newRow("double") << false;
    }
    void softmaxExpIsExpWithoutSubnormals() {
        QFETCH(bool, single);
        const double limit = single ? kWholeShiftLimit<float> : kWholeShiftLimit<double>;
        for (const double shift : {3.0, limit, -limit, 0.5, -2.0 * limit})
            if (single)
                checkSoftmaxExp<float>(std::bit_cast<float>(0x7fc001ffu), float(shift));
            else
                checkSoftmaxExp<double>(std::bit_cast<double>(0x7ff80000000001ffull), shift);
    }

    // Eigen's steps for 2^x (its exp of r·ln(2) and its ldexp by m = round(x)), which the kernels
    // take where a type has no steps of their own (double without a 64-bit vector shift: AVX
    // without AVX2, built by no CI configuration), run on this build's packets: the same
    // contract as the kernels' own steps.
    void exp2OnEigensStepsKeepsTheContract_data() { softmaxExpIsExpWithoutSubnormals_data(); }
    void exp2OnEigensStepsKeepsTheContract() {
        QFETCH(bool, single);
        if (single)
            checkEigenExp2<float>();
        else
            checkEigenExp2<double>();
    }

    // The online softmax's shift over one tile's column: from none (-inf), the column's largest
    // score rounded up to a whole number, with nothing rescaled; kept for a score up to
    // kShiftSlack above it (whose weight is then above 1: 2^5 at 5 above), moved by one 8.5 above;
    // moved once, to the largest score from the first packet with a score past the slack on,
    // rounded up, with the weights before it, the sum and the caller's sums rescaled by
    // 2^(old - new). Each weight is 2^(score - final shift), 0 where that is below the smallest
    // normal number (a weight the move takes there, too).
    void softmaxShiftMovesOnlyPastTheSlack_data() { softmaxExpIsExpWithoutSubnormals_data(); }
    void softmaxShiftMovesOnlyPastTheSlack() {
        QFETCH(bool, single);
        if (single)
            checkShiftMoves<float>();
        else
            checkShiftMoves<double>();
    }

    // The score product finished with ExpOfScores is the product followed by expAndSum, bit for
    // bit, for every query whose scores stay within its shift + kShiftSlack: the same weights and
    // the same sum packet, added to what it held. Exactly the other queries are marked raised.
    void productFinishedWithExpIsExpAndSum_data() { softmaxExpIsExpWithoutSubnormals_data(); }
    void productFinishedWithExpIsExpAndSum() {
        QFETCH(bool, single);
        if (single)
            checkProductFinishedWithExp<float>();
        else
            checkProductFinishedWithExp<double>();
    }

    // The projections' product in blocks of rows and columns fixed by the shape: a long, narrow
    // product (three row blocks, two column blocks) has the same bits on one thread as on two,
    // and is a·b.
    void productIsTheSameOnAnyThreadCount() {
#ifndef _OPENMP
        QSKIP("built without OpenMP: one thread only");
#else
        const Matrix<float> a = random(3100, 70, 7), b = random(70, 200, 8);
        const int threads = omp_get_max_threads();
        omp_set_num_threads(1);
        const Matrix<float> serial = product<float>({a, false}, {b, false});
        omp_set_num_threads(2);
        const Matrix<float> threaded = product<float>({a, false}, {b, false});
        omp_set_num_threads(threads);
        QVERIFY(threaded == serial);
        const Eigen::MatrixXd exact = a.cast<double>() * b.cast<double>();
        QVERIFY((serial.cast<double>() - exact).cwiseAbs().maxCoeff() < 1e-4);
#endif
    }

    // A transposed factor is read where it lies, in the same blocks (split along its columns when
    // it is the left one), and packed by Eigen's product as the transpose made first would be: the
    // same bits as the product of the transposes made first, in each position, on every variant.
    void transposedFactorsEqualTransposesMadeFirst() {
        const Matrix<double> a = random(70, 3100, 9).cast<double>(),
                             b = random(200, 70, 10).cast<double>();
        const Matrix<double> at = a.transpose(), bt = b.transpose();
        const Matrix<double> expected = product<double>({at, false}, {bt, false});
        QVERIFY(product<double>({a, true}, {bt, false}) == expected);
        QVERIFY(product<double>({at, false}, {b, true}) == expected);
        QVERIFY(product<double>({a, true}, {b, true}) == expected);
        QVERIFY(times<double>(a.transpose(), b.transpose()) == expected);
        const Eigen::MatrixXd exact = at * bt;
        QVERIFY((expected - exact).cwiseAbs().maxCoeff() < 1e-9);
    }

private:
    // expAndSum over keys [0, hi) of x at a shift no score is above: the sum of what it stored.
    template <class T>
    static T expAndSumAt(std::vector<T>& x, int cols, T shift, int hi = -1) {
        Packet<T> sum = Eigen::internal::pset1<Packet<T>>(T(0));
        T moved = shift;
        bool rescaled = false;
        expAndSum(x.data(), 0, hi < 0 ? cols : hi, cols, moved, sum, [&](T) { rescaled = true; });
        if (rescaled || moved != shift) QTest::qFail("the shift moved", __FILE__, __LINE__);
        return Eigen::internal::predux(sum);
    }

    template <class T>
    static void checkShiftMoves() {
        constexpr int L = kLanes<T>;
        constexpr T minusInf = -std::numeric_limits<T>::infinity();
        const int cols = 8 * L + 3;
        std::vector<T> scores(std::size_t(paddedToLanes<T>(cols)), T(0));
        for (int k = 0; k < cols; ++k)
            scores[std::size_t(k)] = T(-0.25) * T(k % 7);
        scores[1] = T(-100);                       // 2^-100 is normal in float, 2^-131 not
        scores[std::size_t(L + 2)] = T(5);         // within the slack of the shift 0
        scores[std::size_t(4 * L + 1)] = T(30);    // past it: the shift moves ...
        scores[std::size_t(6 * L + 5)] = T(30.75); // ... to the largest from there on, rounded up
        for (const T start : {T(0), minusInf}) {
            std::vector<T> x = scores;
            T shift = start;
            Packet<T> sum = Eigen::internal::pset1<Packet<T>>(T(0));
            int moves = 0;
            T told = 0;
            expAndSum(x.data(), 0, cols, cols, shift, sum, [&](T factor) {
                ++moves;
                told = factor;
            });
            QCOMPARE(shift, T(31));
            QCOMPARE(moves, start == minusInf ? 0 : 1);
            if (moves == 1) QCOMPARE(told, std::exp2(T(-31)));
            long double stored = 0;
            for (int k = 0; k < cols; ++k) {
                const long double exact = std::exp2((long double)scores[std::size_t(k)] - 31.0L);
                const T got = x[std::size_t(k)];
                const QString where = QString("key %1: %2").arg(k).arg(double(got));
                if (exact <= std::exp2(kExp2Floor<T>))
                    QVERIFY2(got == T(0), qPrintable(where));
                else
                    QVERIFY2(std::abs(got - exact) <=
                                 4.0L * exact * std::numeric_limits<T>::epsilon(),
                             qPrintable(where));
                stored += got;
            }
            QVERIFY(std::abs(Eigen::internal::predux(sum) - stored) <= 1e-6L * stored);
        }
        // Within the slack: without the 30 and 31 the shift 0 stays, and the 5 weighs 2^5; a
        // score just past the slack moves it.
        std::vector<T> within = scores;
        within[std::size_t(4 * L + 1)] = within[std::size_t(6 * L + 5)] = T(0);
        for (const T top : {T(5), T(8.5)}) {
            std::vector<T> x = within;
            x[std::size_t(L + 2)] = top;
            T shift = 0;
            Packet<T> sum = Eigen::internal::pset1<Packet<T>>(T(0));
            int moves = 0;
            expAndSum(x.data(), 0, cols, cols, shift, sum, [&](T) { ++moves; });
            const bool past = top > T(8); // the slack, kShiftSlack
            QCOMPARE(moves, past ? 1 : 0);
            QCOMPARE(shift, past ? std::ceil(top) : T(0));
            const long double weight = std::exp2((long double)top - (long double)shift);
            QVERIFY(std::abs(x[std::size_t(L + 2)] - weight) <=
                    2.0L * weight * std::numeric_limits<T>::epsilon());
        }
    }

    template <class T>
    static void checkProductFinishedWithExp() {
        if constexpr (softmax_column_detail::Exp2Steps<T>::own)
            checkProductFinishedWithOwnExp<T>();
        else
            QSKIP("double has no 2^x steps of its own on this build (no 64-bit vector shift): "
                  "the score product never exponentiates");
    }

    template <class T>
    static void checkProductFinishedWithOwnExp() {
        using RowMajor = RowMajorMatrix<T>;
        constexpr int L = kLanes<T>;
        const int rows = 13, depth = 9, vectors = 2 * kTileVectors + 1, cols = vectors * L;
        RowMajor a = test::data<T>(rows, depth, 1) * T(3);
        a.row(11).setZero(); // scores all 0: its whole largest score puts its shift at the slack
        const Matrix<T> b = test::data<T>(depth, cols, 2);
        const PackedValues<T> keys(b); // one panel row per depth
        RowMajor scores(rows, cols);
        blockProduct(false, rows, depth, a.data(), depth, keys.panel(), 0, 0, vectors,
                     scores.data(), cols);
        // Shifts around each query's largest score, rounded up to a whole number as the online
        // softmax sets them (ExpOfScores takes the scores as they are): 2 below it
        // (within the slack), the slack below it (within it; exactly at it for query 11), one above
        // it, 20 below it (past the slack: raised), and far above it (every weight at or below the
        // floor, in float and in double: 0).
        std::vector<T> shift(std::size_t(rows), T(0));
        bool past[rows] = {};
        for (int i = 0; i < rows; ++i) {
            const T top = scores.row(i).maxCoeff();
            const T below[] = {T(2), kShiftSlack<T>, T(-1), T(20), T(-1100)};
            shift[std::size_t(i)] = std::ceil(top) - below[i % 5];
            QVERIFY(takesScoresAsTheyAre(shift[std::size_t(i)]));
            past[i] = top > shift[std::size_t(i)] + kShiftSlack<T>;
        }
        QVERIFY(!past[0] && past[3] && !past[11] && shift[11] == -kShiftSlack<T>);
        const Matrix<T> before = test::data<T>(L, rows, 3);
        Matrix<T> sums = before;
        bool raised[rows] = {};
        raised[0] = true; // marks are only added: query 0 keeps its mark
        RowMajor weights(rows, cols);
        blockProduct(rows, depth, a.data(), depth, keys.panel(), 0, 0, vectors, weights.data(),
                     cols, ExpOfScores<T>{shift.data(), sums.data(), raised});
        QVERIFY(raised[0]);
        for (int i = 1; i < rows; ++i) {
            QCOMPARE(raised[i], past[i]);
            if (raised[i]) continue;
            std::vector<T> x(std::size_t(cols + L)); // padded: GCC would warn of a packet past it
            std::copy_n(scores.row(i).data(), cols, x.begin());
            T moved = shift[std::size_t(i)];
            Packet<T> sum = Eigen::internal::ploadu<Packet<T>>(before.col(i).data());
            expAndSum(x.data(), 0, cols, cols, moved, sum, [](T) {});
            QCOMPARE(moved, shift[std::size_t(i)]);
            QVERIFY(test::sameBits(Vector<T>::Map(x.data(), cols), weights.row(i).transpose()));
            T stored[L];
            Eigen::internal::pstoreu(stored, sum);
            QVERIFY(test::sameBits(Vector<T>::Map(stored, L), sums.col(i)));
        }
    }

    // Whether `got` is 2^arg as the kernels take it: within 2 ulp where that is a normal number,
    // exactly 0 at or below the floor (and for -inf), NaN for NaN, never subnormal.
    template <class T>
    static bool isKernelExp2(T arg, T got) {
        if (std::isnan(arg)) return std::isnan(got);
        if (std::fpclassify(got) == FP_SUBNORMAL) return false;
        if (!(arg > kExp2Floor<T>)) return got == T(0);
        const long double exact = std::exp2((long double)arg);
        return std::abs(got - exact) <= 2.0L * exact * std::numeric_limits<T>::epsilon();
    }

    template <class T>
    static void checkEigenExp2() {
        constexpr int L = kLanes<T>;
        const T floor = kExp2Floor<T>, from = floor - 13, span = T(8.5) - from;
        std::vector<T> args{-std::numeric_limits<T>::infinity(),
                            std::numeric_limits<T>::quiet_NaN(), floor,
                            std::nextafter(floor, T(0))};
        for (int k = 0; k <= 4000; ++k)
            args.push_back(from + span * T(k) / T(4000));
        args.resize(std::size_t(paddedToLanes<T>(int(args.size()))), T(0));
        for (std::size_t k = 0; k < args.size(); k += L) {
            T got[L];
            Eigen::internal::pstoreu(got, softmax_column_detail::exp2OfScore<T, false>(
                                              Eigen::internal::ploadu<Packet<T>>(&args[k])));
            for (std::size_t j = 0; j < std::size_t(L); ++j)
                QVERIFY2(isKernelExp2(args[k + j], got[j]),
                         qPrintable(QString("2^%1 = %2").arg(double(args[k + j])).arg(got[j])));
        }
    }

    // `payloadNaN`: a NaN with low payload bits set (an integer add to the exponent bits would
    // turn it into a number).
    template <class T>
    static void checkSoftmaxExp(T payloadNaN, T shift) {
        const int cols = 4003; // no multiple of a vector: the last packet is partial
        const T floor = kExp2Floor<T>, span = -floor + 13;
        std::vector<T> x(std::size_t(paddedToLanes<T>(cols)), T(7));
        for (int k = 0; k < cols; ++k)
            x[std::size_t(k)] = -span * T(k) / T(cols - 1);
        for (T& v : x)
            v += shift;
        x[10] = -std::numeric_limits<T>::infinity();
        x[11] = std::numeric_limits<T>::quiet_NaN();
        x[12] = payloadNaN;
        x[13] = shift + floor; // at the floor: 0; the next number up: above it
        x[14] = std::nextafter(x[13], std::numeric_limits<T>::infinity());
        const std::vector<T> scores = x;
        const T sum = expAndSumAt(x, cols, shift);
        long double stored = 0;
        for (int k = 0; k < cols; ++k) {
            const auto i = std::size_t(k);
            const T arg = scores[i] - shift, got = x[i];
            QVERIFY2(isKernelExp2(arg, got),
                     qPrintable(QString("2^%1 = %2").arg(double(arg)).arg(double(got))));
            if (!std::isnan(got)) stored += got;
        }
        QCOMPARE(expAndSumAt(x, cols, shift, 0), T(0)); // no keys: all zero
        QVERIFY(std::all_of(x.begin(), x.begin() + cols, [](T v) { return v == T(0); }));
        QVERIFY(std::isnan(sum));  // the NaN reaches the row's sum
        std::vector<T> y = scores; // the same column with a finite score for the NaN
        y[11] = shift - T(1);
        y[12] = shift - T(2);
        const T clean = expAndSumAt(y, cols, shift);
        const long double expected = stored + std::exp2(-1.0L) + std::exp2(-2.0L);
        QVERIFY(std::abs(clean - expected) <= 1e-5L * clean);
    }
};

QTEST_GUILESS_MAIN(TestKernelArithmetic)
#include "test_kernel_arithmetic.moc"
