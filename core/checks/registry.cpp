// The registry of property checks, the report's JSON form, and running a scenario's checks.
#include "core/base/error.h"
#include "core/checks/check_factories.h"
#include "core/checks/property_check.h"

namespace attnlab {

const char* verdictName(Verdict verdict) {
    switch (verdict) {
    case Verdict::Holds:
        return "holds";
    case Verdict::Fails:
        return "fails";
    case Verdict::NotApplicable:
        break;
    }
    return "not applicable";
}

nlohmann::json reportJson(const PropertyReport& r) {
    nlohmann::json j = {{"name", r.name},
                        {"holds", r.verdict == Verdict::NotApplicable
                                      ? nlohmann::json(nullptr)
                                      : nlohmann::json(r.verdict == Verdict::Holds)},
                        {"verdict", verdictName(r.verdict)},
                        {"exact", r.exact},
                        {"max_deviation", r.maxDeviation},
                        {"tolerance", r.tolerance},
                        {"tolerance_rule", r.toleranceRule},
                        {"checked", r.checked},
                        {"witness", r.witness},
                        {"explanation", r.explanation}};
    if (!r.shrunkWitness.is_null()) j["shrunk_witness"] = r.shrunkWitness;
    if (!r.details.empty()) j["details"] = r.details;
    if (!r.difference.is_null()) j["difference"] = r.difference;
    return j;
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
