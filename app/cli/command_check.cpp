// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli check`: run property checks on a scenario's numbers (cli.md).
#include "arguments.h"
#include "commands.h"
#include "report_text.h"

#include "core/base/error.h"
#include "core/checks/check_registry.h"
#include "core/checks/report_export.h"
#include "core/explore/run_report.h"
#include "core/io/scenario_reader.h"

#include <ostream>
#include <sstream>

namespace attnlab::cli {

std::string checkUsage() {
    std::ostringstream out;
    out << "usage: attnlab-cli check SCENARIO [--property NAME[:key=value,...]]... [--samples K]\n"
           "                        [--seed S] [--backend auto|cpu|opencl|cuda] [--json]\n\n"
           "Checks properties on the scenario's actual numbers, in its precision. Without\n"
           "--property, runs the scenario's own \"checks\", or every property when it lists "
           "none.\n\n"
           "  --property P  NAME or NAME:key=value,... (repeatable), e.g. locality:radius=2\n"
           "  --samples K   random permutations to sample (overrides a property's samples)\n"
           "  --seed S      seed of the sampled permutations and perturbations (default 0)\n"
           "  --backend B   where the forward passes run (default auto; gradient: always cpu);\n"
           "                B:INDEX picks one device of B, as devices lists it (cuda:1)\n"
           "  --json        print {\"precision\", \"backend\", \"properties\": [...]}\n\n"
           "properties:\n";
    for (const auto& c : propertyChecks()) {
        const std::string name = c->name();
        out << "  " << name << std::string(name.size() < 26 ? 26 - name.size() : 1, ' ')
            << parametersHelp(*c) << "\n";
    }
    out << "\nexit status: 0 every property holds (or does not apply), 1 one fails, 2 bad input\n";
    return out.str();
}

int checkCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const Arguments a(args, {"--json"}, {"--property", "--samples", "--seed", "--backend"});
    if (a.help()) {
        out << checkUsage();
        return 0;
    }
    a.expectPositionals(1, "SCENARIO (a .json file or builtin:NAME)");
    const BackendChoice backend = backendOption(a);
    const long samples = a.integer("--samples", -1, 0, 1000000);
    const auto seed = static_cast<std::uint64_t>(a.integer("--seed", 0, 0, 1L << 53));
    Scenario scenario = loadScenario(a.positionals()[0]);
    scenario.backend = backend;

    std::vector<CheckSpec> checks;
    for (const std::string& p : a.all("--property"))
        checks.push_back(parseCheckArgument(p));
    if (checks.empty()) checks = scenario.checks;
    if (checks.empty())
        for (const auto& c : propertyChecks())
            checks.push_back({c->name()});
    for (CheckSpec& c : checks) {
        const PropertyCheck* check = findPropertyCheck(c.name);
        if (!check)
            throw UsageError("unknown property '" + c.name + "' (the list is in check --help)");
        if (samples >= 0 && check->declares("samples")) c.params["samples"] = samples;
    }
    const std::vector<PropertyReport> reports = runChecks(scenario, checks, seed);
    const bool failed = anyFails(reports);

    const nlohmann::json ran = backendJson(scenario);
    for (const auto& notice : ran["notices"])
        err << "notice: " << notice.get<std::string>() << "\n";
    if (a.flag("--json")) {
        out << checkReportJson(scenario.precision, ran, reports).dump(2) << "\n";
        return failed ? 1 : 0;
    }
    out << (scenario.name.empty() ? "(unnamed scenario)" : scenario.name) << " — precision "
        << precisionName(scenario.precision) << ", backend " << ran["backend"].get<std::string>()
        << " (asked: " << backendChoiceName(backend) << "; layers:";
    for (const auto& layer : ran["layer_backends"])
        out << " " << layer.get<std::string>();
    out << ")\n\n";
    printReports(out, reports);
    return failed ? 1 : 0;
}

} // namespace attnlab::cli
