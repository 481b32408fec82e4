// SPDX-License-Identifier: GPL-3.0-or-later
// Items made on their first use by whichever thread asks first, the others asking meanwhile
// waiting for it: the CPU kernels pack a head's key and value blocks this way when each task reads
// only a few of them (a window), so that a block is packed right before the tasks that read it.
#pragma once

#include <atomic>
#include <memory>
#include <thread>

namespace attnlab::kernels {

class OncePerItem {
public:
    explicit OncePerItem(int count) : state_(new std::atomic<unsigned char>[count]) {
        for (int i = 0; i < count; ++i)
            state_[i].store(kNotMade, std::memory_order_relaxed);
    }

    /// Calls make() if item i is not made yet and no other thread is making it; else returns once
    /// it is made (what make wrote is then visible). make must not throw: a thread waiting for
    /// an item whose making failed would wait for ever.
    template <class Make>
    void ensure(int i, Make&& make) const noexcept {
        std::atomic<unsigned char>& state = state_[i];
        if (state.load(std::memory_order_acquire) == kMade) return;
        unsigned char expected = kNotMade;
        if (state.compare_exchange_strong(expected, kMaking, std::memory_order_acquire)) {
            make();
            state.store(kMade, std::memory_order_release);
            return;
        }
        while (state.load(std::memory_order_acquire) != kMade)
            std::this_thread::yield();
    }

private:
    static constexpr unsigned char kNotMade = 0, kMaking = 1, kMade = 2;
    std::unique_ptr<std::atomic<unsigned char>[]> state_;
};

} // namespace attnlab::kernels
