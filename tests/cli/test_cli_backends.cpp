// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab-cli and the backends: `devices` lists the CPU last and the OpenCL device (PoCL in
// CI), `run`/`check --backend opencl` report that OpenCL computed each layer, a refused
// request falls back to the CPU with a notice, and CUDA is honest without a device. A device
// index selects a device (`--backend opencl:0`); a malformed selector or an index past the last
// device is an error (exit status 2).
#include "cli_runner.h"

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {
bool listsBackend(const json& devices, const std::string& name) {
    for (const auto& b : devices["backends"])
        if (b["name"] == name) return true;
    return false;
}
} // namespace

class TestCliBackends : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY2(!qEnvironmentVariable("ATTNLAB_CLI").isEmpty(), "ATTNLAB_CLI not set");
        const CliResult r = runCli({"devices", "--json"});
        QCOMPARE(r.exitCode, 0);
        devices_ = json::parse(r.out.toStdString());
    }

    void devicesListsCpuAndOpencl() {
        QCOMPARE(devices_["backends"].back()["name"], json("cpu"));
        QCOMPARE(devices_["devices"].back()["backend"], json("cpu"));
#ifndef ATTNLAB_HAVE_OPENCL
        QSKIP("the OpenCL backend is not built into this build");
#endif
        QVERIFY(listsBackend(devices_, "opencl"));
        bool openclDevice = false;
        for (const auto& d : devices_["devices"])
            openclDevice = openclDevice || d["backend"] == "opencl";
        QVERIFY2(openclDevice, "no OpenCL device (is pocl-opencl-icd installed?)");
        const CliResult text = runCli({"devices"});
        QVERIFY(text.out.contains("opencl backend: 1 device") ||
                text.out.contains("opencl backend: 2 device"));
        QVERIFY(text.out.contains("cpu backend: 1 device(s)"));
    }

    void runOnOpenclSaysSo() {
#ifndef ATTNLAB_HAVE_OPENCL
        QSKIP("the OpenCL backend is not built into this build");
#endif
        const CliResult r =
            runCli({"run", "builtin:causal-model", "--backend", "opencl", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["backend"], json("opencl"));
        QCOMPARE(j["backend_requested"], json("opencl"));
        for (const auto& layer : j["original"]["layers"])
            QCOMPARE(layer["backend"], json("opencl"));
        QVERIFY(j["notices"].empty());
        const CliResult text = runCli({"run", "builtin:causal-model", "--backend", "opencl"});
        QVERIFY(text.out.contains("backend opencl (asked: opencl)"));
        QVERIFY(text.out.contains("layer 0 computed on opencl"));
    }

    void checkOnOpenclSaysSo() {
#ifndef ATTNLAB_HAVE_OPENCL
        QSKIP("the OpenCL backend is not built into this build");
#endif
        const CliResult r = runCli({"check", "builtin:causal-model", "--backend", "opencl",
                                    "--property", "causality", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["backend"], json("opencl"));
        QCOMPARE(j["layer_backends"][0], json("opencl"));
        QCOMPARE(j["properties"][0]["holds"], json(true));
    }

    void exactFallsBackToTheCpuWithANotice() {
#ifndef ATTNLAB_HAVE_OPENCL
        QSKIP("the OpenCL backend is not built into this build");
#endif
        const CliResult r =
            runCli({"run", "builtin:positional-counterexample", "--backend", "opencl", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["backend"], json("cpu"));
        QCOMPARE(j["notices"].size(), std::size_t(1));
        QVERIFY2(r.err.contains("notice: layer 0: opencl does not support this request: exact"),
                 r.err.constData());
    }

    void cudaIsHonestWithoutADevice() {
        const CliResult r = runCli({"run", "builtin:causal-model", "--backend", "cuda", "--json"});
        if (!listsBackend(devices_, "cuda")) {
            QCOMPARE(r.exitCode, 2);
            QVERIFY(r.err.contains("not built into this version"));
            return;
        }
        QVERIFY2(r.exitCode == 0, r.err.constData());
        bool cudaDevice = false;
        for (const auto& d : devices_["devices"])
            cudaDevice = cudaDevice || d["backend"] == "cuda";
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["backend"], json(cudaDevice ? "cuda" : "cpu"));
        if (cudaDevice) return;
        QVERIFY2(r.err.contains("cuda has no device"), r.err.constData());
        const CliResult text = runCli({"devices"});
        QVERIFY2(text.out.contains("cuda backend: 0 device(s); no CUDA device"),
                 text.out.constData());
    }

    void aSelectorComputesOnThatDevice() {
#ifndef ATTNLAB_HAVE_OPENCL
        QSKIP("the OpenCL backend is not built into this build");
#endif
        const CliResult text = runCli({"devices"});
        QVERIFY2(text.out.contains("  opencl:0  "), text.out.constData());
        QVERIFY2(text.out.contains("  cpu:0  "), text.out.constData());
        const CliResult r =
            runCli({"run", "builtin:causal-model", "--backend", "opencl:0", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["backend"], json("opencl"));
        QCOMPARE(j["backend_requested"], json("opencl:0"));
        for (const auto& layer : j["original"]["layers"])
            QCOMPARE(layer["backend"], json("opencl"));
        const CliResult check = runCli({"check", "builtin:causal-model", "--backend=opencl:0",
                                        "--property", "causality", "--json"});
        QVERIFY2(check.exitCode == 0, check.err.constData());
        QCOMPARE(json::parse(check.out.toStdString())["layer_backends"][0], json("opencl"));
    }

    void aSelectorPastTheLastDeviceIsRefused() {
#ifndef ATTNLAB_HAVE_OPENCL
        QSKIP("the OpenCL backend is not built into this build");
#endif
        const CliResult r = runCli({"run", "builtin:causal-model", "--backend", "opencl:99"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("backend opencl:99: no such device"), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void aMalformedSelectorIsRefused() {
        for (const char* bad : {"cuda:x", "auto:0", "opencl:"}) {
            const CliResult r = runCli({"run", "builtin:causal-model", "--backend", bad});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("--backend must be auto, cpu, opencl or cuda"),
                     r.err.constData());
            QVERIFY2(r.err.contains(bad), r.err.constData());
        }
    }

private:
    json devices_;
};

QTEST_GUILESS_MAIN(TestCliBackends)
#include "test_cli_backends.moc"
