// SPDX-License-Identifier: GPL-3.0-or-later
// Every accelerated backend against the CPU (docs/architecture.md): each supported operation
// (scores, masking, the four mixers, weights·V and the fused tiled online-softmax evaluation)
// over every mask kind, float32 and float64, sizes below, at and past the key tile (incl.
// non-multiples), with and without an additive bias. Requests a backend refuses are counted
// and reported, not failed; exact precision must be refused. A backend that is not built or
// has no device skips with the reason. A device index selects one device (`opencl:0`); a
// malformed selector or an index past the last device is refused with a message.
// Whole layers are test_gpu_layers.cpp's. Tolerances: gpu_test_data.h.
#include "gpu_test_data.h"

#include "core/backend/accelerator.h"
#include "core/backend/registry.h"
#include "core/base/error.h"
#include "core/model/model.h"
#include "core/spec/mask.h"

#include <QtTest>

using namespace attnlab;
using namespace attnlab::test;

namespace {

// Every mask kind, shaped for n tokens.
std::vector<MaskSpec> masks(int n) {
    std::vector<int> sizes;
    for (int left = n, part = std::max(1, n / 3); left > 0; left -= sizes.back())
        sizes.push_back(std::min(left, part + int(sizes.size())));
    BoolMatrix cells(n, n);
    for (int s = 0; s < n; ++s)
        for (int t = 0; t < n; ++t)
            cells(s, t) = (s * 7 + t * 3) % 5 < 2;
    return {MaskSpec::all(),
            MaskSpec::none(),
            MaskSpec::causal(),
            MaskSpec::window(2),
            MaskSpec::causalWindow(3),
            MaskSpec::prefix(3),
            MaskSpec::blocks(sizes),
            MaskSpec::dilated(2, 3),
            MaskSpec::global(1, MaskSpec::window(1)),
            MaskSpec::custom(cells),
            MaskSpec::both({MaskSpec::causal(), MaskSpec::window(4)}),
            MaskSpec::either({MaskSpec::window(1), MaskSpec::prefix(2), MaskSpec::causal()}),
            MaskSpec::negation(MaskSpec::causal())};
}

struct Tally {
    int compared = 0, refused = 0;
};

template <class T>
void compareOn(const Device& device, Tally& tally) {
    const double tol = tolerance<T>();
    const Device& cpu = *backends().back()->defaultDevice();
    for (int n : {1, 7, 32, 33, 70})
        for (const MixerSpec& mixer : mixers())
            for (const MaskSpec& mask : masks(n)) {
                if (mixer.kind == MixerSpec::Kind::Ssm && !mask.isAll()) continue;
                const Matrix<T> q = data<T>(n, 6, 1), k = data<T>(n, 6, 2), v = data<T>(n, 5, 3);
                const Matrix<T> bias = data<T>(n, n, 4);
                const BoolMatrix cells = buildMask(mask, n);
                for (int variant = 0; variant < 3; ++variant) {
                    const bool keepMaps = variant != 2, withBias = variant == 1;
                    const HeadTask<T> task{mixer, q,     k,       v, withBias ? &bias : nullptr,
                                           mask,  cells, keepMaps};
                    const QByteArray what =
                        QByteArray("n=") + QByteArray::number(n) + " " + mixer.describe().c_str() +
                        " tile=" + QByteArray::number(mixer.tile) +
                        " mask=" + mask.describe().c_str() + (withBias ? " bias" : "") +
                        (keepMaps ? " maps" : " fused");
                    const Support support = device.supports(headRequest(task));
                    if (!support.ok) {
                        qInfo("%s: not supported (%s): %s", device.info().selector().c_str(),
                              support.why.c_str(), what.constData());
                        ++tally.refused;
                        continue;
                    }
                    const HeadResult<T> got = device.attend(task), want = cpu.attend(task);
                    QVERIFY2(deviation(got.output, want.output) <= tol, "output " + what);
                    if (keepMaps) {
                        QVERIFY2(deviation(got.scores, want.scores) <= tol, "scores " + what);
                        QVERIFY2(deviation(got.weights, want.weights) <= tol, "weights " + what);
                    }
                    QVERIFY2(got.allMaskedRows == want.allMaskedRows, "all-masked rows " + what);
                    ++tally.compared;
                }
            }
}

void compareBackend(const char* name) {
    const Backend* backend = findBackend(name);
    if (!backend)
        QSKIP(qPrintable(QString("the %1 backend is not built into this build").arg(name)));
    if (backend->devices().empty())
        QSKIP(qPrintable(QString("%1: %2").arg(name, QString::fromStdString(backend->status()))));
    qInfo("%s: %s", name, backend->status().c_str());
    const Device* device = backend->defaultDevice();
    Tally tally;
    compareOn<float>(*device, tally);
    if (QTest::currentTestFailed()) return;
    compareOn<double>(*device, tally);
    if (QTest::currentTestFailed()) return;
    // Exact arithmetic is the CPU's alone: refused, and refused again if asked regardless.
    const Matrix<Rational> x = Matrix<Rational>::Identity(3, 3);
    const MixerSpec mixer;
    const MaskSpec mask = MaskSpec::all();
    const BoolMatrix cells = buildMask(mask, 3);
    const HeadTask<Rational> exact{mixer, x, x, x, nullptr, mask, cells, true};
    QVERIFY(!device->supports(headRequest(exact)).ok);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, device->attend(exact));
    qInfo("%s: %d requests matched the CPU, %d refused (reported above)", name, tally.compared,
          tally.refused);
    QVERIFY(tally.compared > 0);
}

} // namespace

