// SPDX-License-Identifier: GPL-3.0-or-later
// Reading scenario files: strict, every error names its JSON path.
#include "core/io/scenario_reader.h"

#include "core/base/enum_names.h"
#include "core/base/error.h"
#include "core/formats/json_reader.h"
#include "core/io/hf_import.h"
#include "core/io/model_spec_reader.h"
#include "core/io/preset_texts.h"

#include <fstream>
#include <sstream>

namespace attnlab {

using nlohmann::json;
using namespace scenario_json;

namespace {

// Deeper JSON is refused while parsing: the readers (nested masks), the writer and json's own
// comparison recurse once per level, so a deep file would overflow the stack.
constexpr int kMaxDepth = 64;

ModelSpec readCheckpoint(const JsonReader& r) {
    r.expectObject({"path", "layers", "mask"});
    const std::filesystem::path path = r.at("path").filePath();
    ModelSpec model;
    try {
        const auto [first, end] =
            r.has("layers") ? parseLayerRange(r.at("layers").string()) : std::pair{0, -1};
        model = importCheckpoint(path, first, end);
    } catch (const InputError& e) {
        r.fail(e.what());
    }
    if (r.has("mask")) {
        const MaskSpec mask = readMask(r.at("mask"));
        for (LayerSpec& layer : model.layers)
            layer.mask = mask;
    }
    return model;
}

// A checkpoint's tokens: {"ids": [...], "labels": [...]} or {"text": "..."}.
TokenSpec readCheckpointTokens(const JsonReader& r, const CheckpointRef& checkpoint) {
    r.expectObject({"ids", "labels", "text"});
    if (r.has("ids") == r.has("text")) r.fail("needs exactly one of ids or text");
    TokenSpec tokens;
    try {
        if (r.has("text")) return checkpointText(checkpoint, r.at("text").string());
        const JsonReader ids = r.at("ids");
        if (ids.size() > std::size_t(kMaxTokens))
            ids.fail("more than " + std::to_string(kMaxTokens) + " tokens");
        std::vector<long long> values;
        for (std::size_t i = 0; i < ids.size(); ++i)
            values.push_back(ids.at(i).integer(0, 1L << 30));
        tokens = checkpointTokens(checkpoint, std::move(values));
    } catch (const InputError& e) {
        // A message that names the tokens already (or a path under them) passes as it is.
        if (std::string_view(e.what()).starts_with(r.path())) throw;
        r.fail(e.what());
    }
    if (r.has("labels")) {
        const JsonReader labels = r.at("labels");
        if (labels.size() != tokens.ids.size())
            labels.fail("has " + std::to_string(labels.size()) + " labels for " +
                        std::to_string(tokens.ids.size()) + " ids");
        tokens.labels.clear();
        for (std::size_t i = 0; i < labels.size(); ++i)
            tokens.labels.push_back(labels.at(i).string());
    }
    return tokens;
}

TokenSpec readTokens(const JsonReader& r) {
    if (r.isObject() && (r.has("ids") || r.has("text")))
        r.fail("token ids and text need a checkpoint (its embedding and tokenizer)");
    if (!r.isObject()) {
        const Matrix<Rational> values = r.matrix();
        if (values.rows() > kMaxTokens)
            r.fail("more than " + std::to_string(kMaxTokens) + " tokens");
        return TokenSpec::given(values);
    }
    r.expectObject({"random", "one_hot", "arange"});
    if (r.node().size() != 1) r.fail("must name exactly one generator (random, one_hot, arange)");
    if (r.has("random")) {
        const JsonReader g = r.at("random");
        g.expectObject({"n", "d", "seed"});
        return TokenSpec::random(int(g.at("n").integer(1, kMaxTokens)),
                                 int(g.at("d").integer(1, 1 << 14)),
                                 static_cast<std::uint64_t>(g.at("seed").integer(0, kMaxSeed)));
    }
    if (r.has("one_hot")) {
        const JsonReader g = r.at("one_hot");
        g.expectObject({"n"});
        return TokenSpec::oneHot(int(g.at("n").integer(1, 1 << 13)));
    }
    const JsonReader g = r.at("arange");
    g.expectObject({"n", "d"});
    return TokenSpec::arange(int(g.at("n").integer(1, kMaxTokens)),
                             int(g.at("d").integer(1, 1 << 14)));
}

PermutationSpec readPermutation(const JsonReader& r) {
    PermutationSpec p;
    if (r.isString()) {
        if (r.string() != "reverse")
            r.fail("must be an array, \"reverse\", {\"cycles\": ...} or {\"random\": seed}");
        p.kind = PermutationSpec::Kind::Reverse;
    } else if (r.isArray()) {
        p.kind = PermutationSpec::Kind::Images;
        for (std::size_t i = 0; i < r.size(); ++i)
            p.images.push_back(int(r.at(i).integer(-kMaxTokens, kMaxTokens)));
    } else {
        r.expectObject({"cycles", "random"});
        if (r.node().size() != 1) r.fail("must be {\"cycles\": \"(0 1)\"} or {\"random\": seed}");
        if (r.has("cycles")) {
            p.kind = PermutationSpec::Kind::Cycles;
            p.cycles = r.at("cycles").string();
        } else {
            p.kind = PermutationSpec::Kind::Random;
            p.seed = static_cast<std::uint64_t>(r.at("random").integer(0, kMaxSeed));
        }
    }
    return p;
}

CheckSpec readCheck(const JsonReader& r) {
    CheckSpec c;
    if (r.isString()) {
        c.name = r.string();
        return c;
    }
    if (!r.isObject()) r.fail("must be a property name or {\"name\": ..., parameters}");
    c.name = r.at("name").string();
    for (const auto& [key, value] : r.node().items())
        if (key != "name") c.params[key] = value;
    return c;
}

} // namespace

Scenario parseScenario(std::string_view text, const std::filesystem::path& directory) {
    json doc;
    try {
        doc = json::parse(text, [](int depth, json::parse_event_t, json&) {
            if (depth > kMaxDepth)
                throw InputError("nested deeper than " + std::to_string(kMaxDepth) + " levels");
            return true;
        });
    } catch (const json::exception& e) { // syntax errors, numbers out of range
        throw InputError(std::string("not valid JSON: ") + e.what());
    }
    const JsonReader r(doc, "", directory);
    r.expectObject({"format", "version", "name", "notes", "precision", "tokens", "positional",
                    "layers", "embedding_norm", "final_norm", "checkpoint", "permutation", "checks",
                    "batch"});
    if (r.at("format").string() != "attnlab-scenario")
        r.at("format").fail("must be \"attnlab-scenario\"");
    if (r.at("version").integer(0, 1 << 20) != 1)
        r.at("version").fail("version " + r.at("version").node().dump() +
                             " is not supported (this AttnLab reads version 1)");
    Scenario s;
    if (r.has("name")) s.name = r.at("name").string();
    if (r.has("notes")) s.notes = r.at("notes").string();
    if (r.has("precision")) {
        try {
            s.precision = parsePrecision(r.at("precision").string());
        } catch (const InputError& e) {
            r.at("precision").fail(e.what());
        }
    }
    if (r.has("checkpoint")) {
        for (const char* key : {"positional", "layers", "embedding_norm", "final_norm"})
            if (r.has(key)) r.at(key).fail("comes from the checkpoint; remove it");
        s.model = readCheckpoint(r.at("checkpoint"));
        s.tokens = readCheckpointTokens(r.at("tokens"), *s.model.checkpoint);
    } else {
        s.tokens = readTokens(r.at("tokens"));
        if (r.has("positional")) s.model.positional = readPositional(r.at("positional"));
        const JsonReader layers = r.at("layers");
        if (layers.size() == 0) layers.fail("must be a non-empty array of layers");
        for (std::size_t i = 0; i < layers.size(); ++i)
            s.model.layers.push_back(readLayer(layers.at(i)));
        if (r.has("embedding_norm")) s.model.embeddingNorm = readNorm(r.at("embedding_norm"));
        if (r.has("final_norm")) s.model.finalNorm = readNorm(r.at("final_norm"));
    }
    if (r.has("permutation")) s.permutation = readPermutation(r.at("permutation"));
    if (r.has("checks")) {
        const JsonReader checks = r.at("checks");
        for (std::size_t i = 0; i < checks.size(); ++i)
            s.checks.push_back(readCheck(checks.at(i)));
    }
    if (r.has("batch")) {
        const JsonReader batch = r.at("batch");
        for (std::size_t i = 0; i < batch.size(); ++i)
            s.batch.push_back(batch.at(i).matrix());
    }
    s.validate();
    return s;
}

Scenario loadScenarioFile(const std::filesystem::path& path) {
    if (std::error_code ec; std::filesystem::is_directory(path, ec))
        throw InputError(path.string() + ": is a directory, not a scenario file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path.string() + ": cannot open the file");
    std::ostringstream text;
    text << in.rdbuf();
    try {
        return parseScenario(text.str(), path.parent_path());
    } catch (const InputError& e) {
        throw InputError(path.string() + ": " + e.what());
    }
}

Scenario loadScenario(const std::string& source) {
    constexpr std::string_view prefix = "builtin:";
    if (source.rfind(prefix, 0) != 0) return loadScenarioFile(source);
    const std::string name = source.substr(prefix.size());
    for (const PresetText& preset : builtinPresetTexts())
        if (preset.name == name) {
            try {
                return parseScenario(preset.json);
            } catch (const InputError& e) {
                throw InputError(source + ": " + e.what());
            }
        }
    throw InputError(source + ": no such built-in scenario (see `attnlab-cli presets`)");
}

} // namespace attnlab
