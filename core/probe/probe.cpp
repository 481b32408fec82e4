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

// A mask given whole (a .npy file, the window's mask editor) for n tokens: n x n as it is, or a
// decode step's queries x n as the last rows of an n x n mask. `what` names it in the error.
BoolMatrix fittedMask(const BoolMatrix& read, int n, int queries, const std::string& what) {
    if (read.rows() == n && read.cols() == n) return read;
    if (queries > 0 && read.rows() == queries && read.cols() == n) {
        BoolMatrix full = BoolMatrix::Constant(n, n, false);
        full.bottomRows(queries) = read;
        return full;
    }
    throw InputError(what + ": the mask is " + std::to_string(read.rows()) + " x " +
                     std::to_string(read.cols()) + ", expected " + std::to_string(n) + " x " +
                     std::to_string(n) +
                     (queries > 0 ? " or " + std::to_string(queries) + " x " + std::to_string(n)
                                  : std::string()));
}

// The tokens the probe runs on, checked against the request's decode step.
Sequence probeTokens(const ProbeRequest& request) {
    Sequence tokens = request.input ? *request.input
                                    : drawnTokens(request.tokens, request.features, request.seed);
    const auto n = int(tokens.rows());
    if (n < 1 || tokens.cols() < 1) throw InputError("the probe needs at least one token");
    if (request.queries < 0 || request.queries > n)
        throw InputError("--queries must be from 1 to the number of tokens (" + std::to_string(n) +
                         ")");
    return tokens;
}

struct IntendedMask {
    std::optional<BoolMatrix> cells;
    std::string text;
};

// The mask the user meant over n tokens: its SPEC, else the cells given, else none.
IntendedMask intendedMask(const ProbeRequest& request, int n) {
    if (!request.mask.empty())
        return {parseIntendedMask(request.mask, n, request.queries), request.mask};
    if (request.maskMatrix)
        return {fittedMask(*request.maskMatrix, n, request.queries,
                           request.maskMatrixText.empty() ? std::string("the intended mask")
                                                          : request.maskMatrixText),
                request.maskMatrixText};
    return {};
}

// The properties named, else the default set for the intended mask.
std::vector<CheckSpec> chosenProperties(const ProbeRequest& request,
                                        const std::optional<BoolMatrix>& mask, int n) {
    if (!request.properties.empty()) return request.properties;
    std::vector<CheckSpec> chosen;
    for (const std::string& name : defaultProbeProperties(mask, n, request.queries))
        chosen.push_back({name, nlohmann::json::object()});
    return chosen;
}

} // namespace

BoolMatrix parseIntendedMask(const std::string& spec, int n, int queries) {
    if (spec.size() > 4 && spec.substr(spec.size() - 4) == ".npy")
        return fittedMask(readNpyMask(spec), n, queries, "--mask " + spec);
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

std::vector<std::string> probeProperties(const ProbeRequest& request) {
    const auto n = int(probeTokens(request).rows());
    std::vector<std::string> names;
    for (const CheckSpec& spec : chosenProperties(request, intendedMask(request, n).cells, n))
        names.push_back(spec.name);
    return names;
}

ProbeResult runProbe(const ProbeRequest& request, SequenceFunction& function) {
    ProbeResult result;
    result.tokens = probeTokens(request);
    const auto n = int(result.tokens.rows());
    BlackBoxRequest base;
    base.queries = request.queries;
    base.cancelled = request.cancelled;
    base.tolerance.fixed = request.tolerance; // the sweep orders changes by it while it runs
    base.function = &function;
    IntendedMask intended = intendedMask(request, n);
    base.intendedMask = intended.cells;
    base.intendedMaskText = intended.text;
    result.intendedMask = std::move(intended.cells);
    result.intendedMaskText = std::move(intended.text);
    const std::vector<CheckSpec> chosen = chosenProperties(request, base.intendedMask, n);

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
