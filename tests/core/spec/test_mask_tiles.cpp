// SPDX-License-Identifier: GPL-3.0-or-later
// The mask editor's mathematics: tile classification against a brute-force count (also when
// the tile does not divide n), the cell-by-cell mask diff, and the library conventions'
// key counts (properties.md §1.5).
#include "core/base/error.h"
#include "core/spec/mask.h"
#include "core/spec/mask_conventions.h"
#include "core/spec/mask_diff.h"
#include "core/spec/mask_tiles.h"
#include "core/test_support.h"

#include <QtTest>

using namespace attnlab;
using namespace attnlab::test;

Q_DECLARE_METATYPE(attnlab::MaskSpec)
Q_DECLARE_METATYPE(attnlab::MaskConvention)

namespace {
// The state of tile (r, c) by looking at every entry it covers, one at a time.
TileState bruteForceTile(const BoolMatrix& m, int tile, int r, int c) {
    int allowed = 0, total = 0;
    for (int s = r * tile; s < std::min<int>(int(m.rows()), (r + 1) * tile); ++s)
        for (int t = c * tile; t < std::min<int>(int(m.cols()), (c + 1) * tile); ++t) {
            ++total;
            allowed += m(s, t) ? 1 : 0;
        }
    if (allowed == 0) return TileState::Empty;
    return allowed == total ? TileState::Full : TileState::Partial;
}

// Keys of query row s.
int keysOfRow(const BoolMatrix& m, int s) {
    return int(m.row(s).count());
}
} // namespace

class TestMaskTiles : public QObject {
    Q_OBJECT
private slots:
    void tilesMatchBruteForce_data() {
        QTest::addColumn<MaskSpec>("spec");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("tile");
        using M = MaskSpec;
        QTest::newRow("causal 8 / 4") << M::causal() << 8 << 4;
        QTest::newRow("causal 10 / 4 (ragged)") << M::causal() << 10 << 4;
        QTest::newRow("window(1) 7 / 3 (ragged)") << M::window(1) << 7 << 3;
        QTest::newRow("blocks 5,4 / 4") << M::blocks({5, 4}) << 9 << 4;
        QTest::newRow("dilated(2,2) 11 / 2") << M::dilated(2, 2) << 11 << 2;
        QTest::newRow("none 5 / 2") << M::none() << 5 << 2;
        QTest::newRow("all 5 / 7 (tile > n)") << M::all() << 5 << 7;
        QTest::newRow("tile 1") << M::prefix(2) << 6 << 1;
    }
    void tilesMatchBruteForce() {
        QFETCH(MaskSpec, spec);
        QFETCH(int, n);
        QFETCH(int, tile);
        const BoolMatrix m = buildMask(spec, n);
        const TileMap map = classifyTiles(m, tile);
        const int tiles = (n + tile - 1) / tile;
        QCOMPARE(map.rows, tiles);
        QCOMPARE(map.cols, tiles);
        QCOMPARE(map.states.size(), std::size_t(tiles) * tiles);
        long long empty = 0, partial = 0, full = 0;
        for (int r = 0; r < tiles; ++r)
            for (int c = 0; c < tiles; ++c) {
                const TileState expected = bruteForceTile(m, tile, r, c);
                QCOMPARE(int(map.at(r, c)), int(expected));
                empty += expected == TileState::Empty;
                partial += expected == TileState::Partial;
                full += expected == TileState::Full;
            }
        QCOMPARE(map.empty, empty);
        QCOMPARE(map.partial, partial);
        QCOMPARE(map.full, full);
        QCOMPARE(map.allowedEntries, (long long)m.count());
        QCOMPARE(map.entries, (long long)n * n);
    }

