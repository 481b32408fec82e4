// The control group's CPU quota: the text of cgroup v2's cpu.max and v1's files read as whole
// processors, the quota found from a process's group up to the root, and the parallel loops'
// thread count kept within it.
#include "core/base/cpu_quota.h"
#include "core/base/parallel.h"

#include <QtTest>

#include <optional>

using namespace attnlab;

namespace {

// Writes `text` to root/path, making the folders on the way.
void writeFile(const QString& root, const QString& path, const QByteArray& text) {
    const QString full = root + "/" + path;
    QVERIFY(QDir().mkpath(QFileInfo(full).path()));
    QFile file(full);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

} // namespace

class TestCpuQuota : public QObject {
    Q_OBJECT
private slots:
    void quotasAreWholeProcessorsRoundedUp_data() {
        QTest::addColumn<QString>("quota");
        QTest::addColumn<QString>("period");
        QTest::addColumn<int>("processors"); // 0: no quota
        const struct {
            const char *name, *quota, *period;
            int processors;
        } rows[] = {{"two", "200000", "100000", 2},      {"one and a half", "150000", "100000", 2},
                    {"half", "50000", "100000", 1},      {"newline", "400000\n", "100000\n", 4},
                    {"v2 no quota", "max", "100000", 0}, {"v1 no quota", "-1", "100000", 0},
                    {"zero", "0", "100000", 0},          {"no period", "200000", "", 0},
                    {"text", "2e5", "100000", 0}};
        for (const auto& r : rows)
            QTest::newRow(r.name) << QString(r.quota) << QString(r.period) << r.processors;
    }
    void quotasAreWholeProcessorsRoundedUp() {
        QFETCH(QString, quota);
        QFETCH(QString, period);
        QFETCH(int, processors);
        const std::optional<int> got = quotaProcessors(quota.toStdString(), period.toStdString());
        QCOMPARE(got.value_or(0), processors);
    }

    // cgroup v2: a quota on a parent binds its children; the smallest on the way up wins; a
    // group that is not there (a container's view of a host path) falls back to the root.
    void v2QuotasAreFoundUpToTheRoot() {
        QTemporaryDir dir;
        const QString root = dir.path();
        writeFile(root, "cpu.max", "400000 100000\n");
        writeFile(root, "a/cpu.max", "100000 100000\n");
        writeFile(root, "a/b/cpu.max", "max 100000\n");
        const std::string r = root.toStdString();
        QCOMPARE(quotaProcessorsIn("0::/a/b\n", r).value_or(0), 1);
        QCOMPARE(quotaProcessorsIn("0::/c\n", r).value_or(0), 4);
        QCOMPARE(quotaProcessorsIn("", r).value_or(0), 4);
    }

    // cgroup v1: the cpu controller's line (possibly shared with cpuacct), -1 meaning none.
    void v1QuotasAreFoundInTheCpuHierarchy() {
        QTemporaryDir dir;
        const QString root = dir.path();
        for (const QString group : {"cpu", "cpu/x", "cpu/x/y"})
            writeFile(root, group + "/cpu.cfs_period_us", "100000\n");
        writeFile(root, "cpu/cpu.cfs_quota_us", "-1\n");
        writeFile(root, "cpu/x/cpu.cfs_quota_us", "250000\n");
        writeFile(root, "cpu/x/y/cpu.cfs_quota_us", "-1\n");
        const std::string r = root.toStdString();
        QCOMPARE(quotaProcessorsIn("5:memory:/z\n4:cpu,cpuacct:/x/y\n", r).value_or(0), 3);
        QCOMPARE(quotaProcessorsIn("4:cpuacct,cpu:/x\n", r).value_or(0), 3);
        QVERIFY(!quotaProcessorsIn("4:cpu:/\n", r));
        QVERIFY(!quotaProcessorsIn("4:cpuset:/x\n", r)); // not the cpu controller: the root's
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
