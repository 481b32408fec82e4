// SPDX-License-Identifier: GPL-3.0-or-later
// Stopping a long computation from another thread: the error that abandons it, and the calling
// thread's cancel flag, which code too deep to be handed one (a forward pass's row blocks, the
// items of a parallel loop) polls. A property check opens a CancelScope around its work.
#pragma once

#include <functional>
#include <stdexcept>

namespace attnlab {

struct CancelledError : std::runtime_error {
    CancelledError() : std::runtime_error("check cancelled") {}
};

/// For its lifetime, `cancelled` is the calling thread's cancel flag (an empty function or null:
/// none); the flag before it comes back when it ends.
class CancelScope {
public:
    using Flag = std::function<bool()>;
    explicit CancelScope(const Flag* cancelled) : outer_(current_) {
        current_ = cancelled && *cancelled ? cancelled : nullptr;
    }
    ~CancelScope() { current_ = outer_; }
    CancelScope(const CancelScope&) = delete;
    CancelScope& operator=(const CancelScope&) = delete;

    /// The calling thread's flag, or null.
    static const Flag* current() { return current_; }

private:
    const Flag* outer_;
    static inline thread_local const Flag* current_ = nullptr;
};

/// Throws CancelledError when the calling thread's flag says so.
inline void pollCancellation() {
    if (const CancelScope::Flag* cancelled = CancelScope::current(); cancelled && (*cancelled)())
        throw CancelledError();
}

} // namespace attnlab