    void raggedCausalByHand() {
        // causal, n = 10, tile 4: tiles of 4, 4, 2. Diagonal tiles partial, below full, above
        // empty: 3 empty, 3 partial, 3 full; 55 of 100 entries allowed.
        const TileMap map = classifyTiles(buildMask(MaskSpec::causal(), 10), 4);
        QCOMPARE(map.empty, 3LL);
        QCOMPARE(map.partial, 3LL);
        QCOMPARE(map.full, 3LL);
        QCOMPARE(map.allowedEntries, 55LL);
        QCOMPARE(map.skippedFraction(), 3.0 / 9.0);
        QCOMPARE(map.allowedFraction(), 0.55);
        // The 2 x 2 corner tile (rows 8-9, keys 8-9) is causal inside: partial.
        QCOMPARE(int(map.at(2, 2)), int(TileState::Partial));
        // With tile 1 every entry is its own tile: no partial tile.
        const TileMap ones = classifyTiles(buildMask(MaskSpec::causal(), 10), 1);
        QCOMPARE(ones.partial, 0LL);
        QCOMPARE(ones.full, 55LL);
    }

    void tileRefusesNonPositive() {
        const BoolMatrix m = buildMask(MaskSpec::all(), 3);
        QCOMPARE(inputErrorOf([&] { classifyTiles(m, 0); }),
                 QString("tile: must be a positive integer"));
        QVERIFY(!inputErrorOf([&] { classifyTiles(m, -2); }).isNull());
    }

    void diffCounts() {
        // window(1) vs causal on 4 tokens: both = diagonal + subdiagonal (4 + 3), only window =
        // superdiagonal (3), only causal = the rest of the lower triangle (3), neither 3.
        const MaskDiff d =
            diffMasks(buildMask(MaskSpec::window(1), 4), buildMask(MaskSpec::causal(), 4));
        QCOMPARE(d.both, 7LL);
        QCOMPARE(d.onlyA, 3LL);
        QCOMPARE(d.onlyB, 3LL);
        QCOMPARE(d.neither, 3LL);
        QCOMPARE(int(d.at(0, 1)), int(DiffCell::OnlyA));
        QCOMPARE(int(d.at(3, 0)), int(DiffCell::OnlyB));
        QCOMPARE(int(d.at(2, 2)), int(DiffCell::Both));
        QCOMPARE(int(d.at(0, 3)), int(DiffCell::Neither));
        QVERIFY(!d.identical());
        // window(1) allows 10 entries, causal 10; they disagree on 6.
        QCOMPARE(d.differing(), 6LL);
        QCOMPARE(d.allowedByA(), 10LL);
        QCOMPARE(d.allowedByB(), 10LL);
        QVERIFY(diffMasks(buildMask(MaskSpec::causal(), 5), buildMask(MaskSpec::causal(), 5))
                    .identical());
    }

    void diffRefusesShapes() {
        const QString message = inputErrorOf(
            [] { diffMasks(buildMask(MaskSpec::all(), 3), buildMask(MaskSpec::all(), 4)); });
        QCOMPARE(message, QString("masks of different shapes: 3 x 3 and 4 x 4"));
    }

    void conventionKeyCounts_data() {
        QTest::addColumn<MaskConvention>("convention");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("keys");
        using C = MaskConvention;
        QTest::newRow("radius 0") << C::WindowRadius << 0 << 1;
        QTest::newRow("radius 2") << C::WindowRadius << 2 << 5;
        QTest::newRow("W=1 centred") << C::WindowKeysCentred << 1 << 1;
        QTest::newRow("W=2 centred") << C::WindowKeysCentred << 2 << 2;
        QTest::newRow("W=4 centred") << C::WindowKeysCentred << 4 << 4;
        QTest::newRow("W=5 centred") << C::WindowKeysCentred << 5 << 5;
        QTest::newRow("causal radius 0") << C::CausalWindowRadius << 0 << 1;
        QTest::newRow("causal radius 3") << C::CausalWindowRadius << 3 << 4;
        QTest::newRow("causal W=1") << C::CausalWindowKeys << 1 << 1;
        QTest::newRow("causal W=4") << C::CausalWindowKeys << 4 << 4;
    }
    void conventionKeyCounts() {
        QFETCH(MaskConvention, convention);
        QFETCH(int, k);
        QFETCH(int, keys);
        QCOMPARE(conventionKeys(convention, k), keys);
        const int n = 16, s = 8; // an interior query: no window reaches an edge
        const BoolMatrix m = buildMask(conventionMask(convention, k), n);
        QCOMPARE(keysOfRow(m, s), keys);
        // Every allowed key lies within [s−W, s+W] and, for the causal ones, at or before s.
        for (int t = 0; t < n; ++t)
            if (m(s, t)) {
                QVERIFY(std::abs(s - t) <= keys);
                if (convention == MaskConvention::CausalWindowRadius ||
                    convention == MaskConvention::CausalWindowKeys)
                    QVERIFY(t <= s);
            }
    }

