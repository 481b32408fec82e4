// SPDX-License-Identifier: GPL-3.0-or-later
// The models of one scenario, built once for the checks that run on it together (the CLI's
// `check`, the GUI's run of a scenario's checks) instead of once per check: a model of a
// checkpoint takes a while to read. Models are immutable once built; the cache is thread-safe.
#pragma once

#include "core/model/model.h"
#include "core/model/scenario.h"

#include <memory>
#include <mutex>
#include <typeindex>
#include <unordered_map>

namespace attnlab {

class ModelCache {
public:
    /// Serves the models of `scenario` (its model, token width and backend), which must outlive
    /// the cache.
    explicit ModelCache(const Scenario& scenario) : scenario_(scenario) {}
    ModelCache(const ModelCache&) = delete;
    ModelCache& operator=(const ModelCache&) = delete;

    /// Whether it serves the models of `s` (the very scenario it was made for).
    bool serves(const Scenario& s) const { return &s == &scenario_; }

    /// The scenario's model in scalar type T, built on the first call (InputError as Model's
    /// constructor, and again on every call while it fails).
    template <class T>
    std::shared_ptr<const Model<T>> model() {
        const std::lock_guard<std::mutex> lock(mutex_); // one build at a time, the first wins
        std::shared_ptr<const void>& slot = models_[std::type_index(typeid(T))];
        if (!slot)
            slot =
                std::make_shared<const Model<T>>(scenario_.model, scenario_.d(), scenario_.backend);
        return std::static_pointer_cast<const Model<T>>(slot);
    }

private:
    const Scenario& scenario_;
    std::mutex mutex_;
    std::unordered_map<std::type_index, std::shared_ptr<const void>> models_;
};

} // namespace attnlab
