// The interface every property check implements, and the registry of all of them (cli.md's
// property table). A check runs on a scenario's actual numbers in its precision.
#pragma once

#include "core/checks/property_report.h"
#include "core/model/scenario.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

/// What a check is asked: the scenario, the parameters given for it (cli.md), the sampling seed.
struct CheckRequest {
    const Scenario& scenario;
    nlohmann::json params = nlohmann::json::object();
    std::uint64_t seed = 0;
    /// Polled between units of work; returning true abandons the check (throws CancelledError).
    std::function<bool()> cancelled;
};

struct CancelledError : std::runtime_error {
    CancelledError() : std::runtime_error("check cancelled") {}
};

class PropertyCheck {
public:
    virtual ~PropertyCheck() = default;
    virtual std::string name() const = 0;
    /// One line: the parameters with their defaults, for --help.
    virtual std::string parameters() const = 0;
    /// Runs the check. Throws InputError for bad parameters.
    virtual PropertyReport run(const CheckRequest& request) const = 0;
};

/// Every property check, in cli.md's order.
const std::vector<std::unique_ptr<PropertyCheck>>& propertyChecks();
/// The check called `name`, or nullptr.
const PropertyCheck* findPropertyCheck(const std::string& name);

/// Runs the scenario's own checks (or `names` when non-empty, each "name" or
/// "name:key=value,...") and returns the reports in order. Throws InputError for unknown names.
std::vector<PropertyReport> runChecks(const Scenario& scenario,
                                      const std::vector<CheckSpec>& checks, std::uint64_t seed,
                                      const std::function<bool()>& cancelled = {});

/// Parses "name" or "name:key=value,key=value" (values are JSON, or strings when not JSON).
CheckSpec parseCheckArgument(const std::string& text);

} // namespace attnlab
