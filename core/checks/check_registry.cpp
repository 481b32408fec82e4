// SPDX-License-Identifier: GPL-3.0-or-later
// The registry of properties (cli.md's order), one line each, parsing `--property` arguments,
// and running a scenario's checks.
#include "core/checks/check_registry.h"

#include "core/base/error.h"
#include "core/checks/model_cache.h"
#include "core/checks/properties/all_true_mask/all_true_mask_unit.h"
#include "core/checks/properties/batch_invariance/batch_invariance_unit.h"
#include "core/checks/properties/causality/causality_unit.h"
#include "core/checks/properties/data_parallel/data_parallel_unit.h"
#include "core/checks/properties/gradient/gradient_unit.h"
#include "core/checks/properties/kv_cache/kv_cache_unit.h"
#include "core/checks/properties/locality/locality_unit.h"
#include "core/checks/properties/logit_symmetry/logit_symmetry_unit.h"
#include "core/checks/properties/mask/mask_black_box.h"
#include "core/checks/properties/permutation/permutation_units.h"
#include "core/checks/properties/prefix_consistency/prefix_consistency_black_box.h"
#include "core/checks/properties/row_sums/row_sums_unit.h"
#include "core/checks/properties/shift_invariance/shift_invariance_unit.h"
#include "core/checks/properties/tensor_parallel/tensor_parallel_unit.h"
#include "core/checks/properties/tiling/tiling_units.h"

namespace attnlab {

const std::vector<PropertyUnit>& propertyUnits() {
    static const std::vector<PropertyUnit> units = [] {
        std::vector<PropertyUnit> list;
        list.push_back(permutationEquivarianceUnit());
        list.push_back(permutationInvarianceUnit());
        list.push_back(localityUnit());
        list.push_back(causalityUnit());
        list.push_back(logitSymmetryUnit());
        list.push_back(rowSumsUnit());
        list.push_back(allTrueMaskUnit());
        list.push_back(tilingUnit());
        list.push_back(chunkwiseUnit());
        list.push_back(shiftInvarianceUnit());
        list.push_back(batchInvarianceUnit());
        list.push_back(tensorParallelUnit());
        list.push_back(dataParallelUnit());
        list.push_back(gradientUnit());
        list.push_back(kvCacheUnit());
        return list;
    }();
    return units;
}

const PropertyUnit* findPropertyUnit(const std::string& name) {
    for (const PropertyUnit& unit : propertyUnits())
        if (unit.name() == name) return &unit;
    return nullptr;
}

const std::vector<const BlackBoxProperty*>& blackBoxProperties() {
    static const std::vector<std::shared_ptr<const BlackBoxProperty>> own = {
        makePrefixConsistencyBlackBox(), makeMaskBlackBox()};
    static const std::vector<const BlackBoxProperty*> list = [] {
        std::vector<const BlackBoxProperty*> all;
        for (const PropertyUnit& unit : propertyUnits())
            if (unit.blackBox) all.push_back(unit.blackBox.get());
        for (const auto& property : own)
            all.push_back(property.get());
        return all;
    }();
    return list;
}

const BlackBoxProperty* findBlackBoxProperty(const std::string& name) {
    for (const BlackBoxProperty* property : blackBoxProperties())
        if (property->name() == name) return property;
    return nullptr;
}

const std::vector<const PropertyCheck*>& propertyChecks() {
    static const std::vector<const PropertyCheck*> checks = [] {
        std::vector<const PropertyCheck*> list;
        for (const PropertyUnit& unit : propertyUnits())
            list.push_back(unit.check.get());
        return list;
    }();
    return checks;
}

const PropertyCheck* findPropertyCheck(const std::string& name) {
    const PropertyUnit* unit = findPropertyUnit(name);
    return unit ? unit->check.get() : nullptr;
}

std::string propertySection(const std::string& name) {
    const PropertyUnit* unit = findPropertyUnit(name);
    return unit ? unit->docs.section : std::string();
}

std::string propertyDisplayName(const std::string& name) {
    const PropertyUnit* unit = findPropertyUnit(name);
    return unit ? unit->displayName : name;
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
