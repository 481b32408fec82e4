// The property-check interface's shared path (parameters, not applicable), its help line, the
// registry of property checks, and running a scenario's checks.
#include "core/checks/property_check.h"

#include "core/base/error.h"
#include "core/checks/all_true_mask_check.h"
#include "core/checks/batch_invariance_check.h"
#include "core/checks/causality_check.h"
#include "core/checks/data_parallel_check.h"
#include "core/checks/equivariance_check.h"
#include "core/checks/gradient_check.h"
#include "core/checks/locality_check.h"
#include "core/checks/logit_symmetry_check.h"
#include "core/checks/row_sums_check.h"
#include "core/checks/shift_invariance_check.h"
#include "core/checks/tensor_parallel_check.h"
#include "core/checks/tiling_check.h"

#include <algorithm>

namespace attnlab {

namespace {

// A report that does not apply to this scenario, saying why.
PropertyReport notApplicableReport(const std::string& name, const std::string& why) {
    PropertyReport r;
    r.name = name;
    r.verdict = Verdict::NotApplicable;
    r.explanation = why;
    return r;
}

} // namespace

PropertyReport PropertyCheck::run(const CheckRequest& request) const {
    const std::vector<CheckParameter> declared = parameters();
    for (const auto& [key, value] : request.params.items())
        if (std::none_of(declared.begin(), declared.end(),
                         [&](const CheckParameter& p) { return p.name == key; }))
            throw InputError("unknown parameter '" + key + "'");
    if (const auto why = notApplicable(request.scenario)) return notApplicableReport(name(), *why);
    return evaluate(request);
}

const char* parameterTypeName(CheckParameter::Type type) {
    return type == CheckParameter::Type::Integer ? "integer" : "integer or list of integers";
}

std::string parametersHelp(const PropertyCheck& check) {
    const std::string note = check.note();
    std::string text;
    for (const CheckParameter& p : check.parameters())
        text += (text.empty() ? "" : "; ") + p.name + " [" + p.defaultValue + "]" +
                (p.help.empty() ? "" : " " + p.help);
    if (text.empty()) return note.empty() ? "(none)" : "(none; " + note + ")";
    return note.empty() ? text : text + "; " + note;
}

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
        return list;
    }();
    return checks;
}

const PropertyCheck* findPropertyCheck(const std::string& name) {
    for (const auto& c : propertyChecks())
        if (c->name() == name) return c.get();
    return nullptr;
}

CheckSpec parseCheckArgument(const std::string& text) {
    CheckSpec spec;
    const auto colon = text.find(':');
    spec.name = text.substr(0, colon);
    if (colon == std::string::npos) return spec;
    std::string rest = text.substr(colon + 1);
    std::size_t start = 0;
    while (start < rest.size()) {
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
        const auto parsed = nlohmann::json::parse(value, nullptr, false);
        spec.params[key] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
        start = end + 1;
    }
    return spec;
}

std::vector<PropertyReport> runChecks(const Scenario& scenario,
                                      const std::vector<CheckSpec>& checks, std::uint64_t seed,
                                      const std::function<bool()>& cancelled) {
    std::vector<PropertyReport> reports;
    for (const CheckSpec& spec : checks) {
        const PropertyCheck* check = findPropertyCheck(spec.name);
        if (!check)
            throw InputError("unknown property '" + spec.name + "' (see attnlab-cli check --help)");
        try {
            reports.push_back(check->run({scenario, spec.params, seed, cancelled}));
        } catch (const InputError& e) {
            throw InputError("property " + spec.name + ": " + e.what());
        }
    }
    return reports;
}

} // namespace attnlab
