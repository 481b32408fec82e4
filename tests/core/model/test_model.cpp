// SPDX-License-Identifier: GPL-3.0-or-later
// The model's forward pass (properties.md §1.3): multi-head split and concat, output
// projection, residual, shape refusals, the smallest positional counterexample to permutation
// equivariance (§2.1) computed exactly, equivariance without positions, all-masked row
// warnings, and Maps::Drop.
#include "core/backend/head_forward.h"
#include "core/base/error.h"
#include "core/model/model.h"
#include "core/spec/permutation.h"
#include "core/test_support.h"

#include <QtTest>

#include <algorithm>
#include <numeric>

using namespace attnlab;
using namespace attnlab::test;

namespace {
LayerSpec layer(MixerSpec::Kind kind, MaskSpec mask = MaskSpec::all()) {
    LayerSpec l;
    l.mixer.kind = kind;
    l.mask = std::move(mask);
    return l;
}

// properties.md §2.1: n = 2, d = 3, polynomial positions, one reference block with
// W = Wq = Wk = Wv = I, mixer softmax_like.
ModelSpec referenceBlock(PositionalSpec::Kind positions) {
    ModelSpec spec;
    spec.positional.kind = positions;
    LayerSpec l = layer(MixerSpec::Kind::SoftmaxLike);
    l.ffn = MatrixSpec::identity();
    spec.layers.push_back(l);
    return spec;
}

// Every permutation of 0..n-1.
std::vector<Permutation> allPermutations(int n) {
    std::vector<int> images(static_cast<std::size_t>(n));
    std::iota(images.begin(), images.end(), 0);
    std::vector<Permutation> all;
    do
        all.emplace_back(images);
    while (std::next_permutation(images.begin(), images.end()));
    return all;
}

} // namespace

class TestModel : public QObject {
    Q_OBJECT
private slots:
    void smallestCounterexample() {
        const Model<Rational> model(referenceBlock(PositionalSpec::Kind::Polynomial), 3);
        const Matrix<Rational> x = rat("0 0 0; 1 0 0");
        const Permutation swap = Permutation::transposition(2, 0, 1);

        // By hand: positions make the input H = [0 0 1; 2 1 1]; relu(H·I) = H = Q = K = V;
        // S = H·Hᵀ = [1 1; 1 6]; weights (1 + S)/row sum = [1/2 1/2; 2/9 7/9];
        // f(X) = weights·H = [1 1/2 1; 14/9 7/9 1].
        const Trace<Rational> fx = model.forward(x);
        QCOMPARE(text(fx.input), QString("0 0 1; 2 1 1"));
        QCOMPARE(text(fx.layers.at(0).heads.at(0).scores), QString("1 1; 1 6"));
        QCOMPARE(text(fx.layers.at(0).heads.at(0).weights), QString("1/2 1/2; 2/9 7/9"));
        QCOMPARE(text(fx.output), QString("1 1/2 1; 14/9 7/9 1"));

        // P X = [1 0 0; 0 0 0]; H = [1 0 1; 1 1 1]; S = [2 2; 2 3];
        // weights = [1/2 1/2; 3/7 4/7]; f(P X) = [1 1/2 1; 1 4/7 1].
        const Trace<Rational> fpx = model.forward(swap.applyRows(x));
        QCOMPARE(text(fpx.input), QString("1 0 1; 1 1 1"));
        QCOMPARE(text(fpx.layers.at(0).heads.at(0).weights), QString("1/2 1/2; 3/7 4/7"));
        QCOMPARE(text(fpx.output), QString("1 1/2 1; 1 4/7 1"));

        // Equivariance fails: P f(X) = [14/9 7/9 1; 1 1/2 1] differs from f(P X) in both rows.
        const Matrix<Rational> pfx = swap.applyRows(fx.output);
        QCOMPARE(text(pfx), QString("14/9 7/9 1; 1 1/2 1"));
        QVERIFY(pfx.row(0) != fpx.output.row(0));
        QVERIFY(pfx.row(1) != fpx.output.row(1));
        // f(X) and f(P X) themselves differ only in row 1.
        QVERIFY(fx.output.row(0) == fpx.output.row(0));
        QVERIFY(fx.output.row(1) != fpx.output.row(1));
        // The pooled readout (§2.2) breaks too: column sums differ.
        QVERIFY(fx.output.colwise().sum() != fpx.output.colwise().sum());

        // The same numbers in double, to rounding.
        const Model<double> dmodel(referenceBlock(PositionalSpec::Kind::Polynomial), 3);
        Eigen::MatrixXd xd(2, 3);
        xd << 0, 0, 0, 1, 0, 0;
        Eigen::MatrixXd expected(2, 3);
        expected << 1, 0.5, 1, 14.0 / 9, 7.0 / 9, 1;
        QVERIFY((dmodel.forward(xd).output - expected).cwiseAbs().maxCoeff() < 1e-15);
    }

