// SPDX-License-Identifier: GPL-3.0-or-later
// Whole layers on each accelerated backend (every head of a batch of sequences in one launch)
// against the CPU's layer kernel: heads, grouped keys and values, RoPE of both styles at an
// offset, ALiBi symmetric and causal, the three mixers with and without a key tile, the masks
// that hold at every length, sequences of lengths 1 to 70 side by side. Also: a model's forward
// batch computed on the device and a failing device's layer on the CPU; the checks' sweeps
// batched on the device; the device's buffer pool; the launches a layer is split into when
// memory is short. A backend that is not built or has no device skips with the reason.
// Tolerances: gpu_test_data.h.
#include "gpu_test_data.h"

#include "core/backend/accelerator.h"
#include "core/backend/registry.h"
#include "core/checks/check_registry.h"
#include "core/checks/property_report.h"
#include "core/io/scenario_reader.h"
#include "core/model/model.h"
#include "core/spec/mask.h"

#include <QtTest>

#include <utility>

using namespace attnlab;
using namespace attnlab::test;

namespace {

// Layer settings: heads (key/value heads), positional method, mixer.
struct LayerCase {
    int heads, kvHeads;
    PositionalSpec positional;
    MixerSpec mixer;
    std::string describe() const {
        return std::to_string(heads) + "/" + std::to_string(kvHeads) + " heads, " +
               positional.describe() + ", " + mixer.describe() + " tile " +
               std::to_string(mixer.tile);
    }
};

std::vector<LayerCase> layerCases() {
    std::vector<PositionalSpec> positions(5);
    positions[1].kind = positions[2].kind = PositionalSpec::Kind::Rope;
    positions[2].style = PositionalSpec::RopeStyle::Half;
    positions[3].kind = positions[4].kind = PositionalSpec::Kind::Alibi;
    positions[4].causal = true;
    std::vector<LayerCase> cases;
    for (const MixerSpec& mixer : mixers()) {
        if (mixer.kind == MixerSpec::Kind::Ssm) continue;
        for (std::size_t i = 0; i < positions.size(); ++i)
            cases.push_back({i % 2 ? 3 : 4, i % 2 ? 3 : 2, positions[i], mixer});
    }
    return cases;
}

// Every layer case, over every mask that holds at each length, on a batch of sequences of
// lengths 1 to 70 (one launch) and on one sequence at an offset.
template <class T>
void compareLayersOn(const Device& device, int& compared) {
    const double tol = tolerance<T>();
    const Device& cpu = *backends().back()->defaultDevice();
    const std::vector<MaskSpec> lengthFree = {
        MaskSpec::all(),
        MaskSpec::none(),
        MaskSpec::causal(),
        MaskSpec::window(2),
        MaskSpec::causalWindow(3),
        MaskSpec::prefix(3),
        MaskSpec::dilated(2, 3),
        MaskSpec::global(1, MaskSpec::window(1)),
        MaskSpec::either({MaskSpec::window(1), MaskSpec::prefix(2)}),
        MaskSpec::negation(MaskSpec::causal())};
    for (const LayerCase& c : layerCases())
        for (const MaskSpec& mask : lengthFree)
            for (const std::vector<int>& lengths :
                 std::vector<std::vector<int>>{{33, 1, 70, 7, 32}, {40}}) {
                LayerSpec layer;
                layer.heads = c.heads;
                layer.kvHeads = c.kvHeads;
                layer.mixer = c.mixer;
                layer.mask = mask;
                const QByteArray what =
                    QByteArray::fromStdString(c.describe() + ", mask " + mask.describe() + ", " +
                                              std::to_string(lengths.size()) + " sequence(s)");
                if (!device.attendsLayer(layer, precisionOf<T>())) {
                    QVERIFY2((std::is_same_v<T, double>), "float32 refused: " + what);
                    continue; // a device without float64
                }
                int rows = 0;
                for (int n : lengths)
                    rows += n;
                // Grouped heads: K and V repeated per query head, as the model passes them.
                const Matrix<T> q = data<T>(rows, 6 * c.heads, 1);
                Matrix<T> k(rows, 6 * c.heads), v(rows, 5 * c.heads);
                const Matrix<T> kGroups = data<T>(rows, 6 * c.kvHeads, 2),
                                vGroups = data<T>(rows, 5 * c.kvHeads, 3);
                for (int h = 0; h < c.heads; ++h) {
                    const int g = h / (c.heads / c.kvHeads);
                    k.middleCols(6 * h, 6) = kGroups.middleCols(6 * g, 6);
                    v.middleCols(5 * h, 5) = vGroups.middleCols(5 * g, 5);
                }
                const long offset = lengths.size() == 1 ? 5 : 0;
                const LayerTask<T> task{layer, c.positional, q, k, v, lengths, offset};
                const LayerResult<T> got = device.attendLayer(task), want = cpu.attendLayer(task);
                QVERIFY2(deviation(got.attention, want.attention) <= tol, "output " + what);
                QVERIFY2(got.allMaskedRows == want.allMaskedRows, "all-masked rows " + what);
                ++compared;
            }
}

void compareLayers(const char* name) {
    const Backend* backend = findBackend(name);
    if (!backend)
        QSKIP(qPrintable(QString("the %1 backend is not built into this build").arg(name)));
    if (backend->devices().empty())
        QSKIP(qPrintable(QString("%1: %2").arg(name, QString::fromStdString(backend->status()))));
    int compared = 0;
    compareLayersOn<float>(*backend->defaultDevice(), compared);
    if (QTest::currentTestFailed()) return;
    compareLayersOn<double>(*backend->defaultDevice(), compared);
    if (QTest::currentTestFailed()) return;
    qInfo("%s: %d layers matched the CPU", name, compared);
    QVERIFY(compared > 0);
    // The peak probe runs (its rate is the bench's business, not a test's).
    const auto* accelerator = dynamic_cast<const AcceleratorDevice*>(backend->defaultDevice());
    QVERIFY(accelerator && accelerator->measurePeakGflops() > 0);
}

// A two-layer model with four heads, RoPE and a causal mask, and a batch of three sequences.
ModelSpec batchModel() {
    ModelSpec spec;
    spec.positional.kind = PositionalSpec::Kind::Rope;
    for (int l = 0; l < 2; ++l) {
        LayerSpec layer;
        layer.heads = 4;
        layer.kvHeads = 2;
        layer.mask = MaskSpec::causal();
        layer.wq = MatrixSpec::random(std::uint64_t(10 + l));
        layer.wk = MatrixSpec::random(std::uint64_t(20 + l));
        spec.layers.push_back(layer);
    }
    return spec;
}

} // namespace

