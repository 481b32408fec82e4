// SPDX-License-Identifier: GPL-3.0-or-later
// The fused kernel's tasks (block_schedule.h): every row of every block dealt exactly once, in
// order; on one thread runs of whole blocks as before; on more, tasks shrinking towards the end,
// the last blocks' rows split.
#include "core/backend/cpu/block_schedule.h"

#include <QtTest>

#include <vector>

using namespace attnlab::kernels;

namespace {

// The first thing wrong with `tasks` as a schedule of `heads` x `count` blocks of `rowTile` rows
// in runs of at most `run`, or an empty string: each block's rows covered once, heads and blocks
// in order, a task of part of the rows holding one block and at least kMinTaskRows of them (or
// all of them).
QString scheduleFault(const std::vector<BlockTask>& tasks, int heads, long count, long run,
                      int rowTile) {
    int head = 0;
    long block = 0;  // the next block of `head` to deal
    int nextRow = 0; // its next row
    for (const BlockTask& t : tasks) {
        if (t.first >= t.last || t.last - t.first > run)
            return QString("task of blocks %1 .. %2 (run %3)").arg(t.first).arg(t.last).arg(run);
        if (t.rowBegin >= t.rowEnd || t.rowEnd > rowTile)
            return QString("rows %1 .. %2").arg(t.rowBegin).arg(t.rowEnd);
        const bool part = t.rowBegin > 0 || t.rowEnd < rowTile;
        if (part && t.last != t.first + 1) return QString("a part of several blocks' rows");
        if (part && t.rowEnd - t.rowBegin < kMinTaskRows)
            return QString("a part of %1 rows").arg(t.rowEnd - t.rowBegin);
        if (block == count) {
            ++head;
            block = 0;
        }
        if (t.head != head || t.first != block || t.rowBegin != nextRow)
            return QString("head %1, block %2, row %3 where head %4, block %5, row %6 was next")
                .arg(t.head)
                .arg(t.first)
                .arg(t.rowBegin)
                .arg(head)
                .arg(block)
                .arg(nextRow);
        nextRow = t.rowEnd == rowTile ? 0 : t.rowEnd;
        if (nextRow == 0) block = t.last;
    }
    const bool allDealt = count == 0 ? tasks.empty() : head == heads - 1 && block == count;
    return allDealt ? QString() : QString("blocks left undealt");
}

// The blocks of each task, and its rows where it holds part of a block's: "2", "1/64".
QStringList describe(const std::vector<BlockTask>& tasks, int rowTile) {
    QStringList out;
    for (const BlockTask& t : tasks)
        out << (t.rowBegin == 0 && t.rowEnd == rowTile
                    ? QString::number(t.last - t.first)
                    : QString("1/%1").arg(t.rowEnd - t.rowBegin));
    return out;
}

} // namespace

class TestBlockSchedule : public QObject {
    Q_OBJECT

private slots:
    void everyRowIsDealtOnceInOrder() {
        int cases = 0;
        for (int threads : {1, 2, 3, 8})
            for (int heads : {1, 3})
                for (long count : {0L, 1L, 5L, 32L, 128L})
                    for (long run : {1L, 4L, 16L})
                        for (int rowTile : {128, 100, 65, 64, 49, 33, 16, 13}) {
                            const auto tasks = scheduleBlocks(heads, count, run, threads, rowTile);
                            const QString fault = scheduleFault(tasks, heads, count, run, rowTile);
                            QVERIFY2(fault.isEmpty(),
                                     qPrintable(QString("threads %1, heads %2, count %3, run %4, "
                                                        "rows %5: %6")
                                                    .arg(threads)
                                                    .arg(heads)
                                                    .arg(count)
                                                    .arg(run)
                                                    .arg(rowTile)
                                                    .arg(fault)));
                            ++cases;
                        }
        QCOMPARE(cases, 960);
    }

    // One thread has nothing to wait for: runs of `run` whole blocks, each head's last shorter.
    void oneThreadTakesWholeRuns() {
        QCOMPARE(describe(scheduleBlocks(2, 10, 4, 1, 128), 128),
                 QStringList({"4", "4", "2", "4", "4", "2"}));
    }

    // Two threads: whole blocks while more than four are left, then the rows of each of the next
    // two in halves and of the last two in quarters.
    void lastBlocksAreSplit() {
        QCOMPARE(describe(scheduleBlocks(1, 6, 1, 2, 128), 128),
                 QStringList({"1", "1", "1/64", "1/64", "1/64", "1/64", "1/32", "1/32", "1/32",
                              "1/32", "1/32", "1/32", "1/32", "1/32"}));
        // Only the last head's last blocks: the others' tasks are the same as on one thread.
        const auto heads = describe(scheduleBlocks(3, 4, 1, 2, 128), 128);
        QCOMPARE(heads.mid(0, 8), QStringList(8, "1"));
        QCOMPARE(heads.size(), 8 + 2 * 2 + 2 * 4);
        // No part of fewer than kMinTaskRows: blocks of 16 rows stay whole, of 32 are halved, and
        // parts of 65 rows are 16, 16, 16 and 17.
        QCOMPARE(describe(scheduleBlocks(1, 2, 1, 2, 16), 16), QStringList({"1", "1"}));
        QCOMPARE(describe(scheduleBlocks(1, 2, 1, 2, 32), 32),
                 QStringList({"1/16", "1/16", "1/16", "1/16"}));
        QCOMPARE(describe(scheduleBlocks(1, 1, 1, 2, 65), 65),
                 QStringList({"1/16", "1/16", "1/16", "1/17"}));
    }

    // Runs of blocks packed on use (run 16 of 128 blocks, two threads) shrink as the blocks left
    // do, to about a quarter of them each, before the last blocks are split.
    void runsShrinkTowardsTheEnd() {
        QStringList expected{"16", "16", "16", "16", "16", "12", "9", "7", "5", "4", "3", "2", "2"};
        expected << QStringList(4, "1/64") << QStringList(8, "1/32");
        QCOMPARE(describe(scheduleBlocks(1, 128, 16, 2, 128), 128), expected);
    }
};

QTEST_GUILESS_MAIN(TestBlockSchedule)
#include "test_block_schedule.moc"