    void equivariantWithoutPositions_data() {
        QTest::addColumn<int>("variant");
        QTest::newRow("reference block, softmax_like") << 0;
        QTest::newRow("standard block, raw, 2 heads, wo") << 1;
        QTest::newRow("two layers, residual") << 2;
    }
    void equivariantWithoutPositions() {
        QFETCH(int, variant);
        ModelSpec spec;
        int d = 3;
        if (variant == 0) {
            spec = referenceBlock(PositionalSpec::Kind::None);
            spec.layers[0].ffn = MatrixSpec::random(1);
            spec.layers[0].wq = MatrixSpec::random(2);
            spec.layers[0].wk = MatrixSpec::random(3);
            spec.layers[0].wv = MatrixSpec::random(4);
        } else if (variant == 1) {
            d = 4;
            LayerSpec l = layer(MixerSpec::Kind::Raw);
            l.heads = 2;
            l.wq = MatrixSpec::random(5);
            l.wk = MatrixSpec::random(6);
            l.wo = MatrixSpec::random(7);
            spec.layers.push_back(l);
        } else {
            LayerSpec first = layer(MixerSpec::Kind::SoftmaxLike);
            first.ffn = MatrixSpec::random(8);
            first.wq = MatrixSpec::random(9);
            first.residual = true;
            LayerSpec second = layer(MixerSpec::Kind::Raw);
            second.wk = MatrixSpec::random(10, parseRational("1/2"));
            spec.layers = {first, second};
        }
        const Model<Rational> model(spec, d);
        const Matrix<Rational> x = mixedTokens(4, d, 2);
        const Matrix<Rational> fx = model.forward(x).output;
        for (const Permutation& sigma : allPermutations(4)) {
            const Matrix<Rational> lhs = model.forward(sigma.applyRows(x)).output;
            const Matrix<Rational> rhs = sigma.applyRows(fx);
            QVERIFY2(
                text(lhs) == text(rhs),
                qPrintable(QString("σ = %1: f(PX) = %2, P f(X) = %3")
                               .arg(QString::fromStdString(sigma.cycles()), text(lhs), text(rhs))));
        }
    }

    void equivarianceFailsWithCausalMask() {
        ModelSpec spec;
        spec.layers.push_back(layer(MixerSpec::Kind::SoftmaxLike, MaskSpec::causal()));
        const Model<Rational> model(spec, 3);
        const Matrix<Rational> x = mixedTokens(3, 3, 2);
        const Permutation sigma = Permutation::reverse(3);
        QVERIFY(text(model.forward(sigma.applyRows(x)).output) !=
                text(sigma.applyRows(model.forward(x).output)));
    }