    void aMaskIsTheFirstConventionOfItsPair() {
        // Each matched mask is its pair's first convention at the number it is written with.
        for (const MaskSpec& mask :
             {MaskSpec::window(3), MaskSpec::causalWindow(5), MaskSpec::causal()}) {
            const std::optional<ConventionMatch> match = conventionOf(mask);
            QVERIFY(match);
            QCOMPARE(conventionMask(conventionPairs()[match->pair].a, std::max(match->k, 0)), mask);
        }
        QCOMPARE(conventionOf(MaskSpec::window(3))->k, 3);
        QVERIFY(!conventionOf(MaskSpec::all()));
        QVERIFY(!conventionOf(MaskSpec::both({MaskSpec::causal(), MaskSpec::window(2)})));
    }

    void centredEvenWindowIsLeftHeavy() {
        // W = 4 centred: keys s−2 … s+1.
        const BoolMatrix m = buildMask(conventionMask(MaskConvention::WindowKeysCentred, 4), 10);
        for (int t = 0; t < 10; ++t)
            QCOMPARE(bool(m(5, t)), t >= 3 && t <= 6);
        QCOMPARE(conventionLabel(MaskConvention::WindowKeysCentred, 4),
                 std::string("W = 4 keys centred: s−2 ≤ t ≤ s+1 (4 keys)"));
    }

    void radiusAndKeysDifferByOne() {
        // The off-by-one the diff preset shows: causal radius 3 vs W = 3 keys differ in one
        // diagonal (s − t = 3), present in n − 3 rows.
        const int n = 10;
        const MaskDiff d =
            diffMasks(buildMask(conventionMask(MaskConvention::CausalWindowRadius, 3), n),
                      buildMask(conventionMask(MaskConvention::CausalWindowKeys, 3), n));
        QCOMPARE(d.onlyA, (long long)(n - 3));
        QCOMPARE(d.onlyB, 0LL);
    }

    void conventionsRefuse() {
        QCOMPARE(inputErrorOf([] { conventionMask(MaskConvention::CausalWindowKeys, 0); }),
                 QString("W: a window needs at least one key"));
        QVERIFY(!inputErrorOf([] { conventionMask(MaskConvention::WindowRadius, -1); }).isNull());
    }

    void causalAlignments() {
        // Square: the two alignments coincide.
        const BoolMatrix tl = rectangularCausal(6, 6, CausalAlignment::TopLeft);
        const BoolMatrix br = rectangularCausal(6, 6, CausalAlignment::BottomRight);
        QVERIFY(diffMasks(tl, br).identical());
        QVERIFY(diffMasks(tl, buildMask(conventionMask(MaskConvention::CausalTopLeft, 0), 6))
                    .identical());
        QVERIFY(diffMasks(tl, buildMask(conventionMask(MaskConvention::CausalBottomRight, 0), 6))
                    .identical());
        // 2 queries against 5 keys: top-left allows 1 + 2 keys, bottom-right 4 + 5.
        const MaskDiff d = diffMasks(rectangularCausal(2, 5, CausalAlignment::TopLeft),
                                     rectangularCausal(2, 5, CausalAlignment::BottomRight));
        QCOMPARE(d.both, 3LL);
        QCOMPARE(d.onlyA, 0LL);
        QCOMPARE(d.onlyB, 6LL);
        QCOMPARE(d.neither, 1LL);
    }
};

QTEST_GUILESS_MAIN(TestMaskTiles)
#include "test_mask_tiles.moc"
