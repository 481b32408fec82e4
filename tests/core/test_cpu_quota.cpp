// The control group's CPU quota: the text of cgroup v2's cpu.max and v1's files read as whole
// processors, and the parallel loops' thread count kept within it.
#include "core/base/cpu_quota.h"
#include "core/base/parallel.h"

#include <QtTest>

#include <optional>

using namespace attnlab;

class TestCpuQuota : public QObject {
    Q_OBJECT
private slots:
    void quotasAreWholeProcessorsRoundedUp_data() {
        QTest::addColumn<QString>("quota");
        QTest::addColumn<QString>("period");
        QTest::addColumn<int>("processors"); // 0: no quota
        QTest::newRow("two") << "200000"
                             << "100000" << 2;
        QTest::newRow("one and a half") << "150000"
                                        << "100000" << 2;
        QTest::newRow("half") << "50000"
                              << "100000" << 1;
        QTest::newRow("newline") << "400000\n"
                                 << "100000\n"
                                 << 4;
        QTest::newRow("v2 no quota") << "max"
                                     << "100000" << 0;
        QTest::newRow("v1 no quota") << "-1"
                                     << "100000" << 0;
        QTest::newRow("zero") << "0"
                              << "100000" << 0;
        QTest::newRow("no period") << "200000"
                                   << "" << 0;
        QTest::newRow("text") << "2e5"
                              << "100000" << 0;
    }
    void quotasAreWholeProcessorsRoundedUp() {
        QFETCH(QString, quota);
        QFETCH(QString, period);
        QFETCH(int, processors);
        const std::optional<int> got = quotaProcessors(quota.toStdString(), period.toStdString());
        QCOMPARE(got.value_or(0), processors);
    }

    // Whatever this machine's quota: a parallel loop starts at least one thread and no more
    // than OpenMP would, nor than the quota.
    void threadsStayWithinTheQuota() {
        const int threads = kernels::availableThreads();
        QVERIFY(threads >= 1);
#ifdef _OPENMP
        QVERIFY(threads <= omp_get_max_threads());
#endif
        if (const std::optional<int> quota = cpuQuotaProcessors()) QVERIFY(threads <= *quota);
        qInfo("threads %d, quota %s", threads,
              cpuQuotaProcessors() ? qPrintable(QString::number(*cpuQuotaProcessors())) : "none");
    }
};

QTEST_GUILESS_MAIN(TestCpuQuota)
#include "test_cpu_quota.moc"
