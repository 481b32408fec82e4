// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli run`: compute a scenario and print its traces (cli.md).
#include "arguments.h"
#include "commands.h"

#include "core/base/error.h"
#include "core/explore/run_report.h"
#include "core/formats/heatmap_png.h"
#include "core/formats/npy.h"
#include "core/io/scenario_reader.h"

#include <filesystem>
#include <ostream>

namespace attnlab::cli {

std::string runUsage() {
    return "usage: attnlab-cli run SCENARIO [--backend auto|cpu|opencl|cuda] [--json] [--out "
           "DIR]\n"
           "                        [--decode M [--alignment bottom-right|top-left] "
           "[--decode-mask FILE.npy]]\n\n"
           "Computes the scenario (a .json file, or builtin:NAME) on its tokens and, when it sets "
           "a\n"
           "permutation, on the permuted tokens P X: per layer and head the scores and weights, "
           "per\n"
           "layer the output.\n\n"
           "  --backend B  where to compute (default auto: a GPU, else the CPU; see devices);\n"
           "               B:INDEX picks one device of B, as devices lists it (cuda:1);\n"
           "               a layer the backend cannot compute runs on the CPU, with a notice\n"
           "  --json       print the result as JSON (exact values as \"p/q\" strings)\n"
           "  --out DIR    also write every matrix to DIR as float64 .npy and as a heatmap .png\n"
           "  --decode M   also compute the decode step of the last M tokens against a KV cache\n"
           "               of the others (m x n maps) and its difference from the full pass\n"
           "  --alignment A  the causal mask's rows the M queries use: bottom-right (default;\n"
           "               flash-attn, KV caches) or top-left (PyTorch is_causal, tril)\n"
           "  --decode-mask FILE  an M x n .npy mask for every layer instead of the aligned rows\n";
}

namespace {

// Writes every matrix of a run's JSON as DIR/<side>_<...>.npy.
void writeMatrices(const nlohmann::json& node, const std::string& name,
                   const std::filesystem::path& dir) {
    if (node.is_object()) {
        for (const auto& [key, value] : node.items())
            writeMatrices(value, name.empty() ? key : name + "_" + key, dir);
        return;
    }
    if (!node.is_array() || node.empty()) return;
    const bool isMatrix =
        node[0].is_array() && !node[0].empty() && !node[0][0].is_array() && !node[0][0].is_object();
    if (!isMatrix) { // a list of layers or heads
        for (std::size_t i = 0; i < node.size(); ++i)
            writeMatrices(node[i], name + std::to_string(i), dir);
        return;
    }
    Eigen::MatrixXd m(node.size(), node[0].size());
    for (std::size_t i = 0; i < node.size(); ++i)
        for (std::size_t j = 0; j < node[i].size(); ++j)
            m(Eigen::Index(i), Eigen::Index(j)) =
                node[i][j].is_string() ? toDouble(parseRational(node[i][j].get<std::string>()))
                                       : node[i][j].get<double>();
    writeNpy(dir / (name + ".npy"), m);
    // Figures of the square maps (scores, weights) and the outputs; each a crisp heatmap.
    if (m.size() <= 512 * 512) writeHeatmapPng(dir / (name + ".png"), m, m.rows() > 64 ? 4 : 16);
}

// The decode step --decode asks for (with --alignment and --decode-mask), or none; those two
// without --decode are a usage error.
std::optional<DecodeStep> decodeOption(const Arguments& a) {
    if (!a.option("--decode")) {
        if (a.option("--alignment") || a.option("--decode-mask"))
            throw UsageError("--alignment and --decode-mask go with --decode M");
        return std::nullopt;
    }
    DecodeStep step;
    step.queries = int(a.integer("--decode", 1, 1, 1L << 30));
    if (const auto alignment = a.option("--alignment"))
        step.alignment = parseAlignment(*alignment, "--alignment");
    if (const auto file = a.option("--decode-mask")) step.mask = readNpyMask(*file);
    return step;
}

} // namespace

int runCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const Arguments a(args, {"--json"},
                      {"--backend", "--out", "--decode", "--alignment", "--decode-mask"});
    if (a.help()) {
        out << runUsage();
        return 0;
    }
    a.expectPositionals(1, "SCENARIO (a .json file or builtin:NAME)");
    const BackendChoice backend = backendOption(a);
    Scenario scenario = loadScenario(a.positionals()[0]);
    scenario.backend = backend;
    const std::optional<DecodeStep> step = decodeOption(a);
    const DecodeStep* decode = step ? &*step : nullptr;
    const auto dir = a.option("--out");
    if (!a.flag("--json") && !dir) { // the text alone: one forward pass per side
        out << runText(scenario, decode);
        return 0;
    }
    const nlohmann::json result = runJson(scenario, decode);
    if (dir) {
        std::error_code ec;
        std::filesystem::create_directories(*dir, ec);
        if (ec) throw InputError("--out " + *dir + ": cannot create the directory");
        nlohmann::json matrices = result;
        matrices.erase("permutation");
        matrices.erase("warnings");
        writeMatrices(matrices, "", *dir);
    }
    if (a.flag("--json"))
        out << result.dump(2) << "\n";
    else
        out << runText(scenario, decode);
    for (const auto& w : result["warnings"])
        err << "warning: " << w.get<std::string>() << "\n";
    for (const auto& notice : result["notices"])
        err << "notice: " << notice.get<std::string>() << "\n";
    return 0;
}

} // namespace attnlab::cli
