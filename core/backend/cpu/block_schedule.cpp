// SPDX-License-Identifier: GPL-3.0-or-later
// The fused kernel's tasks (block_schedule.h).
#include "core/backend/cpu/block_schedule.h"

#include <algorithm>

namespace attnlab::kernels {

std::vector<BlockTask> scheduleBlocks(int heads, long count, long run, int threads, int rowTile) {
    std::vector<BlockTask> tasks;
    const long total = long(heads) * count, spread = 2L * threads;
    long dealt = 0; // blocks of every head
    for (int head = 0; head < heads; ++head)
        for (long i = 0; i < count;) {
            const long left = total - dealt;
            if (threads > 1 && left <= spread) {
                const int parts =
                    std::max(1, std::min(left <= threads ? 4 : 2, rowTile / kMinTaskRows));
                for (int p = 0; p < parts; ++p) // each at least rowTile / parts rows
                    tasks.push_back(
                        {head, i, i + 1, p * rowTile / parts, (p + 1) * rowTile / parts});
                ++i;
                ++dealt;
                continue;
            }
            long size = std::min(run, count - i);
            if (threads > 1) size = std::min(size, std::max(1L, (left + spread - 1) / spread));
            tasks.push_back({head, i, i + size, 0, rowTile});
            i += size;
            dealt += size;
        }
    return tasks;
}

} // namespace attnlab::kernels