    void multiHeadSplitConcat_data() {
        QTest::addColumn<bool>("withWo");
        QTest::newRow("without wo") << false;
        QTest::newRow("with wo") << true;
    }
    void multiHeadSplitConcat() {
        QFETCH(bool, withWo);
        const int n = 3, d = 4;
        ModelSpec spec;
        LayerSpec l = layer(MixerSpec::Kind::SoftmaxLike);
        l.heads = 2;
        const Matrix<Rational> wo = rat("1 0 2; 0 1 0; -1 0 1; 0 1/2 0");
        if (withWo) l.wo = MatrixSpec::given(wo);
        spec.layers.push_back(l);
        const Model<Rational> model(spec, d);
        QCOMPARE(model.inputWidth(), d);
        QCOMPARE(model.outputWidth(), withWo ? 3 : 4);

        const Matrix<Rational> x = mixedTokens(n, d, 2);
        const Trace<Rational> trace = model.forward(x);
        QCOMPARE(int(trace.layers.size()), 1);
        QCOMPARE(int(trace.layers[0].heads.size()), 2);
        Matrix<Rational> concat(n, d);
        for (int h = 0; h < 2; ++h) {
            // Head h sees the contiguous column block h of Q = K = V = X (identity weights).
            const Matrix<Rational> xh = x.middleCols(2 * h, 2);
            const HeadTrace<Rational>& head = trace.layers[0].heads[h];
            QCOMPARE(head.scores.rows(), Eigen::Index(n));
            QCOMPARE(head.scores.cols(), Eigen::Index(n));
            QCOMPARE(text(head.scores), text(xh * xh.transpose()));
            QCOMPARE(text(head.weights),
                     text(mixWeights(l.mixer, Matrix<Rational>(xh * xh.transpose()),
                                     BoolMatrix::Constant(n, n, true))));
            concat.middleCols(2 * h, 2) = head.weights * xh;
        }
        // The two heads really differ, so a swapped or shared block would be caught.
        QVERIFY(text(trace.layers[0].heads[0].weights) != text(trace.layers[0].heads[1].weights));
        const Matrix<Rational> expected = withWo ? Matrix<Rational>(concat * wo) : concat;
        QCOMPARE(trace.output.rows(), Eigen::Index(n));
        QCOMPARE(trace.output.cols(), Eigen::Index(withWo ? 3 : 4));
        QCOMPARE(text(trace.output), text(expected));
        QCOMPARE(text(trace.layers[0].output), text(expected));
    }

    void multiHeadNarrowValues() {
        // Wv is 4 x 2: each of the 2 heads mixes a 1-column value block.
        ModelSpec spec;
        LayerSpec l = layer(MixerSpec::Kind::Raw);
        l.heads = 2;
        const Matrix<Rational> wv = rat("1 0; 0 1; 1 0; 0 -1");
        l.wv = MatrixSpec::given(wv);
        spec.layers.push_back(l);
        const Model<Rational> model(spec, 4);
        QCOMPARE(model.outputWidth(), 2);
        const Matrix<Rational> x = mixedTokens(3, 4, 2);
        const Trace<Rational> trace = model.forward(x);
        const Matrix<Rational> v = x * wv;
        Matrix<Rational> expected(3, 2);
        for (int h = 0; h < 2; ++h) {
            const Matrix<Rational> xh = x.middleCols(2 * h, 2);
            expected.col(h) = (xh * xh.transpose()) * v.col(h); // raw: weights = scores
        }
        QCOMPARE(text(trace.output), text(expected));
    }

    void residualAddsInput_data() {
        QTest::addColumn<int>("positions");
        QTest::newRow("no positions") << int(PositionalSpec::Kind::None);
        QTest::newRow("polynomial positions") << int(PositionalSpec::Kind::Polynomial);
    }
    void residualAddsInput() {
        QFETCH(int, positions);
        ModelSpec plain = referenceBlock(PositionalSpec::Kind(positions));
        plain.layers[0].wv = MatrixSpec::random(3);
        ModelSpec residual = plain;
        residual.layers[0].residual = true;
        const Matrix<Rational> x = mixedTokens(4, 3, 2);
        const Trace<Rational> without = Model<Rational>(plain, 3).forward(x);
        const Trace<Rational> with = Model<Rational>(residual, 3).forward(x);
        // The residual adds the layer's input: the tokens after absolute positions.
        QCOMPARE(text(with.output), text(Matrix<Rational>(without.output + with.input)));
        QVERIFY(text(with.output) != text(without.output));
        if (PositionalSpec::Kind(positions) == PositionalSpec::Kind::Polynomial)
            QVERIFY(text(with.input) != text(x));
    }

