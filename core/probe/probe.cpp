// SPDX-License-Identifier: GPL-3.0-or-later
// A probe run (probe.h): the intended mask, the default properties, the plan and the reports.
#include "core/probe/probe.h"

#include "core/base/error.h"
#include "core/base/random.h"
#include "core/checks/check_registry.h"
#include "core/formats/npy.h"
#include "core/io/model_spec_reader.h"

#include <regex>

namespace attnlab {

namespace {

// `causal`, `window:2` and the other short forms as the scenario format's mask object.
nlohmann::json shortMask(const std::string& spec) {
    std::smatch m;
    if (spec == "all" || spec == "causal" || spec == "none") return {{"kind", spec}};
    if (std::regex_match(spec, m, std::regex(R"((window|causal[_-]window|prefix):(\d{1,9}))"))) {
        std::string kind = m[1];
        if (kind == "causal-window") kind = "causal_window";
        return {{"kind", kind}, {kind == "prefix" ? "length" : "radius", std::stol(m[2])}};
    }
    if (!spec.empty() && spec.front() == '{') {
        try {
            return nlohmann::json::parse(spec);
        } catch (const nlohmann::json::exception& e) {
            throw InputError("--mask: not valid JSON: " + std::string(e.what()));
        }
    }
    throw InputError("--mask: '" + spec +
                     "' is not a mask (all, causal, window:R, causal_window:R, prefix:P, a mask "
                     "object of the scenario format, or a .npy file)");
}

Sequence drawnTokens(int n, int d, std::uint64_t seed) {
    SplitMix64 random(seed);
    return Sequence::NullaryExpr(n, d, [&] { return random.normal(); });
}

bool nothingLater(const BoolMatrix& mask) {
    for (Eigen::Index s = 0; s < mask.rows(); ++s)
        if (mask.row(s).tail(mask.cols() - s - 1).any()) return false;
    return true;
}

} // namespace

BoolMatrix parseIntendedMask(const std::string& spec, int n, int queries) {
    if (spec.size() > 4 && spec.substr(spec.size() - 4) == ".npy") {
        const BoolMatrix read = readNpyMask(spec);
        if (read.rows() == n && read.cols() == n) return read;
        if (queries > 0 && read.rows() == queries && read.cols() == n) {
            BoolMatrix full = BoolMatrix::Constant(n, n, false);
            full.bottomRows(queries) = read;
            return full;
        }
        throw InputError("--mask " + spec + ": the mask is " + std::to_string(read.rows()) + " x " +
                         std::to_string(read.cols()) + ", expected " + std::to_string(n) + " x " +
                         std::to_string(n) +
                         (queries > 0 ? " or " + std::to_string(queries) + " x " + std::to_string(n)
                                      : std::string()));
    }
    const nlohmann::json object = shortMask(spec);
    return buildMask(scenario_json::readMask(JsonReader(object, "--mask")), n);
}

std::vector<std::string> defaultProbeProperties(const std::optional<BoolMatrix>& mask, int n,
                                                int queries) {
    std::vector<std::string> names;
    if (mask) names.push_back("mask");
    if (!mask || nothingLater(*mask)) {
        names.push_back("causality");
        if (queries == 0) names.push_back("prefix-consistency");
    }
    if (mask && dependencyRadius(*mask) < n - 1 && dependencyRadius(*mask) >= 0)
        names.push_back("locality");
    if (mask && mask->all() && queries == 0) {
        names.push_back("permutation-equivariance");
        names.push_back("permutation-invariance");
    }
    names.push_back("batch-invariance");
    return names;
}

ProbeResult runProbe(const ProbeRequest& request, SequenceFunction& function) {
    ProbeResult result;
    result.tokens = request.input ? *request.input
                                  : drawnTokens(request.tokens, request.features, request.seed);
    const auto n = int(result.tokens.rows());
    if (n < 1 || result.tokens.cols() < 1) throw InputError("the probe needs at least one token");
    if (request.queries < 0 || request.queries > n)
        throw InputError("--queries must be from 1 to the number of tokens (" + std::to_string(n) +
                         ")");
    BlackBoxRequest base;
    base.queries = request.queries;
    base.cancelled = request.cancelled;
    base.function = &function;
    if (!request.mask.empty()) {
        base.intendedMask = parseIntendedMask(request.mask, n, request.queries);
        base.intendedMaskText = request.mask;
        result.intendedMask = base.intendedMask;
        result.intendedMaskText = request.mask;
    }
    std::vector<CheckSpec> chosen = request.properties;
    if (chosen.empty())
        for (const std::string& name :
             defaultProbeProperties(base.intendedMask, n, request.queries))
            chosen.push_back({name, nlohmann::json::object()});

    const long callsBefore = function.calls(), sequencesBefore = function.sequences();
    BlackBoxPlan plan(result.tokens, request.seed);
    struct Planned {
        std::string name;
        BlackBoxRequest request;
        std::unique_ptr<BlackBoxAnalysis> analysis; // none: not applicable
        std::string why;
    };
    std::vector<Planned> planned;
    for (const CheckSpec& spec : chosen) {
        const BlackBoxProperty* property = findBlackBoxProperty(spec.name);
        if (!property) {
            std::string known;
            for (const BlackBoxProperty* p : blackBoxProperties())
                known += (known.empty() ? "" : ", ") + p->name();
            throw InputError("probe: unknown property '" + spec.name + "' (a program can be " +
                             "checked for " + known + ")");
        }
        refuseUndeclared(*property, spec.params);
        BlackBoxRequest own = base;
        own.params = spec.params;
        Planned p{spec.name, own, nullptr, ""};
        if (const auto why = property->notApplicable(own))
            p.why = *why;
        else
            p.analysis = property->plan(plan, own);
        planned.push_back(std::move(p));
    }
    plan.evaluate(function, request.cancelled, request.progress);

    BlackBoxTolerance tolerance{function.unitRoundoff(), long(n) + long(result.tokens.cols()),
                                request.tolerance, function.precisionText()};
    for (Planned& p : planned) {
        if (!p.analysis) {
            PropertyReport na;
            na.name = p.name;
            na.explanation = p.why;
            result.reports.push_back(std::move(na));
            continue;
        }
        p.request.tolerance = tolerance;
        result.reports.push_back(p.analysis->report(plan, p.request));
    }
    result.calls = function.calls() - callsBefore;
    result.sequences = function.sequences() - sequencesBefore;
    result.precision = function.precisionText();
    return result;
}

} // namespace attnlab
