// SPDX-License-Identifier: GPL-3.0-or-later
// Writing scenario files: every field in the form it was given, so save → load is lossless.
#include "core/io/scenario_writer.h"

#include "core/base/error.h"

#include <fstream>

namespace attnlab {

using nlohmann::json;

namespace {

json matrixJson(const Matrix<Rational>& m) {
    json rows = json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        json row = json::array();
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            row.push_back(rationalJson(m(i, j)));
        rows.push_back(std::move(row));
    }
    return rows;
}

// A file a scenario refers to: relative to the scenario's directory `dir` when there is one
// (and the file is on the same root), else as stored (absolute).
std::string fileNameJson(const std::string& file, const std::filesystem::path& dir) {
    if (dir.empty()) return file;
    const std::filesystem::path relative = std::filesystem::path(file).lexically_relative(dir);
    return relative.empty() ? file : relative.generic_string();
}

json matrixSpecJson(const MatrixSpec& m, const std::filesystem::path& dir) {
    switch (m.kind) {
    case MatrixSpec::Kind::Identity:
        return "identity";
    case MatrixSpec::Kind::Random: {
        json spec = {{"seed", m.seed}};
        if (m.scale != 1) spec["scale"] = rationalJson(m.scale);
        return {{"random", spec}};
    }
    case MatrixSpec::Kind::Values:
        if (!m.file.empty()) return {{"npy", fileNameJson(m.file, dir)}};
        return matrixJson(m.values);
    case MatrixSpec::Kind::Tensor: // a checkpoint's scenario refers to the checkpoint instead
        throw InputError("a checkpoint's tensor " + m.tensor.name + " cannot be written inline");
    }
    return nullptr;
}

// A row vector given inline as a flat array (the form readRow reads back), else as its matrix
// spec.
json rowJson(const MatrixSpec& m, const std::filesystem::path& dir) {
    if (m.kind != MatrixSpec::Kind::Values || m.values.rows() != 1 || !m.file.empty())
        return matrixSpecJson(m, dir);
    json row = json::array();
    for (Eigen::Index j = 0; j < m.values.cols(); ++j)
        row.push_back(rationalJson(m.values(0, j)));
    return row;
}

json normJson(const NormSpec& n, const std::filesystem::path& dir) {
    json j = {{"kind", nameOf<NormSpec::Kind>(kNormKindNames, n.kind)}};
    if (n.weight) j["weight"] = rowJson(*n.weight, dir);
    if (n.bias) j["bias"] = rowJson(*n.bias, dir);
    if (n.eps != NormSpec{}.eps) j["eps"] = n.eps;
    return j;
}

json mlpJson(const MlpSpec& m, const std::filesystem::path& dir) {
    json j = {{"activation", nameOf<MlpSpec::Activation>(kActivationNames, m.activation)},
              {"up", matrixSpecJson(m.up, dir)},
              {"down", matrixSpecJson(m.down, dir)}};
    if (m.gate) j["gate"] = matrixSpecJson(*m.gate, dir);
    if (m.upBias) j["up_bias"] = rowJson(*m.upBias, dir);
    if (m.gateBias) j["gate_bias"] = rowJson(*m.gateBias, dir);
    if (m.downBias) j["down_bias"] = rowJson(*m.downBias, dir);
    return j;
}

json maskJson(const MaskSpec& m, const std::filesystem::path& dir);

// The mask override a file keeps for an imported model's layers: none while every layer has its
// imported mask, else the one mask they all share. Throws InputError for edits a reference to
// the checkpoint cannot keep (weights, heads, norms; different masks per layer), so that saving
// never drops them silently.
std::optional<MaskSpec> maskOverride(const ModelSpec& m) {
    const CheckpointRef& c = *m.checkpoint;
    const std::string keep = "an imported model is saved as a reference to its checkpoint, which "
                             "keeps only one mask shared by every layer";
    if (c.importedLayers.size() != m.layers.size())
        throw InputError("layers: " + keep + "; layers were added or removed");
    bool edited = false;
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
        LayerSpec asImported = m.layers[i];
        asImported.mask = c.importedLayers[i].mask;
        if (!(asImported == c.importedLayers[i]))
            throw InputError("layers[" + std::to_string(i) + "]",
                             keep + "; its weights or structure were edited");
        edited = edited || !(m.layers[i].mask == c.importedLayers[i].mask);
        if (!(m.layers[i].mask == m.layers.front().mask))
            throw InputError("layers[" + std::to_string(i) + "].mask",
                             keep + "; this layer's differs");
    }
    if (edited) return m.layers.front().mask;
    return std::nullopt;
}

json checkpointJson(const ModelSpec& m, const std::filesystem::path& directory) {
    const CheckpointRef& c = *m.checkpoint;
    std::filesystem::path path = c.directory;
    if (!directory.empty())
        path = std::filesystem::relative(path, std::filesystem::absolute(directory));
    json j = {{"path", path.generic_string()},
              {"layers", std::to_string(c.firstLayer) + ":" + std::to_string(c.endLayer)}};
    if (const auto mask = maskOverride(m)) j["mask"] = maskJson(*mask, directory);
    return j;
}