class TestGpuBackends : public QObject {
    Q_OBJECT
private slots:
    void aDeviceFailingMidRunFallsBackToTheCpuWithTheRightResult() {
        const Backend* opencl = findBackend("opencl");
        if (!opencl || opencl->devices().empty()) QSKIP("no OpenCL device to fail");
        ModelSpec spec;
        for (int l = 0; l < 2; ++l) {
            LayerSpec layer;
            layer.heads = 2;
            layer.mask = MaskSpec::causal();
            layer.wq = MatrixSpec::random(std::uint64_t(10 + l));
            layer.wk = MatrixSpec::random(std::uint64_t(20 + l));
            spec.layers.push_back(layer);
        }
        const Matrix<double> x = TokenSpec::random(9, 4, 7).materialize<double>();
        const Trace<double> reference = Model<double>(spec, 4, BackendChoice::Cpu).forward(x);
        simulateDeviceFailure("opencl", 3); // heads 0-2 on the device, then it fails
        const Trace<double> t = Model<double>(spec, 4, BackendChoice::OpenCl).forward(x);
        simulateDeviceFailure("opencl", -1);
        QCOMPARE(t.layers[0].backend, std::string("opencl"));
        QCOMPARE(t.layers[1].backend, std::string("opencl+cpu"));
        QVERIFY(!t.notices.empty());
        QVERIFY2(QString::fromStdString(t.notices[0]).contains("simulated device failure"),
                 t.notices[0].c_str());
        QVERIFY((t.output - reference.output).cwiseAbs().maxCoeff() < 1e-10);
    }

    void registryListsTheCpuLast() {
        QVERIFY(!backends().empty());
        QCOMPARE(backends().back()->name(), std::string("cpu"));
        QVERIFY(!backends().back()->devices().empty());
        for (const auto& b : backends())
            if (b->devices().empty()) QVERIFY2(!b->status().empty(), b->name().c_str());
    }

    void openclMatchesTheCpu() { compareBackend("opencl"); }
    void cudaMatchesTheCpu() { compareBackend("cuda"); }
    // The rules every accelerator applies: exact is refused, float64 needs the device's fp64,
    // the maps must fit the memory and a key tile the local memory; each says why.
    void supportRulesSayWhy() {
        DeviceLimits limits;
        limits.fp64 = false;
        limits.globalBytes = limits.maxAllocBytes = 1 << 20;
        limits.localBytes = 16 * 1024;
        HeadRequest r;
        r.precision = Precision::Float32;
        r.n = 64;
        r.p = r.pv = 8;
        QVERIFY(acceleratorSupport(r, limits).ok);
        auto why = [&](HeadRequest changed) { return acceleratorSupport(changed, limits).why; };
        HeadRequest exact = r, wide = r, big = r, tiled = r;
        exact.precision = Precision::Exact;
        QVERIFY(why(exact).find("CPU only") != std::string::npos);
        wide.precision = Precision::Float64;
        QVERIFY(why(wide).find("float64") != std::string::npos);
        big.n = 1024;
        QVERIFY(why(big).find("device memory") != std::string::npos);
        big.keepMaps = false; // the fused kernel needs no n x n buffers
        QVERIFY(acceleratorSupport(big, limits).ok);
        tiled.tile = 1024;
        QVERIFY(why(tiled).find("local memory") != std::string::npos);
    }

