// SPDX-License-Identifier: GPL-3.0-or-later
// The decode step against a KV cache (properties.md §1.7): with a causal mask aligned
// bottom-right it is the last m rows of the full pass (exactly in exact mode, also with RoPE,
// ALiBi and grouped key/value heads), top-left is not; one bidirectional layer is, two are not
// (the cache never saw the later tokens); m x n maps; refusals name the field.
#include "core/model/decode.h"
#include "core/test_support.h"

#include <QtTest>

using namespace attnlab;
using namespace attnlab::test;

namespace {

// A model of `layers` blocks (random projections, an output projection and a residual) with
// two heads under `mask`, mixer `mixer`.
ModelSpec blocks(int layers, MaskSpec mask, MixerSpec::Kind mixer = MixerSpec::Kind::SoftmaxLike,
                 PositionalSpec::Kind positions = PositionalSpec::Kind::None) {
    ModelSpec spec;
    spec.positional.kind = positions;
    for (int i = 0; i < layers; ++i) {
        LayerSpec l;
        l.wq = MatrixSpec::random(10 + 4 * std::uint64_t(i), Rational(1, 2));
        l.wk = MatrixSpec::random(11 + 4 * std::uint64_t(i), Rational(1, 2));
        l.wv = MatrixSpec::random(12 + 4 * std::uint64_t(i), Rational(1, 2));
        l.wo = MatrixSpec::random(13 + 4 * std::uint64_t(i), Rational(1, 2));
        l.heads = 2;
        l.residual = true;
        l.mixer.kind = mixer;
        l.mask = mask;
        spec.layers.push_back(l);
    }
    return spec;
}

DecodeStep step(int m, CausalAlignment alignment = CausalAlignment::BottomRight) {
    DecodeStep s;
    s.queries = m;
    s.alignment = alignment;
    return s;
}

template <class T>
double largest(const Matrix<T>& a, const Matrix<T>& b) {
    return (toDoubleMatrix(a) - toDoubleMatrix(b)).cwiseAbs().maxCoeff();
}

} // namespace

class TestDecode : public QObject {
    Q_OBJECT
private slots:
    void causalBottomRightIsTheLastRowsExactly_data() {
        QTest::addColumn<int>("m");
        for (int m : {1, 2, 4, 6})
            QTest::addRow("m=%d", m) << m;
    }
    void causalBottomRightIsTheLastRowsExactly() {
        QFETCH(int, m);
        ModelSpec spec = blocks(2, MaskSpec::causal());
        spec.positional.kind = PositionalSpec::Kind::Alibi;
        spec.positional.slopes = {Rational(1, 2), Rational(1, 4)};
        const Model<Rational> model(spec, 4);
        const Matrix<Rational> x = mixedTokens(6, 4, 3);
        const Trace<Rational> full = model.forward(x);
        const Trace<Rational> d = decode(model, x, step(m));
        QCOMPARE(text(d.output), text(full.output.bottomRows(m)));
        QCOMPARE(text(d.input), text(full.input.bottomRows(m)));
        for (std::size_t l = 0; l < 2; ++l) {
            QCOMPARE(text(d.layers[l].output), text(full.layers[l].output.bottomRows(m)));
            QCOMPARE(d.layers[l].heads.size(), std::size_t(2));
            for (std::size_t h = 0; h < 2; ++h) {
                const Matrix<Rational>& w = d.layers[l].heads[h].weights;
                QCOMPARE(w.rows(), Eigen::Index(m));
                QCOMPARE(w.cols(), Eigen::Index(6));
                QCOMPARE(text(w), text(full.layers[l].heads[h].weights.bottomRows(m)));
                QCOMPARE(text(d.layers[l].heads[h].scores),
                         text(full.layers[l].heads[h].scores.bottomRows(m)));
            }
        }
    }

    void floatRopeAndGroupedHeads_data() {
        QTest::addColumn<int>("kvHeads");
        QTest::addRow("two kv heads") << 2;
        QTest::addRow("one kv head") << 1;
    }
    void floatRopeAndGroupedHeads() {
        QFETCH(int, kvHeads);
        ModelSpec spec =
            blocks(3, MaskSpec::causal(), MixerSpec::Kind::Softmax, PositionalSpec::Kind::Rope);
        for (LayerSpec& l : spec.layers) {
            l.kvHeads = kvHeads;
            l.wk = MatrixSpec::given(Matrix<Rational>::Identity(4, 2 * kvHeads));
            l.wv = MatrixSpec::given(Matrix<Rational>::Identity(4, 2 * kvHeads));
        }
        spec.positional.offset = 3;
        const Model<double> model(spec, 4);
        const Matrix<double> x = toDoubleMatrix(mixedTokens(7, 4, 3));
        const Trace<double> full = model.forward(x);
        const Trace<double> d = decode(model, x, step(3));
        QVERIFY(largest<double>(d.output, full.output.bottomRows(3)) < 1e-12);
        QVERIFY(largest<double>(d.layers[2].heads[1].weights,
                                full.layers[2].heads[1].weights.bottomRows(3)) < 1e-12);
        const Model<float> single(spec, 4);
        const Trace<float> f = decode(single, x.cast<float>().eval(), step(3));
        QVERIFY(largest<float>(f.output, single.forward(x.cast<float>()).output.bottomRows(3)) <
                1e-5);
    }

