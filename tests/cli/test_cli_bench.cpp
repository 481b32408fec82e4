// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab-cli bench: the JSON shape of cli.md on one small case, errors against float64 within
// float rounding, and usage errors; the same for an accelerator's layer (--backend opencl, on
// PoCL in CI). Never a timing assertion: speed is measured, not tested.
#include "cli_runner.h"

#include <nlohmann/json.hpp>

using nlohmann::json;

class TestCliBench : public QObject {
    Q_OBJECT
private slots:
    void oneCaseHasTheDocumentedFields_data() {
        QTest::addColumn<QString>("mask");
        QTest::addColumn<QString>("precision");
        QTest::addRow("window") << "window:5"
                                << "float32";
        QTest::addRow("causal") << "causal"
                                << "float64";
        QTest::addRow("causal_window") << "causal_window:3"
                                       << "float32";
    }
    void oneCaseHasTheDocumentedFields() {
        QFETCH(QString, mask);
        QFETCH(QString, precision);
        const CliResult r =
            runCli({"bench", "--n", "77", "--d", "16", "--mask", mask, "--precision", precision,
                    "--repeat", "1", "--warmup", "0", "--skip-probe", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QVERIFY(j["peak_gflops"].is_null());
        QCOMPARE(j["cases"].size(), std::size_t(1));
        const json& c = j["cases"][0];
        QCOMPARE(c["n"].get<int>(), 77);
        QCOMPARE(c["mask"].get<std::string>(), mask.toStdString());
        QCOMPARE(c["precision"].get<std::string>(), precision.toStdString());
        for (const char* key : {"seconds_median", "seconds_min", "gflops_dense", "gflops_useful"})
            QVERIFY2(c[key].get<double>() > 0, key);
        QVERIFY(c["gflops_useful"].get<double>() < c["gflops_dense"].get<double>());
        for (const char* key : {"cpu_seconds_median", "cpu_seconds_mean"})
            QVERIFY2(c.contains(key) && c[key].get<double>() >= 0, key);
        QVERIFY(c["max_error_vs_float64"].get<double>() < 1e-5);
    }

    // The peak is that of the vectors the chosen kernels use: ATTNLAB_CPU_PATH=x86-64 (SSE2, on
    // every x86-64 processor) is measured with 128-bit vectors, whatever the processor has.
    void peakProbeMeasuresTheChosenKernelsVectors() {
        const CliResult devices = runCli({"devices"});
        if (!devices.out.contains("chosen at run time; variants: x86-64,"))
            QSKIP("this build has one variant of the kernels (-DATTNLAB_ARCH or not x86-64)");
        qputenv("ATTNLAB_CPU_PATH", "x86-64");
        const CliResult r =
            runCli({"bench", "--n", "16", "--d", "4", "--repeat", "1", "--warmup", "0", "--json"});
        qunsetenv("ATTNLAB_CPU_PATH");
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["peak_vector_bits"].get<int>(), 128);
        QVERIFY(j["peak_gflops"].get<double>() > 0);
        const CliResult skipped = runCli({"bench", "--n", "16", "--d", "4", "--repeat", "1",
                                          "--warmup", "0", "--skip-probe", "--json"});
        QVERIFY(json::parse(skipped.out.toStdString())["peak_vector_bits"].is_null());
    }

    void badOptionsAreUsageErrors() {
        QCOMPARE(runCli({"bench", "--mask", "diagonal"}).exitCode, 2);
        QCOMPARE(runCli({"bench", "--mixer", "ssm"}).exitCode, 2);
        QCOMPARE(runCli({"bench", "--backend", "gpu"}).exitCode, 2);
        QCOMPARE(runCli({"bench", "--heads", "4"}).exitCode, 2); // the cpu bench times one head
        QCOMPARE(runCli({"bench", "--help"}).exitCode, 0);
    }

    void aDeviceLayerHasTheDocumentedFields_data() {
        QTest::addColumn<QString>("mask");
        QTest::addColumn<QString>("precision");
        QTest::addRow("dense float32") << "all"
                                       << "float32";
        QTest::addRow("window float64") << "window:5"
                                        << "float64";
    }
    void aDeviceLayerHasTheDocumentedFields() {
#ifndef ATTNLAB_HAVE_OPENCL
        QSKIP("the OpenCL backend is not built into this build");
#endif
        QFETCH(QString, mask);
        QFETCH(QString, precision);
        const std::vector<json> opencl = devicesOf("opencl");
        if (opencl.empty()) QSKIP("no OpenCL device");
        bool float64 = false;
        for (const json& f : opencl.front()["features"])
            float64 = float64 || f == "float64";
        if (precision == "float64" && !float64) QSKIP("the OpenCL device has no float64");
        const CliResult r = runCli({"bench", "--backend", "opencl:0", "--n", "70", "--d", "8",
                                    "--heads", "3", "--mask", mask, "--precision", precision,
                                    "--repeat", "2", "--warmup", "0", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["backend"].get<std::string>(), std::string("opencl:0"));
        QCOMPARE(j["cases"].size(), std::size_t(1));
        const json& c = j["cases"][0];
        QCOMPARE(c["n"].get<int>(), 70);
        QCOMPARE(c["heads"].get<int>(), 3);
        QCOMPARE(c["mask"].get<std::string>(), mask.toStdString());
        QCOMPARE(c["precision"].get<std::string>(), precision.toStdString());
        QCOMPARE(c["rows_compared"].get<int>(), 64);
        for (const char* key : {"seconds_median", "seconds_min", "tflops_dense", "tflops_useful"})
            QVERIFY2(c[key].get<double>() > 0, key);
        QVERIFY(c["tflops_useful"].get<double>() <= c["tflops_dense"].get<double>());
        QVERIFY(c["max_error_vs_cpu_float64"].get<double>() <
                (precision == "float32" ? 1e-5 : 1e-12));
    }

    // Without a CUDA device, bench --backend cuda says so (exit 2); with one, it runs.
    void aDeviceThatIsNotThereIsNamed() {
        const CliResult r = runCli({"bench", "--backend", "cuda", "--n", "8", "--heads", "1",
                                    "--repeat", "1", "--warmup", "0", "--skip-probe"});
        if (!devicesOf("cuda").empty()) {
            QVERIFY2(r.exitCode == 0, r.err.constData());
            return;
        }
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("cuda"), r.err.constData());
    }

private:
    // The devices `devices --json` lists for `backend`, in order.
    static std::vector<json> devicesOf(const std::string& backend) {
        const CliResult r = runCli({"devices", "--json"});
        const json listed = json::parse(r.out.toStdString());
        std::vector<json> found;
        for (const json& d : listed["devices"])
            if (d["backend"] == backend) found.push_back(d);
        return found;
    }
};

QTEST_GUILESS_MAIN(TestCliBench)
#include "test_cli_bench.moc"
