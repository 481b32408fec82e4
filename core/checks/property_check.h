// SPDX-License-Identifier: GPL-3.0-or-later
// The interface every property check implements (the registry of all of them:
// check_registry.h). A check declares its parameters, may say why it does not apply to a scenario,
// and evaluates on the scenario's actual numbers in its precision.
#pragma once

#include "core/base/cancellation.h"
#include "core/checks/property_report.h"
#include "core/model/scenario.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

class ModelCache;

/// What a check is asked: the scenario, the parameters given for it (cli.md), the sampling seed.
struct CheckRequest {
    const Scenario& scenario;
    nlohmann::json params = nlohmann::json::object();
    std::uint64_t seed = 0;
    /// Polled between units of work, and by the forward passes and parallel loops the check runs
    /// (cancellation.h); returning true abandons the check (throws CancelledError).
    std::function<bool()> cancelled;
    /// The scenario's models shared with the checks run with this one (model_cache.h); none:
    /// the check builds its own.
    std::shared_ptr<ModelCache> models;
};

/// A parameter a check reads (`--property NAME:key=value`): its name, its type, its default (in
/// words where it depends on the scenario) and what it does.
struct CheckParameter {
    enum class Type { Integer, IntegerOrList, Word }; // Word: one of the words `help` lists
    std::string name;
    Type type = Type::Integer;
    std::string defaultValue;
    std::string help; // may be empty
};

class PropertyCheck {
public:
    virtual ~PropertyCheck() = default;
    virtual std::string name() const = 0;
    /// The parameters it reads; any other is refused.
    virtual std::vector<CheckParameter> parameters() const { return {}; }
    /// Whether parameters() has one called `parameter`.
    bool declares(const std::string& parameter) const;
    /// What it reports or how, in a few words, for --help after the parameters (may be empty).
    virtual std::string note() const { return {}; }

    /// Refuses parameters it does not declare (InputError), returns a not-applicable report
    /// when notApplicable() gives a reason, else evaluates. Throws InputError for bad values.
    PropertyReport run(const CheckRequest& request) const;

protected:
    /// Why the property does not apply to this scenario; nullopt when it applies.
    virtual std::optional<std::string> notApplicable(const Scenario&) const { return {}; }
    /// The check itself, on a scenario it applies to.
    virtual PropertyReport evaluate(const CheckRequest& request) const = 0;
};

/// "integer", "integer or list of integers" or "word".
const char* parameterTypeName(CheckParameter::Type type);

/// One line: the parameters with their defaults and the note, for --help and tooltips
/// ("samples [32] random σ ...", "(none)", "(none; per layer and head)").
std::string parametersHelp(const PropertyCheck& check);

} // namespace attnlab