json tokensJson(const TokenSpec& t) {
    switch (t.kind) {
    case TokenSpec::Kind::Ids: {
        json j = {{"ids", t.ids}};
        if (!t.labels.empty()) j["labels"] = t.labels;
        return j;
    }
    case TokenSpec::Kind::Values:
        return matrixJson(t.values);
    case TokenSpec::Kind::Random:
        return {{"random", {{"n", t.n}, {"d", t.d}, {"seed", t.seed}}}};
    case TokenSpec::Kind::OneHot:
        return {{"one_hot", {{"n", t.n}}}};
    case TokenSpec::Kind::Arange:
        return {{"arange", {{"n", t.n}, {"d", t.d}}}};
    }
    return nullptr;
}

json maskJson(const MaskSpec& m, const std::filesystem::path& dir) {
    using K = MaskSpec::Kind;
    auto list = [&] {
        json a = json::array();
        for (const auto& o : m.operands)
            a.push_back(maskJson(o, dir));
        return a;
    };
    switch (m.kind) {
    case K::All:
        return {{"kind", "all"}};
    case K::None:
        return {{"kind", "none"}};
    case K::Causal:
        return {{"kind", "causal"}};
    case K::Window:
        return {{"kind", "window"}, {"radius", m.radius}};
    case K::CausalWindow:
        return {{"kind", "causal_window"}, {"radius", m.radius}};
    case K::Prefix:
        return {{"kind", "prefix"}, {"length", m.length}};
    case K::Blocks:
        return {{"kind", "blocks"}, {"sizes", m.sizes}};
    case K::Dilated:
        return {{"kind", "dilated"}, {"radius", m.radius}, {"dilation", m.dilation}};
    case K::Global:
        return {{"kind", "global"}, {"count", m.count}, {"base", maskJson(m.operands[0], dir)}};
    case K::Custom: {
        if (!m.file.empty()) return {{"kind", "file"}, {"path", fileNameJson(m.file, dir)}};
        json rows = json::array();
        for (Eigen::Index i = 0; i < m.cells.rows(); ++i) {
            json row = json::array();
            for (Eigen::Index j = 0; j < m.cells.cols(); ++j)
                row.push_back(m.cells(i, j) ? 1 : 0);
            rows.push_back(std::move(row));
        }
        return {{"kind", "custom"}, {"cells", rows}};
    }
    case K::And:
        return {{"and", list()}};
    case K::Or:
        return {{"or", list()}};
    case K::Not:
        return {{"not", maskJson(m.operands[0], dir)}};
    }
    return nullptr;
}

json mixerJson(const MixerSpec& m) {
    json j = {{"kind", mixerKindName(m.kind)}};
    if (m.scale) j["scale"] = rationalJson(*m.scale);
    if (m.tile > 0) j["tile"] = m.tile;
    if (m.kind == MixerSpec::Kind::Ssm) {
        j["a"] = rationalJson(m.a);
        j["direction"] = m.bidirectional ? "bidirectional" : "causal";
        if (m.chunk > 0) j["chunk"] = m.chunk;
    }
    return j;
}

json layerJson(const LayerSpec& l, const std::filesystem::path& dir) {
    json j = json::object();
    if (l.ffn) j["ffn"] = matrixSpecJson(*l.ffn, dir);
    j["wq"] = matrixSpecJson(l.wq, dir);
    j["wk"] = matrixSpecJson(l.wk, dir);
    j["wv"] = matrixSpecJson(l.wv, dir);
    if (l.wo) j["wo"] = matrixSpecJson(*l.wo, dir);
    const std::pair<const char*, const std::optional<MatrixSpec>*> biases[] = {
        {"bq", &l.bq}, {"bk", &l.bk}, {"bv", &l.bv}, {"bo", &l.bo}};
    for (const auto& [key, bias] : biases)
        if (*bias) j[key] = rowJson(**bias, dir);
    if (l.heads != 1) j["heads"] = l.heads;
    if (l.kvHeads > 0) j["kv_heads"] = l.kvHeads;
    j["mixer"] = mixerJson(l.mixer);
    j["mask"] = maskJson(l.mask, dir);
    if (l.residual) j["residual"] = true;
    if (l.normPlacement == LayerSpec::NormPlacement::Post) j["norm"] = "post";
    if (l.attentionNorm) j["attention_norm"] = normJson(*l.attentionNorm, dir);
    if (l.mlpNorm) j["mlp_norm"] = normJson(*l.mlpNorm, dir);
    if (l.mlp) j["mlp"] = mlpJson(*l.mlp, dir);
    if (l.parallelResidual) j["parallel_residual"] = true;
    return j;
}

