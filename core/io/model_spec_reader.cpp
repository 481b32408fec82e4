// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a model's parts from a scenario file's JSON: matrices (given, random, identity, .npy),
// biases, norms, MLPs, masks, mixers, layers and positions. Strict: every error names its JSON
// path.
#include "core/io/model_spec_reader.h"

#include "core/base/enum_names.h"
#include "core/base/error.h"
#include "core/formats/npy.h"

namespace attnlab::scenario_json {

namespace {
// Reads the file the JSON value names with `read` (readNpy, readNpyMask); a failure names the
// JSON path too.
template <class Read>
auto readNamedFile(const JsonReader& r, Read read) {
    const std::filesystem::path file = r.filePath();
    try {
        return std::pair{read(file), file.string()};
    } catch (const InputError& e) {
        r.fail(e.what());
    }
}

MatrixSpec readNpyMatrix(const JsonReader& r) {
    auto [values, file] = readNamedFile(r, readNpy);
    return MatrixSpec::fromNpy(values.cast<Rational>(), std::move(file));
}
} // namespace

MatrixSpec readMatrixSpec(const JsonReader& r) {
    if (r.isString()) {
        if (r.string() != "identity")
            r.fail("must be a matrix, \"identity\", {\"random\": ...} or {\"npy\": FILE}");
        return MatrixSpec::identity();
    }
    if (r.isObject() && r.has("npy")) {
        r.expectObject({"npy"});
        return readNpyMatrix(r.at("npy"));
    }
    if (r.isObject()) {
        r.expectObject({"random", "npy"});
        const JsonReader spec = r.at("random");
        spec.expectObject({"seed", "scale"});
        const auto seed = static_cast<std::uint64_t>(spec.at("seed").integer(0, kMaxSeed));
        return MatrixSpec::random(seed,
                                  spec.has("scale") ? spec.at("scale").number() : Rational(1));
    }
    return MatrixSpec::given(r.matrix());
}

// A row vector (a bias or a norm's weight): a flat array of numbers, or a matrix spec.
MatrixSpec readRow(const JsonReader& r) {
    if (!r.isArray() || r.size() == 0 || r.at(std::size_t(0)).isArray()) return readMatrixSpec(r);
    Matrix<Rational> row(1, Eigen::Index(r.size()));
    for (std::size_t i = 0; i < r.size(); ++i)
        row(0, Eigen::Index(i)) = r.at(i).number();
    return MatrixSpec::given(std::move(row));
}

NormSpec readNorm(const JsonReader& r) {
    r.expectObject({"kind", "weight", "bias", "eps"});
    NormSpec norm;
    const std::string kind = r.at("kind").string();
    const auto parsed = valueOf<NormSpec::Kind>(kNormKindNames, kind);
    if (!parsed) r.at("kind").fail("unknown norm '" + kind + "' (layernorm, rmsnorm)");
    norm.kind = *parsed;
    if (r.has("weight")) norm.weight = readRow(r.at("weight"));
    if (r.has("bias")) {
        if (norm.kind == NormSpec::Kind::RmsNorm) r.at("bias").fail("rmsnorm has no bias");
        norm.bias = readRow(r.at("bias"));
    }
    if (r.has("eps")) {
        norm.eps = toDouble(r.at("eps").number());
        if (!(norm.eps > 0 && norm.eps < 1)) r.at("eps").fail("must be in (0, 1)");
    }
    return norm;
}

MlpSpec readMlp(const JsonReader& r) {
    r.expectObject({"activation", "up", "gate", "down", "up_bias", "gate_bias", "down_bias"});
    MlpSpec mlp;
    const std::string name = r.at("activation").string();
    const auto activation = valueOf<MlpSpec::Activation>(kActivationNames, name);
    if (!activation)
        r.at("activation").fail("unknown activation '" + name + "' (relu, gelu, gelu_tanh, silu)");
    mlp.activation = *activation;
    mlp.up = readMatrixSpec(r.at("up"));
    mlp.down = readMatrixSpec(r.at("down"));
    if (r.has("gate")) mlp.gate = readMatrixSpec(r.at("gate"));
    if (r.has("up_bias")) mlp.upBias = readRow(r.at("up_bias"));
    if (r.has("gate_bias")) {
        if (!mlp.gate) r.at("gate_bias").fail("needs a gate");
        mlp.gateBias = readRow(r.at("gate_bias"));
    }
    if (r.has("down_bias")) mlp.downBias = readRow(r.at("down_bias"));
    return mlp;
}

namespace {
int readCount(const JsonReader& r) {
    return int(r.integer(0, kMaxTokens));
}
} // namespace

MaskSpec readMask(const JsonReader& r) {
    if (!r.isObject()) r.fail("must be an object such as {\"kind\": \"causal\"}");
    for (const char* op : {"and", "or"})
        if (r.has(op)) {
            r.expectObject({op});
            const JsonReader list = r.at(op);
            if (list.size() == 0) list.fail("must list at least one mask");
            std::vector<MaskSpec> masks;
            for (std::size_t i = 0; i < list.size(); ++i)
                masks.push_back(readMask(list.at(i)));
            return std::string(op) == "and" ? MaskSpec::both(std::move(masks))
                                            : MaskSpec::either(std::move(masks));
        }
    if (r.has("not")) {
        r.expectObject({"not"});
        return MaskSpec::negation(readMask(r.at("not")));
    }
    const std::string kind = r.at("kind").string();
    if (kind == "all" || kind == "none" || kind == "causal") {
        r.expectObject({"kind"});
        return kind == "all"    ? MaskSpec::all()
               : kind == "none" ? MaskSpec::none()
                                : MaskSpec::causal();
    }
    if (kind == "window" || kind == "causal_window") {
        r.expectObject({"kind", "radius"});
        const int radius = readCount(r.at("radius"));
        return kind == "window" ? MaskSpec::window(radius) : MaskSpec::causalWindow(radius);
    }
    if (kind == "prefix") {
        r.expectObject({"kind", "length"});
        return MaskSpec::prefix(readCount(r.at("length")));
    }
    if (kind == "blocks") {
        r.expectObject({"kind", "sizes"});
        const JsonReader sizes = r.at("sizes");
        if (sizes.size() == 0) sizes.fail("must list at least one block size");
        std::vector<int> values;
        for (std::size_t i = 0; i < sizes.size(); ++i)
            values.push_back(int(sizes.at(i).integer(1, kMaxTokens)));
        return MaskSpec::blocks(std::move(values));
    }
    if (kind == "dilated") {
        r.expectObject({"kind", "radius", "dilation"});
        return MaskSpec::dilated(readCount(r.at("radius")),
                                 int(r.at("dilation").integer(1, kMaxTokens)));
    }
    if (kind == "global") {
        r.expectObject({"kind", "count", "base"});
        return MaskSpec::global(readCount(r.at("count")),
                                r.has("base") ? readMask(r.at("base")) : MaskSpec::none());
    }
    if (kind == "custom") {
        r.expectObject({"kind", "cells"});
        const JsonReader cells = r.at("cells");
        BoolMatrix m = cells.boolMatrix();
        if (m.rows() != m.cols())
            cells.fail("must be square, got " + std::to_string(m.rows()) + " x " +
                       std::to_string(m.cols()));
        return MaskSpec::custom(std::move(m));
    }
    if (kind == "file") {
        r.expectObject({"kind", "path"});
        auto [cells, file] = readNamedFile(r.at("path"), readNpyMask);
        if (cells.rows() != cells.cols())
            r.at("path").fail(file + ": the mask is " + std::to_string(cells.rows()) + " x " +
                              std::to_string(cells.cols()) + ", it must be square (n x n)");
        return MaskSpec::fromFile(std::move(cells), std::move(file));
    }
    r.at("kind").fail("unknown mask kind '" + kind +
                      "' (all, none, causal, window, causal_window, prefix, blocks, dilated, "
                      "global, custom, file, or and/or/not)");
}

MixerSpec readMixer(const JsonReader& r) {
    r.expectObject({"kind", "scale", "tile", "a", "direction", "chunk"});
    MixerSpec m;
    const std::string kind = r.has("kind") ? r.at("kind").string() : "softmax";
    if (kind == "softmax")
        m.kind = MixerSpec::Kind::Softmax;
    else if (kind == "softmax_like")
        m.kind = MixerSpec::Kind::SoftmaxLike;
    else if (kind == "raw")
        m.kind = MixerSpec::Kind::Raw;
    else if (kind == "ssm")
        m.kind = MixerSpec::Kind::Ssm;
    else
        r.at("kind").fail("unknown mixer '" + kind + "' (softmax, softmax_like, raw, ssm)");
    const bool ssm = m.kind == MixerSpec::Kind::Ssm;
    auto onlyFor = [&](const char* key, bool allowed, const char* who) {
        if (r.has(key) && !allowed) r.at(key).fail(std::string("only applies to ") + who);
    };
    onlyFor("scale", !ssm, "softmax, softmax_like and raw (ssm takes no scale)");
    onlyFor("tile", !ssm, "softmax, softmax_like and raw (ssm uses chunk)");
    onlyFor("a", ssm, "ssm");
    onlyFor("direction", ssm, "ssm");
    onlyFor("chunk", ssm, "ssm");
    if (r.has("scale")) {
        const JsonReader scale = r.at("scale");
        if (!(scale.isString() && scale.string() == "default")) m.scale = scale.number();
    }
    if (r.has("tile")) m.tile = int(r.at("tile").integer(1, kMaxTokens));
    if (r.has("a")) m.a = r.at("a").number();
    if (r.has("chunk")) m.chunk = int(r.at("chunk").integer(1, kMaxTokens));
    if (r.has("direction")) {
        const std::string direction = r.at("direction").string();
        if (direction != "causal" && direction != "bidirectional")
            r.at("direction").fail("must be \"causal\" or \"bidirectional\"");
        m.bidirectional = direction == "bidirectional";
    }
    return m;
}

LayerSpec readLayer(const JsonReader& r) {
    r.expectObject({"ffn", "wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo", "heads", "kv_heads",
                    "mixer", "mask", "residual", "norm", "attention_norm", "mlp_norm", "mlp",
                    "parallel_residual"});
    LayerSpec layer;
    const std::pair<const char*, std::optional<MatrixSpec>*> biases[] = {
        {"bq", &layer.bq}, {"bk", &layer.bk}, {"bv", &layer.bv}, {"bo", &layer.bo}};
    for (const auto& [key, bias] : biases)
        if (r.has(key)) *bias = readRow(r.at(key));
    if (r.has("kv_heads")) layer.kvHeads = int(r.at("kv_heads").integer(1, 1024));
    if (r.has("norm")) {
        const std::string placement = r.at("norm").string();
        if (placement != "pre" && placement != "post")
            r.at("norm").fail("must be \"pre\" or \"post\"");
        layer.normPlacement =
            placement == "pre" ? LayerSpec::NormPlacement::Pre : LayerSpec::NormPlacement::Post;
    }
    if (r.has("attention_norm")) layer.attentionNorm = readNorm(r.at("attention_norm"));
    if (r.has("mlp_norm")) layer.mlpNorm = readNorm(r.at("mlp_norm"));
    if (r.has("mlp")) layer.mlp = readMlp(r.at("mlp"));
    if (r.has("parallel_residual")) layer.parallelResidual = r.at("parallel_residual").boolean();
    if (r.has("ffn")) layer.ffn = readMatrixSpec(r.at("ffn"));
    if (r.has("wq")) layer.wq = readMatrixSpec(r.at("wq"));
    if (r.has("wk")) layer.wk = readMatrixSpec(r.at("wk"));
    if (r.has("wv")) layer.wv = readMatrixSpec(r.at("wv"));
    if (r.has("wo")) layer.wo = readMatrixSpec(r.at("wo"));
    if (r.has("heads")) layer.heads = int(r.at("heads").integer(1, 1024));
    if (r.has("mixer")) layer.mixer = readMixer(r.at("mixer"));
    if (r.has("mask")) layer.mask = readMask(r.at("mask"));
    if (r.has("residual")) layer.residual = r.at("residual").boolean();
    return layer;
}

namespace {
// Hugging Face's `rope_scaling`, with its key names.
RopeScaling readRopeScaling(const JsonReader& r) {
    r.expectObject({"type", "factor", "low_freq_factor", "high_freq_factor",
                    "original_max_position_embeddings"});
    RopeScaling scaling;
    const std::string type = r.at("type").string();
    if (type == "linear") {
        r.expectObject({"type", "factor"});
        scaling.kind = RopeScaling::Kind::Linear;
    } else if (type == "llama3") {
        scaling.kind = RopeScaling::Kind::Llama3;
    } else {
        r.at("type").fail("unknown RoPE scaling '" + type + "' (linear, llama3)");
    }
    const auto positive = [&](const char* key, double& out) {
        out = toDouble(r.at(key).number());
        if (!(out > 0)) r.at(key).fail("must be positive");
    };
    const auto optionalPositive = [&](const char* key, double& out) {
        if (r.has(key)) positive(key, out);
    };
    positive("factor", scaling.factor);
    optionalPositive("low_freq_factor", scaling.lowFrequencyFactor);
    optionalPositive("high_freq_factor", scaling.highFrequencyFactor);
    optionalPositive("original_max_position_embeddings", scaling.originalContext);
    if (scaling.kind == RopeScaling::Kind::Llama3 &&
        !(scaling.highFrequencyFactor > scaling.lowFrequencyFactor))
        r.fail("high_freq_factor must exceed low_freq_factor");
    return scaling;
}
} // namespace

PositionalSpec readPositional(const JsonReader& r) {
    PositionalSpec p;
    const std::string kind = r.at("kind").string();
    if (kind == "none") {
        r.expectObject({"kind", "offset"});
    } else if (kind == "polynomial") {
        r.expectObject({"kind", "offset"});
        p.kind = PositionalSpec::Kind::Polynomial;
    } else if (kind == "sinusoidal") {
        r.expectObject({"kind", "offset"});
        p.kind = PositionalSpec::Kind::Sinusoidal;
    } else if (kind == "learned") {
        r.expectObject({"kind", "offset", "seed", "table"});
        p.kind = PositionalSpec::Kind::Learned;
        if (r.has("seed") == r.has("table")) r.fail("learned needs exactly one of seed or table");
        if (r.has("seed"))
            p.seed = static_cast<std::uint64_t>(r.at("seed").integer(0, kMaxSeed));
        else {
            p.seeded = false;
            p.table = MatrixSpec::given(r.at("table").matrix());
        }
    } else if (kind == "rope") {
        r.expectObject({"kind", "offset", "base", "style", "rotary_dim", "scaling"});
        p.kind = PositionalSpec::Kind::Rope;
        if (r.has("base")) {
            p.base = toDouble(r.at("base").number());
            if (!isValidRopeBase(p.base)) r.at("base").fail("must be greater than 1");
        }
        if (r.has("style")) {
            const std::string style = r.at("style").string();
            if (style != "interleaved" && style != "half")
                r.at("style").fail("must be \"interleaved\" or \"half\"");
            p.style = style == "half" ? PositionalSpec::RopeStyle::Half
                                      : PositionalSpec::RopeStyle::Interleaved;
        }
        if (r.has("rotary_dim")) {
            p.rotaryDim = int(r.at("rotary_dim").integer(2, 1 << 14));
            if (p.rotaryDim % 2 != 0) r.at("rotary_dim").fail("must be even (pairs rotate)");
        }
        if (r.has("scaling")) p.scaling = readRopeScaling(r.at("scaling"));
    } else if (kind == "alibi") {
        r.expectObject({"kind", "offset", "slopes", "causal"});
        p.kind = PositionalSpec::Kind::Alibi;
        if (r.has("causal")) p.causal = r.at("causal").boolean();
        if (r.has("slopes")) {
            const JsonReader slopes = r.at("slopes");
            if (slopes.size() == 0) slopes.fail("must list one slope per head");
            for (std::size_t i = 0; i < slopes.size(); ++i)
                p.slopes.push_back(slopes.at(i).number());
        }
    } else {
        r.at("kind").fail("unknown positional kind '" + kind +
                          "' (none, polynomial, sinusoidal, learned, rope, alibi)");
    }
    if (r.has("offset")) p.offset = r.at("offset").integer(-kMaxPositionOffset, kMaxPositionOffset);
    return p;
}

} // namespace attnlab::scenario_json
