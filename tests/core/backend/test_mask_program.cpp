// SPDX-License-Identifier: GPL-3.0-or-later
// Mask programs (backend/mask_program.h): the encoding the kernels evaluate agrees with
// MaskSpec::allowed for every mask kind, nested combinations and sizes.
#include "core/backend/mask_program.h"

#include <QtTest>

using namespace attnlab;

class TestMaskProgram : public QObject {
    Q_OBJECT
private slots:
    void agreesWithTheMaskSpec() {
        for (int n : {1, 5, 33, 40}) {
            BoolMatrix cells(n, n);
            for (int s = 0; s < n; ++s)
                for (int t = 0; t < n; ++t)
                    cells(s, t) = (s * 5 + t * 11) % 7 < 3;
            const std::vector<MaskSpec> specs = {
                MaskSpec::all(),
                MaskSpec::none(),
                MaskSpec::causal(),
                MaskSpec::window(2),
                MaskSpec::causalWindow(1),
                MaskSpec::prefix(2),
                MaskSpec::blocks(n == 1 ? std::vector<int>{1} : std::vector<int>{1, n - 1}),
                MaskSpec::dilated(3, 2),
                MaskSpec::global(2, MaskSpec::causal()),
                MaskSpec::custom(cells),
                MaskSpec::both({MaskSpec::custom(cells), MaskSpec::negation(MaskSpec::causal())}),
                MaskSpec::either({MaskSpec::window(0),
                                  MaskSpec::both({MaskSpec::prefix(1), MaskSpec::dilated(1, 3)}),
                                  MaskSpec::global(1, MaskSpec::none())})};
            for (const MaskSpec& spec : specs) {
                const MaskProgram program = encodeMask(spec, n);
                QVERIFY(program.depth <= 16);
                for (int s = 0; s < n; ++s)
                    for (int t = 0; t < n; ++t)
                        QVERIFY2(maskProgramAllows(program, s, t) == spec.allowed(s, t, n),
                                 qPrintable(QString::fromStdString(spec.describe()) +
                                            QString(" n=%1 s=%2 t=%3").arg(n).arg(s).arg(t)));
            }
        }
    }

    void depthCountsNesting() {
        QCOMPARE(maskStackDepth(MaskSpec::causal()), 1);
        QCOMPARE(maskStackDepth(MaskSpec::both({MaskSpec::causal(), MaskSpec::window(1)})), 2);
        QCOMPARE(maskStackDepth(MaskSpec::either(
                     {MaskSpec::causal(), MaskSpec::both({MaskSpec::all(), MaskSpec::none()})})),
                 3);
    }
};

QTEST_GUILESS_MAIN(TestMaskProgram)
#include "test_mask_program.moc"
