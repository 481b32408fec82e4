// attnlab-cli bench: the JSON shape of cli.md on one small case, errors against float64 within
// float rounding, and usage errors. Never a timing assertion: speed is measured, not tested.
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
        QVERIFY(c["max_error_vs_float64"].get<double>() < 1e-5);
    }

    void badOptionsAreUsageErrors() {
        QCOMPARE(runCli({"bench", "--mask", "diagonal"}).exitCode, 2);
        QCOMPARE(runCli({"bench", "--mixer", "ssm"}).exitCode, 2);
        QCOMPARE(runCli({"bench", "--backend", "opencl"}).exitCode, 2);
        QCOMPARE(runCli({"bench", "--help"}).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(TestCliBench)
#include "test_cli_bench.moc"