    void residualWidthMismatch_data() {
        QTest::addColumn<bool>("viaWo");
        QTest::newRow("wv narrows") << false;
        QTest::newRow("wo narrows") << true;
    }
    void residualWidthMismatch() {
        QFETCH(bool, viaWo);
        ModelSpec spec;
        LayerSpec l = layer(MixerSpec::Kind::SoftmaxLike);
        l.residual = true;
        if (viaWo)
            l.wo = MatrixSpec::given(rat("1 0; 0 1; 0 0"));
        else
            l.wv = MatrixSpec::given(rat("1 0; 0 1; 0 0"));
        spec.layers.push_back(l);
        const QString message = inputErrorOf([&] { Model<Rational>(spec, 3); });
        QVERIFY2(!message.isNull(), "no InputError");
        QVERIFY2(message.contains("layers[0].residual"), qPrintable(message));
        QVERIFY2(message.contains("needs output width 3, the layer outputs 2"),
                 qPrintable(message));
    }

    void headsRefused_data() {
        QTest::addColumn<int>("heads");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("2 heads, p = 3") << 2 << "2 heads do not divide p = 3";
        QTest::newRow("0 heads") << 0 << "must be a positive integer";
        QTest::newRow("-1 heads") << -1 << "must be a positive integer";
    }
    void headsRefused() {
        QFETCH(int, heads);
        QFETCH(QString, fragment);
        ModelSpec spec;
        LayerSpec l = layer(MixerSpec::Kind::SoftmaxLike);
        l.heads = heads;
        spec.layers.push_back(l);
        const QString message = inputErrorOf([&] { Model<Rational>(spec, 3); });
        QVERIFY2(message.contains("layers[0].heads") && message.contains(fragment),
                 qPrintable(message));
    }

    void headsMustDivideValueWidth() {
        ModelSpec spec;
        LayerSpec l = layer(MixerSpec::Kind::SoftmaxLike);
        l.heads = 2;
        l.wv = MatrixSpec::given(rat("1 0 0; 0 1 0; 0 0 1; 1 1 1")); // p = 4, p_v = 3
        spec.layers.push_back(l);
        const QString message = inputErrorOf([&] { Model<Rational>(spec, 4); });
        QVERIFY2(message.contains("p_v = 3"), qPrintable(message));
    }

    void shapeMismatchNamesLayerAndMatrix() {
        ModelSpec spec;
        LayerSpec first = layer(MixerSpec::Kind::SoftmaxLike);
        first.wv = MatrixSpec::given(Matrix<Rational>::Ones(3, 4)); // widens to 4
        LayerSpec second = layer(MixerSpec::Kind::SoftmaxLike);
        second.wq = MatrixSpec::given(Matrix<Rational>::Ones(3, 2)); // expects 4 rows
        spec.layers = {first, second};
        const QString message = inputErrorOf([&] { Model<Rational>(spec, 3); });
        QCOMPARE(message, QString("layers[1].wq: matrix is 3 x 2, expected 4 x 2"));
    }

    void otherRefusals() {
        QVERIFY2(inputErrorOf([] { Model<Rational>(ModelSpec{}, 3); }).contains("layers"),
                 "empty layers accepted");
        ModelSpec ssmMasked;
        LayerSpec l = layer(MixerSpec::Kind::Ssm, MaskSpec::causal());
        ssmMasked.layers.push_back(l);
        QVERIFY(inputErrorOf([&] { Model<Rational>(ssmMasked, 3); }).contains("layers[0].mask"));
        // Tokens of the wrong width.
        const Model<Rational> model(referenceBlock(PositionalSpec::Kind::None), 3);
        const QString message = inputErrorOf([&] { model.forward(mixedTokens(2, 4, 2)); });
        QVERIFY2(message.contains("tokens") && message.contains("width 4"), qPrintable(message));
        // A mask that does not fit n is refused with the layer's path.
        ModelSpec blocks;
        blocks.layers.push_back(layer(MixerSpec::Kind::SoftmaxLike, MaskSpec::blocks({2, 2})));
        const QString maskMessage =
            inputErrorOf([&] { Model<Rational>(blocks, 3).forward(mixedTokens(3, 3, 2)); });
        QVERIFY2(maskMessage.contains("layers[0].mask"), qPrintable(maskMessage));
    }

