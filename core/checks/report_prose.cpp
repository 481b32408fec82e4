// SPDX-License-Identifier: GPL-3.0-or-later
// Reports in words: a sentence per kind of witness, labelled rows for the rest.
#include "core/checks/report_prose.h"

#include <cctype>
#include <cstdio>
#include <map>
#include <set>

namespace attnlab {

namespace {

constexpr std::size_t kListShown = 6;    // entries of a long list shown: the first 4, the last 2
constexpr std::size_t kTextShown = 60;   // characters of a long text shown
constexpr std::size_t kCyclesShown = 48; // characters of a long permutation's cycles shown

/// What each key of `checked` and `witness` (cli.md) means, in a reader's words.
const std::map<std::string, std::string>& labels() {
    static const std::map<std::string, std::string> table = {
        {"after_perturbing_suffix", "output after perturbing the suffix"},
        {"after_perturbing_token", "output after perturbing the token"},
        {"against", "compared against"},
        {"alignment", "causal mask alignment"},
        {"alone", "evaluated alone"},
        {"arrangement", "arrangement"},
        {"arrangements", "arrangements"},
        {"before", "output before"},
        {"blocked_weights_nonzero", "weights of blocked keys that are not 0"},
        {"claimed_radius", "claimed radius"},
        {"column", "column"},
        {"compared", "compared"},
        {"composition", "composition of the batch"},
        {"cycles", "σ"},
        {"data_parallel", "in the data-parallel split"},
        {"decode", "decode step's value"},
        {"decode_row", "row of the decode step"},
        {"direction", "direction"},
        {"distance", "distance from the output row"},
        {"example", "example"},
        {"exhaustive", "every permutation there is"},
        {"finite_difference", "finite difference"},
        {"finite_differences", "finite differences"},
        {"first_blocked", "first blocked key"},
        {"full_pass", "full pass's value"},
        {"heads", "heads"},
        {"in_batch", "in the batch"},
        {"includes_scenario_permutation", "the scenario's σ among them"},
        {"input_token", "perturbed input token"},
        {"intended_mask", "intended mask"},
        {"jvp_dot", "⟨J u, δ⟩"},
        {"jvp_identity", "⟨J u, δ⟩ = ⟨u, Jᵀ δ⟩"},
        {"kind", "kind"},
        {"largest_change", "largest change"},
        {"layers", "layers"},
        {"length", "length"},
        {"lengths", "lengths"},
        {"loss", "loss"},
        {"map", "map"},
        {"masked", "masked path's value"},
        {"model_then_transformed", "P f(X) (the model, then σ)"},
        {"n", "tokens"},
        {"offset", "offset"},
        {"offsets", "offsets"},
        {"output", "output"},
        {"output_row", "output row that moved"},
        {"parts", "parts"},
        {"per_layer", "per layer"},
        {"per_length", "per length"},
        {"per_size", "per size"},
        {"permutation", "σ as a list (row i of P X is row σ(i) of X)"},
        {"permutations", "permutations tried"},
        {"perturbations_per_token", "perturbations per token"},
        {"perturbed_suffixes", "suffixes perturbed"},
        {"perturbed_tokens", "tokens perturbed"},
        {"perturbed_tokens_from", "tokens perturbed from"},
        {"planned", "permutations planned"},
        {"prefix_alone", "the prefix alone"},
        {"quantity", "quantity"},
        {"queries", "queries"},
        {"query_position", "query position"},
        {"reference_composition", "reference composition"},
        {"row", "row"},
        {"rows", "rows"},
        {"sample", "sample"},
        {"samples", "samples"},
        {"seed", "seed"},
        {"sequence", "sequence"},
        {"sequences", "sequences"},
        {"shifted", "shifted value"},
        {"shrinking", "shrinking"},
        {"tokens", "tokens kept"},
        {"transformed_then_model", "f(P X) (σ, then the model)"},
        {"transposition", "transposition"},
        {"ulps", "units in the last place"},
        {"unmasked", "unmasked path's value"},
        {"unshifted", "unshifted value"},
        {"vjp", "vector-Jacobian product"},
        {"vjp_dot", "⟨u, Jᵀ δ⟩"},
        {"where", "where"},
        {"whole_batch", "in the whole batch"},
        {"whole_pass", "whole pass's value"},
        {"workers", "workers"},
    };
    return table;
}

std::string labelOf(const std::string& key) {
    const auto it = labels().find(key);
    if (it != labels().end()) return it->second;
    std::string words = key; // an unknown key reads as its words
    for (char& c : words)
        if (c == '_') c = ' ';
    return words;
}

std::string thousands(std::size_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string numberText(const nlohmann::json& v) {
    if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", v.get<double>());
    return buffer;
}

/// A long permutation's cycles: the first few, and how many tokens it moves.
std::string cyclesText(const std::string& cycles) {
    if (cycles.size() <= kCyclesShown) return cycles;
    const std::size_t cut = cycles.rfind(')', kCyclesShown);
    std::size_t moved = 0;
    for (std::size_t i = 0; i < cycles.size(); ++i)
        if (std::isdigit(static_cast<unsigned char>(cycles[i])) &&
            (i == 0 || !std::isdigit(static_cast<unsigned char>(cycles[i - 1]))))
            ++moved;
    return cycles.substr(0, cut == std::string::npos ? kCyclesShown : cut + 1) + " … (" +
           thousands(moved) + " tokens moved)";
}

const nlohmann::json& get(const nlohmann::json& object, const std::string& key) {
    static const nlohmann::json null;
    const auto it = object.find(key);
    return it == object.end() ? null : *it;
}

bool has(const nlohmann::json& object, std::initializer_list<const char*> keys) {
    for (const char* key : keys)
        if (!object.contains(key)) return false;
    return true;
}

/// The witness of a permutation property: f(P X) beside P f(X) at one cell.
std::string permutationSentence(const nlohmann::json& w) {
    const std::string sigma =
        "σ = " + cyclesText(get(w, "cycles").is_string() ? get(w, "cycles").get<std::string>()
                                                         : get(w, "cycles").dump());
    const std::string t = readableValue(get(w, "transformed_then_model")),
                      m = readableValue(get(w, "model_then_transformed"));
    const std::string column = readableValue(get(w, "column"));
    if (!get(w, "row").is_number_integer())
        return sigma + ": the pooled output of P X is " + t + " in column " + column +
               ", that of X is " + m + ".";
    const long row = get(w, "row").get<long>();
    const nlohmann::json& images = get(w, "permutation");
    const std::string source = images.is_array() && row >= 0 && std::size_t(row) < images.size()
                                   ? "row " + images[std::size_t(row)].dump() + " of f(X) (row " +
                                         std::to_string(row) + " of P f(X))"
                                   : "row " + std::to_string(row) + " of P f(X)";
    return sigma + ": row " + std::to_string(row) + " of f(P X) is " + t + " in column " + column +
           ", while " + source + " is " + m + ".";
}

/// The witness of a perturbation (locality, causality): an output row that moved.
std::string perturbationSentence(const nlohmann::json& w) {
    const bool suffix = w.contains("after_perturbing_suffix");
    const std::string what =
        suffix
            ? "perturbing the tokens from " + readableValue(get(w, "perturbed_tokens_from")) + " on"
            : "perturbing input token " + readableValue(get(w, "input_token"));
    std::string text = what + " moved output row " + readableValue(get(w, "output_row"));
    if (w.contains("distance")) text += " (distance " + readableValue(get(w, "distance")) + ")";
    if (w.contains("column")) text += " in column " + readableValue(get(w, "column"));
    if (w.contains("before"))
        text += ": " + readableValue(get(w, "before")) + " became " +
                readableValue(suffix ? get(w, "after_perturbing_suffix")
                                     : get(w, "after_perturbing_token"));
    return text + ".";
}

/// The two values a witness compares, when it is not a permutation's or a perturbation's: the
/// way against the reference.
constexpr std::pair<const char*, const char*> kComparedPairs[] = {
    {"decode", "full_pass"}, {"shifted", "unshifted"},         {"unmasked", "masked"},
    {"in_batch", "alone"},   {"data_parallel", "whole_batch"}, {"whole_pass", "prefix_alone"},
    {"jvp_dot", "vjp_dot"},  {"finite_difference", "vjp"},
};

/// Where a witness lies, when it names its cell: "row 2, column 3 (layer 0 head 0)".
std::string cellText(const nlohmann::json& w) {
    std::string text;
    if (w.contains("row")) text += "row " + readableValue(get(w, "row"));
    if (w.contains("column"))
        text += std::string(text.empty() ? "" : ", ") + "column " + readableValue(get(w, "column"));
    if (w.contains("where"))
        text += std::string(text.empty() ? "" : " ") + "(" + readableValue(get(w, "where")) + ")";
    else if (w.contains("layer") && w.contains("head"))
        text += std::string(text.empty() ? "" : " ") + "(layer " + readableValue(get(w, "layer")) +
                " head " + readableValue(get(w, "head")) + ")";
    return text;
}

std::string checkedSentence(const nlohmann::json& c) {
    if (!c.is_object() || c.empty()) return {};
    std::string text;
    std::set<std::string> said;
    if (has(c, {"permutations"})) {
        text = readableValue(c["permutations"]) + " permutation" +
               (c["permutations"] == 1 ? "" : "s") + " tried";
        if (c.contains("planned")) text += " of " + readableValue(c["planned"]) + " planned";
        if (get(c, "exhaustive") == true) text += " (every permutation there is)";
        if (get(c, "includes_scenario_permutation") == true)
            text += ", the scenario's σ among them";
        said = {"permutations", "planned", "exhaustive", "includes_scenario_permutation"};
    }
    for (const auto& [key, value] : c.items()) {
        if (said.count(key)) continue;
        if (!text.empty()) text += "; ";
        text += value.is_boolean() ? labelOf(key) + (value.get<bool>() ? ": yes" : ": no")
                                   : labelOf(key) + " " + readableValue(value);
    }
    return text + ".";
}

} // namespace

std::string readableValue(const nlohmann::json& value) {
    if (value.is_null()) return "—";
    if (value.is_string()) {
        const std::string& s = value.get_ref<const std::string&>();
        return s.size() <= kTextShown
                   ? s
                   : s.substr(0, kTextShown) + "… (" + thousands(s.size()) + " characters)";
    }
    if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
    if (value.is_number()) return numberText(value);
    if (value.is_array()) {
        std::string out = "[";
        const std::size_t n = value.size();
        for (std::size_t i = 0; i < n; ++i) {
            if (n > kListShown && i == kListShown - 2) {
                out += "…, ";
                i = n - 2;
            }
            out += readableValue(value[i]) + (i + 1 < n ? ", " : "");
        }
        out += "]";
        return n > kListShown ? out + " (" + thousands(n) + " entries)" : out;
    }
    std::string out;
    for (const auto& [key, v] : value.items())
        out += std::string(out.empty() ? "" : "; ") + labelOf(key) + ": " + readableValue(v);
    return out;
}

ReportProse describeReport(const PropertyReport& report, bool shrunk) {
    ReportProse prose;
    prose.checked = checkedSentence(report.checked);
    const std::optional<Witness>& chosen =
        shrunk && report.shrunkWitness ? report.shrunkWitness : report.witness;
    if (!chosen) return prose;
    const nlohmann::json w = chosen->json();
    std::set<std::string> said;
    if (has(w, {"cycles", "transformed_then_model", "model_then_transformed", "row"})) {
        prose.witness = permutationSentence(w);
        said = {"cycles",     "transformed_then_model", "model_then_transformed", "row", "column",
                "permutation"};
    } else if (has(w, {"output_row"}) &&
               (w.contains("input_token") || w.contains("perturbed_tokens_from"))) {
        prose.witness = perturbationSentence(w);
        said = {"output_row", "input_token", "perturbed_tokens_from",  "distance",
                "column",     "before",      "after_perturbing_token", "after_perturbing_suffix"};
    } else {
        const std::string cell = cellText(w);
        said = {"row", "column", "where", "layer", "head"};
        std::string values;
        for (const auto& [way, reference] : kComparedPairs)
            if (has(w, {way, reference})) {
                values = labelOf(way) + " " + readableValue(get(w, way)) + " against " +
                         labelOf(reference) + " " + readableValue(get(w, reference));
                said.insert({way, reference});
                break;
            }
        if (!cell.empty())
            prose.witness = "At " + cell + (values.empty() ? "." : ": " + values + ".");
        else if (!values.empty())
            prose.witness = values + ".";
    }
    for (const auto& [key, value] : w.items())
        if (!said.count(key)) prose.table.emplace_back(labelOf(key), readableValue(value));
    return prose;
}

} // namespace attnlab
