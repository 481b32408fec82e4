// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli import`: a Hugging Face checkpoint and some text (or token ids) as a scenario
// file that refers to the checkpoint (cli.md).
#include "arguments.h"
#include "commands.h"

#include "core/base/error.h"
#include "core/io/hf_import.h"
#include "core/io/scenario_writer.h"

#include <ostream>

namespace attnlab::cli {

std::string importUsage() {
    return "usage: attnlab-cli import DIR (--text TEXT | --token-ids ID,ID,...) [--layers A:B]\n"
           "                          [--precision float32|float64] --out SCENARIO.json\n\n"
           "Writes a scenario of the Hugging Face checkpoint in DIR (config.json and\n"
           "model.safetensors, or shards with model.safetensors.index.json; gpt2, llama, mistral,\n"
           "qwen2, gpt_neox, bloom) on the given tokens. The scenario refers to DIR by a path\n"
           "relative to itself; no weights are copied. run, check and the explorer open it.\n\n"
           "  --text TEXT        tokenised by DIR/tokenizer.json, as Hugging Face does it\n"
           "  --token-ids LIST   token ids, comma-separated\n"
           "  --layers A:B       keep layers A to B - 1 (default all), fed with the embedded\n"
           "                     tokens\n"
           "  --precision P      float32 (default) or float64\n"
           "  --out FILE         the scenario file to write\n";
}

namespace {
std::vector<long long> parseIds(const std::string& text) {
    std::vector<long long> ids;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string part = text.substr(at, comma - at);
        if (part.empty() || part.size() > 9 ||
            part.find_first_not_of("0123456789") != std::string::npos)
            throw UsageError("--token-ids: '" + part + "' is not a token id (ids are 0, 1, ...)");
        ids.push_back(std::stoll(part));
        at = comma + 1;
    }
    return ids;
}
} // namespace

int importCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
    const Arguments a(args, {}, {"--text", "--token-ids", "--layers", "--precision", "--out"});
    if (a.help()) {
        out << importUsage();
        return 0;
    }
    a.expectPositionals(1, "DIR (a Hugging Face checkpoint directory)");
    if (a.option("--text").has_value() == a.option("--token-ids").has_value())
        throw UsageError("give exactly one of --text and --token-ids");
    const auto file = a.option("--out");
    if (!file) throw UsageError("--out SCENARIO.json is required");
    ImportRequest request;
    request.directory = a.positionals()[0];
    request.text = a.option("--text");
    if (const auto ids = a.option("--token-ids")) request.ids = parseIds(*ids);
    if (const auto layers = a.option("--layers"))
        std::tie(request.firstLayer, request.endLayer) = parseLayerRange(*layers);
    const std::string precision = a.option("--precision").value_or("float32");
    if (precision != "float32" && precision != "float64")
        throw UsageError("--precision: '" + precision + "' (float32 or float64)");
    request.precision = parsePrecision(precision);
    const Scenario scenario = importScenario(request);
    saveScenarioFile(scenario, *file);
    const LayerSpec& layer = scenario.model.layers.front();
    out << "wrote " << *file << ": " << scenario.name << ", " << scenario.model.layers.size()
        << " layer(s), " << layer.heads << " heads";
    if (layer.keyValueHeads() != layer.heads) out << " (" << layer.keyValueHeads() << " key/value)";
    out << ", d = " << scenario.d() << ", " << scenario.n() << " tokens\n";
    return 0;
}

} // namespace attnlab::cli