    void allMaskedRowWarning() {
        BoolMatrix cells = BoolMatrix::Constant(3, 3, true);
        cells.row(1).setConstant(false);
        ModelSpec spec;
        LayerSpec first = layer(MixerSpec::Kind::SoftmaxLike, MaskSpec::custom(cells));
        first.heads = 2; // one warning per row, not per head
        LayerSpec second = layer(MixerSpec::Kind::Raw, MaskSpec::none());
        second.wq = MatrixSpec::given(Matrix<Rational>::Ones(4, 4)); // any width-4 projections
        spec.layers = {first, second};
        const Model<Rational> model(spec, 4);
        const Trace<Rational> trace = model.forward(mixedTokens(3, 4, 2));
        QStringList warnings;
        for (const auto& w : trace.warnings)
            warnings << QString::fromStdString(w);
        QCOMPARE(warnings, (QStringList{"layer 0: row 1 has no allowed key (all-masked row)",
                                        "layer 1: row 0 has no allowed key (all-masked row)",
                                        "layer 1: row 1 has no allowed key (all-masked row)",
                                        "layer 1: row 2 has no allowed key (all-masked row)"}));
        QVERIFY(trace.layers[0].output.row(1).isZero());
        QVERIFY(!trace.layers[0].output.row(0).isZero());
        QVERIFY(trace.output.isZero());

        const Trace<Rational> clean = Model<Rational>(referenceBlock(PositionalSpec::Kind::None), 3)
                                          .forward(mixedTokens(3, 3, 2));
        QVERIFY(clean.warnings.empty());
    }

    void mapsDrop() {
        ModelSpec spec = referenceBlock(PositionalSpec::Kind::Polynomial);
        LayerSpec second = layer(MixerSpec::Kind::Raw, MaskSpec::causal());
        second.heads = 3;
        spec.layers.push_back(second);
        const Model<Rational> model(spec, 3);
        const Matrix<Rational> x = mixedTokens(4, 3, 2);
        const Trace<Rational> kept = model.forward(x, Maps::Keep);
        const Trace<Rational> dropped = model.forward(x, Maps::Drop);
        QCOMPARE(int(kept.layers.size()), 2);
        QCOMPARE(int(dropped.layers.size()), 2);
        QCOMPARE(int(kept.layers[0].heads.size()), 1);
        QCOMPARE(int(kept.layers[1].heads.size()), 3);
        for (const auto& l : dropped.layers)
            QVERIFY(l.heads.empty());
        QCOMPARE(text(dropped.output), text(kept.output));
        QCOMPARE(text(dropped.layers[0].output), text(kept.layers[0].output));
        QCOMPARE(text(kept.output), text(kept.layers.back().output));
    }

    // inBlocks: the weights of the model it is taken from, only the tile sizes changed; its
    // forward is that of a model built from the retiled spec.
    void inBlocksKeepsWeightsAndRetiles() {
        ModelSpec spec;
        LayerSpec attention = layer(MixerSpec::Kind::Softmax, MaskSpec::causal());
        attention.wq = MatrixSpec::random(2);
        attention.wk = MatrixSpec::random(3);
        attention.wv = MatrixSpec::random(4);
        attention.mixer.tile = 5;
        spec.layers = {attention, attention};
        const Model<double> model(spec, 4);
        const Model<double> tiled = model.inBlocks(false, 3), untiled = model.inBlocks(false, 0);
        for (const Model<double>* m : {&tiled, &untiled})
            for (std::size_t l = 0; l < 2; ++l) {
                QCOMPARE(m->weights(l).wq, model.weights(l).wq);
                QCOMPARE(m->weights(l).wk, model.weights(l).wk);
                QCOMPARE(m->weights(l).wv, model.weights(l).wv);
            }
        QCOMPARE(tiled.spec().layers[1].mixer.tile, 3);
        QCOMPARE(untiled.spec().layers[0].mixer.tile, 0);
        QCOMPARE(model.spec().layers[0].mixer.tile, 5); // the original is unchanged
        const Eigen::MatrixXd x = Eigen::MatrixXd::Random(7, 4);
        const Model<double> built(evaluatedInBlocks(spec, false, 3), 4);
        QCOMPARE(tiled.forward(x, Maps::Drop).output, built.forward(x, Maps::Drop).output);
    }

