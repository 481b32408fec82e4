// SPDX-License-Identifier: GPL-3.0-or-later
// Running a scenario and reporting the traces as JSON or text.
#include "core/explore/run_report.h"

#include "core/base/precision_dispatch.h"
#include "core/explore/resource_limits.h"
#include "core/model/model.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace attnlab {

using nlohmann::json;

template <class T>
json matrixValuesJson(const Matrix<T>& m) {
    json rows = json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        json row = json::array();
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            if constexpr (ScalarOps<T>::exact)
                row.push_back(rationalText(m(i, j)));
            else
                row.push_back(static_cast<double>(m(i, j)));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

namespace {

template <class T>
struct Sides {
    Trace<T> original;
    std::optional<Trace<T>> transformed;
    Permutation sigma;
    std::optional<Trace<T>> decoded; // the decode step, when asked
};

template <class T>
Sides<T> computeSides(const Scenario& s, const DecodeStep* decode) {
    checkMapMemory(s, 1 + (s.permutation.isSet() ? 1 : 0) + (decode ? 1 : 0));
    const Model<T> model(s.model, s.d(), s.backend);
    const Matrix<T> x = s.tokens.materialize<T>();
    Sides<T> sides{model.forward(x), std::nullopt, s.permutation.resolve(s.n()), std::nullopt};
    if (s.permutation.isSet()) sides.transformed = model.forward(sides.sigma.applyRows(x));
    if (decode) sides.decoded = attnlab::decode(model, x, *decode);
    return sides;
}

// The decode step's output minus the full pass's last m rows.
template <class T>
Matrix<T> decodeDifference(const Sides<T>& sides) {
    return sides.decoded->output - sides.original.output.bottomRows(sides.decoded->output.rows());
}

// The labels of the last m tokens (their indices when the tokens have none).
std::vector<std::string> lastLabels(const std::vector<std::string>& labels, int n, int m) {
    std::vector<std::string> out;
    for (int i = n - m; i < n; ++i)
        out.push_back(labels.empty() ? std::to_string(i) : labels[std::size_t(i)]);
    return out;
}

// "4 queries against a KV cache of 12 (bottom-right)".
std::string decodeText(const DecodeStep& step, int n) {
    return std::to_string(step.queries) + (step.queries == 1 ? " query" : " queries") +
           " against a KV cache of " + std::to_string(n - step.queries) + " (" +
           (step.mask ? std::string("mask file") : alignmentName(step.alignment)) + ")";
}

template <class T>
T largestEntry(const Matrix<T>& m) {
    T largest = T(0);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        largest = std::max<T>(largest, m(i) < T(0) ? T(-m(i)) : T(m(i)));
    return largest;
}

template <class T>
json traceJson(const Trace<T>& trace) {
    json layers = json::array();
    for (const auto& layer : trace.layers) {
        json heads = json::array();
        for (const auto& head : layer.heads)
            heads.push_back({{"scores", matrixValuesJson(head.scores)},
                             {"weights", matrixValuesJson(head.weights)}});
        layers.push_back({{"heads", heads},
                          {"output", matrixValuesJson(layer.output)},
                          {"backend", layer.backend}});
    }
    return {{"input", matrixValuesJson(trace.input)},
            {"layers", layers},
            {"output", matrixValuesJson(trace.output)}};
}

// The backends that computed the layers, each once, in order: "opencl", "opencl+cpu".
template <class T>
std::string backendsUsed(const Trace<T>& trace) {
    std::string used;
    for (const auto& layer : trace.layers)
        if (("+" + used + "+").find("+" + layer.backend + "+") == std::string::npos)
            used += (used.empty() ? "" : "+") + layer.backend;
    return used;
}

template <class T>
std::string entryText(const T& v) {
    if constexpr (ScalarOps<T>::exact) {
        return rationalText(v);
    } else {
        std::ostringstream out;
        out << std::setprecision(std::is_same_v<T, float> ? 6 : 8) << v;
        return out.str();
    }
}

// Columns printed of a wide matrix (an imported model's 768-wide hidden states); --out and
// --json carry every value.
constexpr Eigen::Index kPrintedColumns = 16;

// The number of code points of a UTF-8 string (for aligning token labels).
std::size_t displayWidth(const std::string& text) {
    return std::size_t(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

// The matrix with its rows named by `labels` (the tokens) when there are as many.
template <class T>
void printMatrix(std::ostringstream& out, const std::string& title, const Matrix<T>& m,
                 const std::vector<std::string>& labels = {}) {
    const Eigen::Index cols = std::min(m.cols(), kPrintedColumns);
    out << title << " (" << m.rows() << " x " << m.cols() << ")";
    if (cols < m.cols()) out << ", the first " << cols << " columns";
    out << "\n";
    std::vector<std::string> cells(std::size_t(m.rows() * cols));
    std::size_t width = 1, labelWidth = 0;
    for (Eigen::Index j = 0; j < cols; ++j)
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
            std::string& cell = cells[std::size_t(i + j * m.rows())];
            cell = entryText<T>(m(i, j));
            width = std::max(width, cell.size());
        }
    const bool named = labels.size() == std::size_t(m.rows());
    for (const std::string& label : labels)
        labelWidth = std::max(labelWidth, displayWidth(label));
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        out << "  ";
        if (named) {
            const std::string& label = labels[std::size_t(i)];
            out << label << std::string(labelWidth - displayWidth(label), ' ') << " |";
        }
        for (Eigen::Index j = 0; j < cols; ++j)
            out << std::setw(int(width) + 1) << cells[std::size_t(i + j * m.rows())];
        if (cols < m.cols()) out << " ...";
        out << '\n';
    }
}

template <class T>
void printTrace(std::ostringstream& out, const std::string& side, const Trace<T>& trace,
                const std::vector<std::string>& labels) {
    out << "== " << side << " ==\n";
    printMatrix(out, "input (after absolute positions)", trace.input, labels);
    for (std::size_t l = 0; l < trace.layers.size(); ++l)
        for (std::size_t h = 0; h < trace.layers[l].heads.size(); ++h)
            printMatrix(out,
                        "layer " + std::to_string(l) + " head " + std::to_string(h) + " weights",
                        trace.layers[l].heads[h].weights, labels);
    for (std::size_t l = 0; l < trace.layers.size(); ++l)
        out << "layer " << l << " computed on " << trace.layers[l].backend << "\n";
    printMatrix(out, "output", trace.output, labels);
}

// The labels in the order the permutation puts the tokens: row i of P X is token sigma^-1(i).
std::vector<std::string> permutedLabels(const std::vector<std::string>& labels,
                                        const Permutation& sigma) {
    if (labels.empty()) return labels;
    Matrix<double> index(Eigen::Index(labels.size()), 1);
    for (Eigen::Index i = 0; i < index.rows(); ++i)
        index(i, 0) = double(i);
    const Matrix<double> moved = sigma.applyRows(index);
    std::vector<std::string> out;
    for (Eigen::Index i = 0; i < moved.rows(); ++i)
        out.push_back(labels[std::size_t(moved(i, 0))]);
    return out;
}

} // namespace

json runJson(const Scenario& s, const DecodeStep* decode) {
    return withScalar(s.precision, [&]<class T>() {
        const Sides<T> sides = computeSides<T>(s, decode);
        json j = {{"n", s.n()},
                  {"d", s.d()},
                  {"precision", precisionName(s.precision)},
                  {"backend", backendsUsed(sides.original)},
                  {"backend_requested", backendChoiceName(s.backend)},
                  {"original", traceJson(sides.original)}};
        if (sides.transformed) {
            j["transformed"] = traceJson(*sides.transformed);
            j["permutation"] = sides.sigma.images();
        }
        if (sides.decoded) {
            json d = traceJson(*sides.decoded);
            d["queries"] = decode->queries;
            d["cache"] = s.n() - decode->queries;
            if (decode->mask)
                d["mask"] = "file";
            else
                d["alignment"] = alignmentName(decode->alignment);
            const Matrix<T> diff = decodeDifference(sides);
            d["difference"] = matrixValuesJson(diff);
            d["largest_difference"] = entryText<T>(largestEntry<T>(diff));
            j["decode"] = std::move(d);
        }
        j["warnings"] = sides.original.warnings;
        j["notices"] = sides.original.notices;
        return j;
    });
}

std::string runText(const Scenario& s, const DecodeStep* decode) {
    return withScalar(s.precision, [&]<class T>() {
        const Sides<T> sides = computeSides<T>(s, decode);
        std::ostringstream out;
        out << (s.name.empty() ? "(unnamed scenario)" : s.name) << "\n"
            << "n = " << s.n() << ", d = " << s.d() << ", precision " << precisionName(s.precision)
            << ", " << s.model.layers.size() << " layer(s), positional "
            << s.model.positional.describe() << ", backend " << backendsUsed(sides.original)
            << " (asked: " << backendChoiceName(s.backend) << ")\n";
        if (s.model.checkpoint) out << "model: " << s.model.checkpoint->directory << "\n";
        if (s.tokens.kind == TokenSpec::Kind::Ids) {
            out << "tokens:";
            for (std::size_t i = 0; i < s.tokens.ids.size(); ++i)
                out << " " << s.tokens.ids[i]
                    << (s.tokens.labels.empty() ? "" : " '" + s.tokens.labels[i] + "'");
            out << "\n";
        }
        out << "\n";
        printTrace(out, "original f(X)", sides.original, s.tokens.labels);
        if (sides.transformed) {
            out << "\n";
            printTrace(out, "transformed f(P X), sigma = " + sides.sigma.cycles(),
                       *sides.transformed, permutedLabels(s.tokens.labels, sides.sigma));
            const Matrix<T> expected = sides.sigma.applyRows(sides.original.output);
            const Matrix<T> diff = sides.transformed->output - expected;
            out << "\n";
            printMatrix(out, "difference f(P X) - P f(X)", diff,
                        permutedLabels(s.tokens.labels, sides.sigma));
            out << "largest |f(P X) - P f(X)| = " << entryText<T>(largestEntry<T>(diff)) << "\n";
        }
        if (sides.decoded) {
            const int n = s.n(), m = decode->queries;
            const std::vector<std::string> rows = lastLabels(s.tokens.labels, n, m);
            out << "\n";
            printTrace(out, "decode step: " + decodeText(*decode, n), *sides.decoded, rows);
            const std::string range =
                "rows " + std::to_string(n - m) + ".." + std::to_string(n - 1) + " of f(X)";
            out << "\n";
            const Matrix<T> diff = decodeDifference(sides);
            printMatrix(out, "difference decode - " + range, diff, rows);
            out << "largest |decode - " << range << "| = " << entryText<T>(largestEntry<T>(diff))
                << "\n";
            for (const std::string& w : sides.decoded->warnings)
                out << "warning: decode: " << w << "\n";
        }
        for (const std::string& w : sides.original.warnings)
            out << "warning: " << w << "\n";
        for (const std::string& notice : sides.original.notices)
            out << "notice: " << notice << "\n";
        return out.str();
    });
}

template <class T>
json traceBackendJson(const Trace<T>& trace, BackendChoice requested) {
    json layers = json::array();
    for (const auto& layer : trace.layers)
        layers.push_back(layer.backend);
    return json{{"backend", backendsUsed(trace)},
                {"backend_requested", backendChoiceName(requested)},
                {"layer_backends", layers},
                {"notices", trace.notices}};
}

json backendJson(const Scenario& s) {
    return withScalar(s.precision, [&]<class T>() {
        return traceBackendJson(
            Model<T>(s.model, s.d(), s.backend).forward(s.tokens.materialize<T>(), Maps::Drop),
            s.backend);
    });
}

template json traceBackendJson<float>(const Trace<float>&, BackendChoice);
template json traceBackendJson<double>(const Trace<double>&, BackendChoice);
template json traceBackendJson<Rational>(const Trace<Rational>&, BackendChoice);
template json matrixValuesJson<float>(const Matrix<float>&);
template json matrixValuesJson<double>(const Matrix<double>&);
template json matrixValuesJson<Rational>(const Matrix<Rational>&);

} // namespace attnlab
