// SPDX-License-Identifier: GPL-3.0-or-later
// The registry of property checks (cli.md's order), parsing `--property` arguments, and running
// a scenario's checks.
#include "core/checks/check_registry.h"

#include "core/base/error.h"
#include "core/base/find_by_name.h"
#include "core/checks/model_cache.h"
#include "core/checks/properties/all_true_mask_check.h"
#include "core/checks/properties/batch_invariance_check.h"
#include "core/checks/properties/causality_check.h"
#include "core/checks/properties/data_parallel_check.h"
#include "core/checks/properties/equivariance_check.h"
#include "core/checks/properties/gradient_check.h"
#include "core/checks/properties/kv_cache_check.h"
#include "core/checks/properties/locality_check.h"
#include "core/checks/properties/logit_symmetry_check.h"
#include "core/checks/properties/row_sums_check.h"
#include "core/checks/properties/shift_invariance_check.h"
#include "core/checks/properties/tensor_parallel_check.h"
#include "core/checks/properties/tiling_check.h"

namespace attnlab {

const std::vector<std::unique_ptr<PropertyCheck>>& propertyChecks() {
    static const std::vector<std::unique_ptr<PropertyCheck>> checks = [] {
        std::vector<std::unique_ptr<PropertyCheck>> list;
        list.push_back(makeEquivarianceCheck(false));
        list.push_back(makeEquivarianceCheck(true));
        list.push_back(makeLocalityCheck());
        list.push_back(makeCausalityCheck());
        list.push_back(makeLogitSymmetryCheck());
        list.push_back(makeRowSumsCheck());
        list.push_back(makeAllTrueMaskCheck());
        list.push_back(makeTilingCheck(false));
        list.push_back(makeTilingCheck(true));
        list.push_back(makeShiftInvarianceCheck());
        list.push_back(makeBatchInvarianceCheck());
        list.push_back(makeTensorParallelCheck());
        list.push_back(makeDataParallelCheck());
        list.push_back(makeGradientCheck());
        list.push_back(makeKvCacheCheck());
        return list;
    }();
    return checks;
}

const PropertyCheck* findPropertyCheck(const std::string& name) {
    return findByName(propertyChecks(), name);
}

std::string propertySection(const std::string& name) {
    const auto& checks = propertyChecks();
    for (std::size_t i = 0; i < checks.size(); ++i)
        if (checks[i]->name() == name) return "2." + std::to_string(i + 1);
    return {};
}

CheckSpec parseCheckArgument(const std::string& text) {
    CheckSpec spec;
    const auto colon = text.find(':');
    spec.name = text.substr(0, colon);
    if (colon == std::string::npos) return spec;
    std::string rest = text.substr(colon + 1);
    std::size_t start = 0;
    // Each key=value once, none empty ("radius=1," or "radius=1,,x=2" leave one so).
    while (start <= rest.size()) {
        // Values may be JSON lists ("offset=[1,2]"): split on commas outside brackets.
        std::size_t end = start;
        int depth = 0;
        while (end < rest.size() && (rest[end] != ',' || depth > 0)) {
            depth += rest[end] == '[' ? 1 : rest[end] == ']' ? -1 : 0;
            ++end;
        }
        const std::string item = rest.substr(start, end - start);
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw InputError("--property " + text + ": expected key=value, got '" + item + "'");
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        if (spec.params.contains(key))
            throw InputError("--property " + text + ": " + key + " is given twice");
        const auto parsed = nlohmann::json::parse(value, nullptr, false);
        spec.params[key] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
        start = end + 1;
    }
    return spec;
}

std::vector<PropertyReport> runChecks(const Scenario& scenario,
                                      const std::vector<CheckSpec>& checks, std::uint64_t seed,
                                      const std::function<bool()>& cancelled,
                                      std::shared_ptr<ModelCache> models) {
    if (!models) models = std::make_shared<ModelCache>(scenario);
    std::vector<PropertyReport> reports;
    for (const CheckSpec& spec : checks) {
        const PropertyCheck* check = findPropertyCheck(spec.name);
        if (!check)
            throw InputError("unknown property '" + spec.name + "' (see attnlab-cli check --help)");
        try {
            reports.push_back(check->run({scenario, spec.params, seed, cancelled, models}));
        } catch (const InputError& e) {
            throw InputError("property " + spec.name + ": " + e.what());
        }
    }
    return reports;
}

} // namespace attnlab
