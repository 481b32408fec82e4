// SPDX-License-Identifier: GPL-3.0-or-later
// The control group's CPU quota: the text of cgroup v2's cpu.max and v1's files read as whole
// processors, the quota found from a process's group up to the root, and the parallel loops'
// thread count kept within it.
#include "core/base/cpu_quota.h"
#include "core/base/parallel.h"

#include <QtTest>

#include <optional>

using namespace attnlab;

namespace {

// A control group file system in a temporary folder: files written into it, and the quota of
// a process whose /proc/<pid>/cgroup reads `groups` under it.
class CgroupTree {
public:
    // Writes `text` to `path` in the tree, making the folders on the way.
    void write(const QString& path, const QByteArray& text) {
        const QString full = dir_.path() + "/" + path;
        QVERIFY(QDir().mkpath(QFileInfo(full).path()));
        QFile file(full);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text);
    }
    std::optional<int> quotaOf(std::string_view groups) const {
        return quotaProcessorsIn(groups, dir_.path().toStdString());
    }

private:
    QTemporaryDir dir_;
};

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
        CgroupTree tree;
        tree.write("cpu.max", "400000 100000\n");
        tree.write("a/cpu.max", "100000 100000\n");
        tree.write("a/b/cpu.max", "max 100000\n");
        QCOMPARE(tree.quotaOf("0::/a/b\n").value_or(0), 1);
        QCOMPARE(tree.quotaOf("0::/c\n").value_or(0), 4);
        QCOMPARE(tree.quotaOf("").value_or(0), 4);
    }

    // cgroup v1: the cpu controller's line (possibly shared with cpuacct), -1 meaning none.
    void v1QuotasAreFoundInTheCpuHierarchy() {
        CgroupTree tree;
        for (const QString group : {"cpu", "cpu/x", "cpu/x/y"})
            tree.write(group + "/cpu.cfs_period_us", "100000\n");
        tree.write("cpu/cpu.cfs_quota_us", "-1\n");
        tree.write("cpu/x/cpu.cfs_quota_us", "250000\n");
        tree.write("cpu/x/y/cpu.cfs_quota_us", "-1\n");
        QCOMPARE(tree.quotaOf("5:memory:/z\n4:cpu,cpuacct:/x/y\n").value_or(0), 3);
        QCOMPARE(tree.quotaOf("4:cpuacct,cpu:/x\n").value_or(0), 3);
        QVERIFY(!tree.quotaOf("4:cpu:/\n"));
        QVERIFY(!tree.quotaOf("4:cpuset:/x\n")); // not the cpu controller: the root's
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