    void extraOffset() {
        // forward(X, maps, c) equals the same model with positional offset c.
        ModelSpec spec = referenceBlock(PositionalSpec::Kind::Polynomial);
        ModelSpec shifted = spec;
        shifted.positional.offset = 2;
        const Matrix<Rational> x = mixedTokens(3, 3, 2);
        const QString viaExtra = text(Model<Rational>(spec, 3).forward(x, Maps::Keep, 2).output);
        QCOMPARE(viaExtra, text(Model<Rational>(shifted, 3).forward(x).output));
        QVERIFY(viaExtra != text(Model<Rational>(spec, 3).forward(x).output));
        QCOMPARE(text(Model<Rational>(spec, 3).forward(x, Maps::Keep, 2).input),
                 text(Matrix<Rational>(x + rat("2 4 1; 3 9 1; 4 16 1"))));
    }

    void checkPrecision_data() {
        QTest::addColumn<int>("positions");
        QTest::addColumn<int>("secondMixer");
        QTest::addColumn<QString>("fragment"); // empty: accepted in exact mode
        using K = MixerSpec::Kind;
        using P = PositionalSpec::Kind;
        QTest::newRow("softmax_like, polynomial")
            << int(P::Polynomial) << int(K::SoftmaxLike) << "";
        QTest::newRow("raw, alibi h=1") << int(P::Alibi) << int(K::Raw) << "";
        QTest::newRow("softmax in layer 1") << int(P::None) << int(K::Softmax) << "(layers[1])";
        QTest::newRow("rope") << int(P::Rope) << int(K::Raw) << "rope";
        QTest::newRow("sinusoidal") << int(P::Sinusoidal) << int(K::Raw) << "sinusoidal";
    }
    void checkPrecision() {
        QFETCH(int, positions);
        QFETCH(int, secondMixer);
        QFETCH(QString, fragment);
        ModelSpec spec = referenceBlock(PositionalSpec::Kind(positions));
        spec.layers.push_back(layer(MixerSpec::Kind(secondMixer)));
        const QString message =
            inputErrorOf([&] { attnlab::checkPrecision(spec, Precision::Exact); });
        if (fragment.isEmpty()) {
            QVERIFY2(message.isNull(), qPrintable(message));
        } else {
            QVERIFY2(message.contains("precision exact") && message.contains(fragment),
                     qPrintable(message));
        }
        QVERIFY(inputErrorOf([&] { attnlab::checkPrecision(spec, Precision::Float64); }).isNull());
    }

    // forwardBatch (§2.11-2.13): one sequence is forward(); a batch gives each sequence its own
    // result; a tensor-parallel split and the unmasked path change nothing exactly.
    void batchTensorSplitAndUnmaskedPathAreExact() {
        ModelSpec spec;
        LayerSpec l = layer(MixerSpec::Kind::SoftmaxLike, MaskSpec::causal());
        l.wq = MatrixSpec::random(1);
        l.wk = MatrixSpec::random(2);
        l.wv = MatrixSpec::random(3);
        l.wo = MatrixSpec::random(4);
        l.heads = 2;
        spec.layers.push_back(l);
        const Model<Rational> model(spec, 2);
        const Matrix<Rational> a = rat("1 0; 0 1; 2 -1"), b = rat("1 1; -1 2");
        const auto alone = [&](const Matrix<Rational>& x) { return text(model.forward(x).output); };
        const std::vector<Trace<Rational>> batch = model.forwardBatch({a, b}, Maps::Keep);
        QCOMPARE(int(batch.size()), 2);
        QCOMPARE(text(batch[0].output), alone(a));
        QCOMPARE(text(batch[1].output), alone(b));
        QCOMPARE(batch[1].layers[0].heads[0].weights.rows(), Eigen::Index(2));
        for (int parts : {2, 3, 4}) {
            Evaluation split;
            split.parts = parts;
            QCOMPARE(text(model.forwardBatch({a}, Maps::Drop, split)[0].output), alone(a));
        }
        Evaluation unmasked;
        unmasked.unmasked = true;
        QVERIFY(text(model.forwardBatch({a}, Maps::Drop, unmasked)[0].output) != alone(a));
        ModelSpec open = spec;
        open.layers[0].mask = MaskSpec::all();
        const Model<Rational> all(open, 2);
        QCOMPARE(text(all.forwardBatch({a}, Maps::Drop, unmasked)[0].output),
                 text(all.forward(a).output));
        QVERIFY(model.forwardBatch({}, Maps::Drop).empty());
    }
};

QTEST_GUILESS_MAIN(TestModel)
#include "test_model.moc"