    void topLeftIsTheKvCacheBug() {
        const Model<Rational> model(blocks(1, MaskSpec::causal()), 4);
        const Matrix<Rational> x = mixedTokens(5, 4, 3);
        const Trace<Rational> d = decode(model, x, step(2, CausalAlignment::TopLeft));
        // Top-left: the first new query (token 3) sees key 0 only, the second keys 0 and 1.
        const Matrix<Rational>& w = d.layers[0].heads[0].weights;
        QCOMPARE(text(w.unaryExpr([](const Rational& v) { return Rational(v != 0 ? 1 : 0); })),
                 QString("1 0 0 0 0; 1 1 0 0 0"));
        QVERIFY(text(d.output) != text(model.forward(x).output.bottomRows(2)));
        // The same rows given as a mask file's m x n cells: the same step.
        DecodeStep explicitMask = step(2);
        explicitMask.mask = rectangularCausal(2, 5, CausalAlignment::TopLeft);
        QCOMPARE(text(decode(model, x, explicitMask).output), text(d.output));
    }

    void bidirectionalNeedsOneLayer() {
        const Matrix<Rational> x = mixedTokens(5, 4, 3);
        const Model<Rational> one(blocks(1, MaskSpec::all()), 4);
        QCOMPARE(text(decode(one, x, step(2)).output), text(one.forward(x).output.bottomRows(2)));
        // Two layers: the cache's layer-1 keys were computed without tokens 3 and 4.
        const Model<Rational> two(blocks(2, MaskSpec::all()), 4);
        const Matrix<Rational> expected = two.forward(x).output.bottomRows(2);
        QVERIFY(text(decode(two, x, step(2)).output) != text(expected));
        // Decoding every token (an empty cache) is the full pass again.
        QCOMPARE(text(decode(two, x, step(5)).output), text(two.forward(x).output));
    }

    void mapsDrop() {
        const Model<double> model(blocks(2, MaskSpec::causal()), 4);
        const Trace<double> d =
            decode(model, toDoubleMatrix(mixedTokens(5, 4, 3)).eval(), step(2), Maps::Drop);
        QVERIFY(d.layers[0].heads.empty());
        QCOMPARE(d.output.rows(), Eigen::Index(2));
    }

    void refusals_data() {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("maskRows");
        QTest::addColumn<QString>("expected");
        QTest::addRow("m = 0") << 0 << -1
                               << "decode.queries: decoding 0 queries needs 1 ≤ m ≤ n = 5";
        QTest::addRow("m > n") << 6 << -1
                               << "decode.queries: decoding 6 queries needs 1 ≤ m ≤ n = 5";
        QTest::addRow("mask rows") << 2 << 3
                                   << "decode.mask: the mask is 3 x 5, the decode step needs 2 x 5 "
                                      "(m queries x n keys)";
    }
    void refusals() {
        QFETCH(int, m);
        QFETCH(int, maskRows);
        QFETCH(QString, expected);
        const Model<Rational> model(blocks(1, MaskSpec::causal()), 4);
        DecodeStep s = step(m);
        if (maskRows >= 0) s.mask = BoolMatrix::Constant(maskRows, 5, true);
        QCOMPARE(inputErrorOf([&] { decode(model, mixedTokens(5, 4, 3), s); }), expected);
    }

    void ssmRefused() {
        ModelSpec spec = blocks(1, MaskSpec::all());
        spec.layers[0].mixer.kind = MixerSpec::Kind::Ssm;
        const Model<Rational> model(spec, 4);
        QVERIFY(inputErrorOf([&] {
                    decode(model, mixedTokens(4, 4, 3), step(1));
                }).startsWith("layers[0].mixer: ssm keeps a state"));
    }

    void alignmentNames() {
        QCOMPARE(parseAlignment(alignmentName(CausalAlignment::TopLeft)), CausalAlignment::TopLeft);
        QCOMPARE(parseAlignment("bottom-right"), CausalAlignment::BottomRight);
        QCOMPARE(
            inputErrorOf([] { parseAlignment("diagonal", "--alignment"); }),
            QString("--alignment: \"diagonal\" is not an alignment: bottom-right or top-left"));
    }
};

QTEST_APPLESS_MAIN(TestDecode)
#include "test_decode.moc"