json positionalJson(const PositionalSpec& p, const std::filesystem::path& dir) {
    using K = PositionalSpec::Kind;
    const char* names[] = {"none", "polynomial", "sinusoidal", "learned", "rope", "alibi"};
    json j = {{"kind", names[static_cast<int>(p.kind)]}};
    if (p.kind == K::Learned) {
        if (p.seeded)
            j["seed"] = p.seed;
        else
            j["table"] = matrixSpecJson(p.table, dir);
    }
    if (p.kind == K::Rope) {
        if (p.base != kDefaultRopeBase) j["base"] = p.base;
        if (p.style == PositionalSpec::RopeStyle::Half) j["style"] = "half";
        if (p.rotaryDim > 0) j["rotary_dim"] = p.rotaryDim;
        const RopeScaling& r = p.scaling;
        if (r.kind == RopeScaling::Kind::Linear)
            j["scaling"] = {{"type", "linear"}, {"factor", r.factor}};
        if (r.kind == RopeScaling::Kind::Llama3)
            j["scaling"] = {{"type", "llama3"},
                            {"factor", r.factor},
                            {"low_freq_factor", r.lowFrequencyFactor},
                            {"high_freq_factor", r.highFrequencyFactor},
                            {"original_max_position_embeddings", r.originalContext}};
    }
    if (p.kind == K::Alibi) {
        if (!p.slopes.empty()) {
            json slopes = json::array();
            for (const auto& s : p.slopes)
                slopes.push_back(rationalJson(s));
            j["slopes"] = slopes;
        }
        if (p.causal) j["causal"] = true;
    }
    if (p.offset != 0) j["offset"] = p.offset;
    return j;
}

json permutationJson(const PermutationSpec& p) {
    switch (p.kind) {
    case PermutationSpec::Kind::Images:
        return p.images;
    case PermutationSpec::Kind::Cycles:
        return {{"cycles", p.cycles}};
    case PermutationSpec::Kind::Reverse:
        return "reverse";
    case PermutationSpec::Kind::Random:
        return {{"random", p.seed}};
    default:
        return nullptr;
    }
}

} // namespace

json rationalJson(const Rational& q) {
    if (q.get_den() == 1 && q.get_num().fits_slong_p()) return q.get_num().get_si();
    const double d = toDouble(q);
    if (std::isfinite(d) && decimalRational(d) == q) return d;
    return rationalText(q);
}

json scenarioToJson(const Scenario& s, const std::filesystem::path& dir) {
    json j = {{"format", "attnlab-scenario"}, {"version", 1}};
    if (!s.name.empty()) j["name"] = s.name;
    if (!s.notes.empty()) j["notes"] = s.notes;
    j["precision"] = precisionName(s.precision);
    j["tokens"] = tokensJson(s.tokens);
    if (s.model.checkpoint) {
        j["checkpoint"] = checkpointJson(s.model, dir);
    } else {
        j["positional"] = positionalJson(s.model.positional, dir);
        json layers = json::array();
        for (const auto& l : s.model.layers)
            layers.push_back(layerJson(l, dir));
        j["layers"] = layers;
        if (s.model.embeddingNorm) j["embedding_norm"] = normJson(*s.model.embeddingNorm, dir);
        if (s.model.finalNorm) j["final_norm"] = normJson(*s.model.finalNorm, dir);
    }
    if (s.permutation.isSet()) j["permutation"] = permutationJson(s.permutation);
    if (!s.checks.empty()) {
        json checks = json::array();
        for (const auto& c : s.checks) {
            if (c.params.empty())
                checks.push_back(c.name);
            else {
                json o = c.params;
                o["name"] = c.name;
                checks.push_back(o);
            }
        }
        j["checks"] = checks;
    }
    if (!s.batch.empty()) {
        json batch = json::array();
        for (const auto& b : s.batch)
            batch.push_back(matrixJson(b));
        j["batch"] = batch;
    }
    return j;
}

std::string scenarioText(const Scenario& scenario, const std::filesystem::path& directory) {
    return scenarioToJson(scenario, directory).dump(2) + "\n";
}

std::filesystem::path scenarioSavePath(const std::filesystem::path& chosen) {
    if (chosen.empty() || chosen.has_extension() || !chosen.has_filename()) return chosen;
    std::filesystem::path named = chosen;
    return named += ".json";
}

void saveScenarioFile(const Scenario& scenario, const std::filesystem::path& path) {
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    const std::string text =
        scenarioText(scenario, (ec ? path : absolute).lexically_normal().parent_path());
    std::filesystem::path temp = path;
    temp += ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out) throw InputError(path.string() + ": cannot write the file");
        out << text;
        out.flush();
        if (!out) throw InputError(path.string() + ": writing failed (disk full?)");
    }
    std::filesystem::rename(temp, path, ec);
    if (ec) {
        std::filesystem::remove(temp, ec);
        throw InputError(path.string() + ": cannot replace the file");
    }
}

} // namespace attnlab