class TestGpuLayers : public QObject {
    Q_OBJECT
private slots:
    void openclLayersMatchTheCpu() { compareLayers("opencl"); }
    void cudaLayersMatchTheCpu() { compareLayers("cuda"); }

    // A forward batch without maps goes to the chosen device a layer at a time, every sequence
    // in one launch, and gives the CPU's outputs; a device that fails mid-run leaves the layer
    // to the CPU and says so.
    void aForwardBatchComputesWholeLayersOnTheDevice() {
        const Backend* opencl = findBackend("opencl");
        if (!opencl || opencl->devices().empty()) QSKIP("no OpenCL device");
        const ModelSpec spec = batchModel();
        std::vector<Matrix<double>> batch;
        for (int n : {9, 1, 40})
            batch.push_back(TokenSpec::random(n, 8, std::uint64_t(n)).materialize<double>());
        const auto reference =
            Model<double>(spec, 8, BackendChoice::Cpu).forwardBatch(batch, Maps::Drop);
        const Model<double> onDevice(spec, 8, BackendChoice::OpenCl);
        const auto traces = onDevice.forwardBatch(batch, Maps::Drop);
        QCOMPARE(traces.size(), batch.size());
        for (std::size_t b = 0; b < batch.size(); ++b) {
            for (const auto& layer : traces[b].layers)
                QCOMPARE(layer.backend, std::string("opencl"));
            QVERIFY(traces[b].notices.empty());
            QVERIFY(deviation(traces[b].output, reference[b].output) <= 1e-10);
        }
        simulateDeviceFailure("opencl", 1); // the first layer on the device, then it fails
        const auto failed = onDevice.forwardBatch(batch, Maps::Drop);
        simulateDeviceFailure("opencl", -1);
        for (std::size_t b = 0; b < batch.size(); ++b) {
            QCOMPARE(failed[b].layers[0].backend, std::string("opencl"));
            QCOMPARE(failed[b].layers[1].backend, std::string("cpu"));
            QVERIFY(!failed[b].notices.empty());
            QVERIFY2(
                QString::fromStdString(failed[b].notices[0]).contains("simulated device failure"),
                failed[b].notices[0].c_str());
            QVERIFY(deviation(failed[b].output, reference[b].output) <= 1e-10);
        }
    }