    // auto never picks a backend that refuses, and falls back to the CPU with a notice when an
    // explicitly chosen backend refuses (exact precision).
    void fallbackIsVisible() {
        HeadRequest exact;
        exact.precision = Precision::Exact;
        exact.n = 4;
        exact.p = exact.pv = 2;
        QCOMPARE(pickDevice(BackendChoice::Auto, exact).device->info().backend, std::string("cpu"));
        for (const char* name : {"opencl", "cuda"}) {
            if (!findBackend(name)) continue;
            const DevicePick pick = pickDevice(
                name == std::string("cuda") ? BackendChoice::Cuda : BackendChoice::OpenCl, exact);
            QCOMPARE(pick.device->info().backend, std::string("cpu"));
            QVERIFY2(pick.notice.find(name) != std::string::npos, pick.notice.c_str());
        }
    }

    // `backend:index` names one device; the plain names keep their meaning.
    void selectorsParse() {
        QCOMPARE(parseBackendChoice("opencl:0"), BackendChoice(BackendKind::OpenCl, 0));
        QCOMPARE(parseBackendChoice("cuda:12"), BackendChoice(BackendKind::Cuda, 12));
        QCOMPARE(parseBackendChoice("cuda"), BackendChoice(BackendKind::Cuda));
        QCOMPARE(parseBackendChoice("auto"), BackendChoice(BackendKind::Auto));
        QCOMPARE(backendChoiceName(parseBackendChoice("opencl:1")), std::string("opencl:1"));
        QCOMPARE(backendChoiceName(BackendChoice::Cpu), std::string("cpu"));
        for (const char* bad : {"cuda:x", "cuda:", "opencl:-1", "opencl:+1", "opencl:1x", "auto:0",
                                "gpu:0", ":0", "cuda:99999999999"}) {
            try {
                parseBackendChoice(bad);
                QFAIL(bad);
            } catch (const InputError& e) {
                QVERIFY2(std::string(e.what()).find(bad) != std::string::npos, e.what());
            }
        }
    }

    // An index past the last device is refused before anything runs; one that exists computes
    // there.
    void aSelectedDeviceComputes() {
        try {
            requireSelectable({BackendKind::Cpu, 1});
            QFAIL("cpu:1 accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("no such device") != std::string::npos, e.what());
        }
        requireSelectable({BackendKind::Cpu, 0});
        const Backend* opencl = findBackend("opencl");
        if (!opencl || opencl->devices().empty()) QSKIP("no OpenCL device to select");
        QVERIFY_THROWS_EXCEPTION(InputError, requireSelectable({BackendKind::OpenCl, 99}));
        ModelSpec spec;
        LayerSpec layer;
        layer.heads = 2;
        layer.mask = MaskSpec::causal();
        layer.wq = MatrixSpec::random(3);
        spec.layers.push_back(layer);
        const Matrix<double> x = TokenSpec::random(9, 4, 7).materialize<double>();
        const Trace<double> reference = Model<double>(spec, 4, BackendChoice::Cpu).forward(x);
        for (int index = 0; index < int(opencl->devices().size()); ++index) {
            requireSelectable({BackendKind::OpenCl, index});
            const Trace<double> t =
                Model<double>(spec, 4, {BackendKind::OpenCl, index}).forward(x, Maps::Drop);
            QCOMPARE(t.layers[0].backend, std::string("opencl"));
            QVERIFY(t.notices.empty());
            QVERIFY((t.output - reference.output).cwiseAbs().maxCoeff() < 1e-10);
        }
    }
};

QTEST_GUILESS_MAIN(TestGpuBackends)
#include "test_gpu_backends.moc"
