// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli probe`: check another program's attention as a black box (cli.md, docs/probe.md):
// the options before `--`, the program and its arguments after it.
#include "arguments.h"
#include "commands.h"
#include "report_text.h"

#include "core/base/error.h"
#include "core/checks/check_registry.h"
#include "core/formats/npy.h"
#include "core/probe/probe.h"
#include "core/probe/program_function.h"

#include <csignal>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <sstream>

namespace attnlab::cli {

std::string probeUsage() {
    std::ostringstream out;
    out << "usage: attnlab-cli probe [--tokens N] [--features D] [--seed S]\n"
           "          [--precision float32|float64] [--property NAME[:key=value,...]]...\n"
           "          [--mask SPEC] [--queries M] [--persistent] [--timeout SEC]\n"
           "          [--max-batch-bytes B] [--tolerance T] [--json] [--out DIR]\n"
           "          -- PROGRAM [ARGS...]\n\n"
           "Checks another program's attention as a black box (docs/probe.md). AttnLab writes\n"
           "batches of sequences to IN.npy, shape (B, N, D), runs PROGRAM ARGS... IN.npy OUT.npy\n"
           "and reads (B, N, E) from OUT.npy (float16, float32 or float64).\n\n"
           "  --tokens N          tokens per sequence (default 16)\n"
           "  --features D        features per token (default 8)\n"
           "  --seed S            seed of the drawn tokens and samples (default 1)\n"
           "  --precision P       the input's dtype: float32 (default) or float64\n"
           "  --property P        NAME or NAME:key=value,... (repeatable); default: chosen by\n"
           "                      the intended mask (docs/probe.md)\n"
           "  --mask SPEC         the mask you meant: all, causal, window:R, causal_window:R,\n"
           "                      prefix:P, a scenario mask object, or a .npy file\n"
           "  --queries M         a decode step: the program returns the last M rows only\n"
           "                      (ATTNLAB_PROBE_QUERIES=M in its environment)\n"
           "  --persistent        start the program once; send \"IN<TAB>OUT\" lines on its\n"
           "                      standard input, read \"ok\" lines (ATTNLAB_PROBE=persistent)\n"
           "  --timeout SEC       the longest one call may take (default 120); then its\n"
           "                      process group is killed\n"
           "  --max-batch-bytes B the largest input of one call (default 268435456); larger\n"
           "                      batches are split; an output may be 4 times as large\n"
           "  --tolerance T       a fixed tolerance instead of the precision's rule\n"
           "  --json              print {\"program\", \"precision\", \"calls\", \"sequences\",\n"
           "                      \"properties\": [...]} (the entries of check --json)\n"
           "  --out DIR           also write report.json, tokens.npy, and the measured\n"
           "                      dependency_map.npy and intended_mask.npy when there are\n\n"
           "properties:\n";
    for (const BlackBoxProperty* p : blackBoxProperties()) {
        const std::string name = p->name();
        std::string params;
        for (const CheckParameter& c : p->parameters())
            params += c.name + " [" + c.defaultValue + "] ";
        out << "  " << name << std::string(name.size() < 26 ? 26 - name.size() : 1, ' ')
            << (params.empty() ? "(none)" : params) << "\n";
    }
    out << "\nexit status: 0 every property holds (or does not apply), 1 one fails, 2 bad input\n"
           "or a program that fails, hangs, or writes a wrong or missing output, 130 interrupted\n";
    return out.str();
}

namespace {

// The report's JSON: the program, the precision, the calls, and check --json's entries.
nlohmann::json probeJson(const ProbeResult& result, const ProgramCommand& command) {
    nlohmann::json properties = nlohmann::json::array();
    for (const PropertyReport& r : result.reports)
        properties.push_back(reportJson(r));
    nlohmann::json j = {{"program", command.argv},        {"precision", result.precision},
                        {"tokens", result.tokens.rows()}, {"features", result.tokens.cols()},
                        {"calls", result.calls},          {"sequences", result.sequences},
                        {"properties", properties}};
    if (result.intendedMask) j["mask"] = result.intendedMaskText;
    return j;
}

// The measured dependency map of the first report that has one.
const nlohmann::json* dependencyMap(const ProbeResult& result) {
    for (const PropertyReport& r : result.reports)
        if (r.details.contains("dependency_map")) return &r.details["dependency_map"];
    return nullptr;
}

void writeOut(const std::filesystem::path& dir, const ProbeResult& result,
              const nlohmann::json& report) {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "report.json") << report.dump(2) << "\n";
    writeNpy(dir / "tokens.npy", result.tokens);
    if (result.intendedMask) writeNpyMask(dir / "intended_mask.npy", *result.intendedMask);
    if (const nlohmann::json* rows = dependencyMap(result)) {
        BoolMatrix map(Eigen::Index(rows->size()), Eigen::Index(rows->at(0).size()));
        for (Eigen::Index s = 0; s < map.rows(); ++s)
            for (Eigen::Index t = 0; t < map.cols(); ++t)
                map(s, t) = rows->at(std::size_t(s)).at(std::size_t(t)).get<int>() != 0;
        writeNpyMask(dir / "dependency_map.npy", map);
    }
}

// Ctrl-C or a termination request while probing: the program runs in a process group of its own
// (so the terminal's signal does not reach it), and the probe stops it and removes its files.
volatile std::sig_atomic_t interrupted = 0;

void onInterrupt(int) {
    interrupted = 1;
}

// Installs onInterrupt for SIGINT and SIGTERM while it lives; the previous handlers after.
class InterruptGuard {
public:
    InterruptGuard() {
        struct sigaction action {};
        action.sa_handler = onInterrupt;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &previousInt_);
        sigaction(SIGTERM, &action, &previousTerm_);
    }
    ~InterruptGuard() {
        sigaction(SIGINT, &previousInt_, nullptr);
        sigaction(SIGTERM, &previousTerm_, nullptr);
    }

private:
    struct sigaction previousInt_ {
    }, previousTerm_{};
};

} // namespace

int probeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const auto dashes = std::find(args.begin(), args.end(), "--");
    const std::vector<std::string> own(args.begin(), dashes);
    const Arguments a(own, {"--json", "--persistent"},
                      {"--tokens", "--features", "--seed", "--precision", "--property", "--mask",
                       "--queries", "--timeout", "--max-batch-bytes", "--tolerance", "--out"});
    if (a.help()) {
        out << probeUsage();
        return 0;
    }
    a.expectPositionals(0, "nothing before -- (the program comes after it)");
    ProgramOptions options;
    if (dashes != args.end()) options.command.argv.assign(dashes + 1, args.end());
    if (options.command.argv.empty())
        throw UsageError("no program: give it after --, e.g. -- python3 my_attention.py");

    ProbeRequest request;
    request.tokens = int(a.integer("--tokens", 16, 1, 1 << 16));
    request.features = int(a.integer("--features", 8, 1, 1 << 16));
    request.seed = std::uint64_t(a.integer("--seed", 1, 0, 1L << 53));
    request.queries = int(a.integer("--queries", 0, 1, request.tokens));
    request.mask = a.option("--mask").value_or("");
    const std::string precision = a.option("--precision").value_or("float32");
    if (precision != "float32" && precision != "float64")
        throw UsageError("--precision must be float32 or float64");
    options.single = precision == "float32";
    options.persistent = a.flag("--persistent");
    options.queries = request.queries;
    options.limits.timeout = std::chrono::seconds(a.integer("--timeout", 120, 1, 86400));
    options.maxBatchBytes =
        std::uintmax_t(a.integer("--max-batch-bytes", 256L << 20, 1024, 1L << 40));
    if (const auto t = a.option("--tolerance")) {
        try {
            std::size_t used = 0;
            request.tolerance = std::stod(*t, &used);
            if (used != t->size() || !(*request.tolerance >= 0)) throw std::invalid_argument("");
        } catch (const std::exception&) {
            throw UsageError("--tolerance must be a number >= 0, got '" + *t + "'");
        }
    }
    for (const std::string& p : a.all("--property"))
        request.properties.push_back(parseCheckArgument(p));
    if (isatty(2))
        request.progress = [&err](int done, int calls, long sequences) {
            err << "\rprobe: call " << done << " of " << calls << " (" << sequences << " sequences)"
                << (done == calls ? "\n" : "") << std::flush;
        };

    const InterruptGuard guard;
    request.cancelled = [] { return interrupted != 0; };
    ProbeResult result;
    try {
        ProgramFunction program(options);
        result = runProbe(request, program);
    } catch (const CancelledError&) {
        err << "attnlab-cli probe: interrupted; the program's process group was stopped\n";
        return 130;
    }
    const nlohmann::json report = probeJson(result, options.command);
    if (const auto dir = a.option("--out")) writeOut(*dir, result, report);
    if (a.flag("--json")) {
        out << report.dump(2) << "\n";
        return anyFails(result.reports) ? 1 : 0;
    }
    out << "probe of " << options.command.display() << " — " << result.tokens.rows()
        << " tokens of " << result.tokens.cols() << " features, " << result.precision << "; "
        << result.calls << (result.calls == 1 ? " call, " : " calls, ") << result.sequences
        << " sequences" << (result.intendedMask ? "; intended mask " + result.intendedMaskText : "")
        << "\n\n";
    printReports(out, result.reports);
    return anyFails(result.reports) ? 1 : 0;
}

} // namespace attnlab::cli