    // The sweeps of causality, locality and equivariance (a forward per perturbed suffix, token
    // or permutation) go to the device in batches, and reach the CPU's verdicts and witnesses:
    // where the property holds, where it fails, and for a locality claim that is too small.
    void sweepsOnTheDeviceReachTheCpusVerdicts_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("property");
        for (const char* preset :
             {"causal-model", "sliding-window", "window-three-layers", "locality-claim-too-small",
              "alibi-causal", "equivariant-block", "positional-counterexample"})
            for (const char* property : {"causality", "locality", "permutation-equivariance"})
                QTest::newRow((std::string(preset) + " " + property).c_str()) << preset << property;
    }
    void sweepsOnTheDeviceReachTheCpusVerdicts() {
        const Backend* opencl = findBackend("opencl");
        if (!opencl || opencl->devices().empty()) QSKIP("no OpenCL device");
        QFETCH(QString, preset);
        QFETCH(QString, property);
        Scenario s = loadScenario("builtin:" + preset.toStdString());
        s.precision = Precision::Float64;
        s.backend = BackendChoice::Cpu;
        const nlohmann::json cpu = reportJson(runChecks(s, {{property.toStdString(), {}}}, 0)[0]);
        s.backend = BackendChoice::OpenCl;
        const nlohmann::json device =
            reportJson(runChecks(s, {{property.toStdString(), {}}}, 0)[0]);
        QCOMPARE(device["verdict"], cpu["verdict"]);
        // The witness's positions (rows, tokens, columns, distances: its integers) agree; its
        // values differ by rounding.
        int positions = 0;
        for (const char* key : {"witness", "shrunk_witness"})
            if (cpu.contains(key) && !cpu[key].is_null())
                for (const auto& [name, value] : cpu[key].items())
                    if (value.is_number_integer()) {
                        QVERIFY2(device[key][name] == value,
                                 (std::string(key) + "." + name + ": " + device[key].dump() +
                                  " vs " + cpu[key].dump())
                                     .c_str());
                        ++positions;
                    }
        QVERIFY(cpu["verdict"] != "fails" || positions > 0);
    }

    // A device's pool allocates a role's buffer once for every size up to the largest asked
    // for, again only when a larger one is asked for (freeing the smaller first), and frees all
    // on clear.
    void theBufferPoolGrowsAndKeeps() {
        int live = 0, made = 0;
        struct Tracked { // a device buffer that counts itself
            int* live;
            std::size_t bytes;
            Tracked(int* l, std::size_t b) : live(l), bytes(b) { ++*live; }
            Tracked(Tracked&& o) noexcept : live(std::exchange(o.live, nullptr)), bytes(o.bytes) {}
            ~Tracked() {
                if (live) --*live;
            }
        };
        BufferPool<Tracked> pool;
        auto allocate = [&](std::size_t bytes) {
            ++made;
            return Tracked(&live, bytes);
        };
        QCOMPARE(pool.get(BufferRole::Q, 100, allocate).bytes, std::size_t(100));
        QCOMPARE(pool.get(BufferRole::Q, 60, allocate).bytes, std::size_t(100)); // kept
        QCOMPARE(made, 1);
        QCOMPARE(pool.get(BufferRole::K, 0, allocate).bytes, std::size_t(1)); // never empty
        QCOMPARE(pool.get(BufferRole::Q, 300, allocate).bytes, std::size_t(300));
        QCOMPARE(made, 3);
        QCOMPARE(live, 2);
        QCOMPARE(pool.bytes(), std::size_t(301));
        pool.clear();
        QCOMPARE(live, 0);
        QCOMPARE(pool.bytes(), std::size_t(0));
    }

    // A layer is split into as few launches as memory allows, in order, covering every
    // sequence; a sequence that alone does not fit is refused with what it needs.
    void layersAreSplitWhereMemoryIsShort() {
        DeviceLimits limits;
        // Half the memory holds 1000 rows of 4 heads of width 8 in float32 (and their flag).
        limits.globalBytes = 2 * 1000 * (4 * (2 * 8 + 2 * 8) * 4 + 4);
        limits.maxAllocBytes = limits.globalBytes;
        const auto launches = layerLaunches({600, 300, 200, 900, 100}, 4, 8, 8, 4, limits);
        const std::vector<std::pair<std::size_t, std::size_t>> expected{{0, 2}, {2, 3}, {3, 5}};
        QCOMPARE(launches, expected);
        try {
            layerLaunches({10, 1001}, 4, 8, 8, 4, limits);
            QFAIL("a sequence larger than the budget was accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("1001 tokens") != std::string::npos, e.what());
        }
        limits.globalBytes = limits.maxAllocBytes = std::uint64_t(1) << 40; // the pair limit splits
        const auto many = layerLaunches(std::vector<int>(20000, 4), 4, 8, 8, 4, limits);
        QCOMPARE(many.size(), std::size_t(2));
        QCOMPARE(many[0].second, std::size_t(kMostLayerPairs / 4));
        QCOMPARE(many[1].second, std::size_t(20000));
    }
};

QTEST_GUILESS_MAIN(TestGpuLayers)
#include "test_gpu_layers.moc"
