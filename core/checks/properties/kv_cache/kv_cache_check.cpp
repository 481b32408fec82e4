// SPDX-License-Identifier: GPL-3.0-or-later
// kv-cache (properties.md §2.15): the decode step of §1.7 against the full pass, for each m of
// `queries` with the mask aligned as `alignment` says; a failure is shrunk to the smallest m,
// then to the fewest tokens, and the first differing entry. The explanation reads the masks:
// top-left rows, a prefill that a bidirectional layer would have let see later tokens.
#include "core/checks/properties/kv_cache/kv_cache_check.h"

#include "core/base/error.h"
#include "core/checks/check_support.h"
#include "core/checks/properties/kv_cache/decode_comparison.h"

#include <algorithm>
#include <numeric>

namespace attnlab {

namespace {

// The `queries` parameter: an integer or a list, each 1 ≤ m ≤ n (default 1 and ⌈n/2⌉), sorted,
// without repeats.
std::vector<int> queriesOf(const CheckRequest& request, int n) {
    std::vector<int> queries{1, (n + 1) / 2};
    if (request.params.contains("queries")) {
        queries.clear();
        for (const long m : integerList(request.params.at("queries"), "queries")) {
            if (m < 1 || m > n)
                throw InputError("queries", "m = " + std::to_string(m) +
                                                " is outside 1..n = " + std::to_string(n) +
                                                " (the decode step reads the last m of n tokens)");
            queries.push_back(int(m));
        }
    }
    std::sort(queries.begin(), queries.end());
    queries.erase(std::unique(queries.begin(), queries.end()), queries.end());
    return queries;
}

// The `alignment` parameter: "bottom-right" (default) or "top-left".
CausalAlignment alignmentOf(const CheckRequest& request) {
    if (!request.params.contains("alignment")) return CausalAlignment::BottomRight;
    const auto& a = request.params.at("alignment");
    if (!a.is_string())
        throw InputError("alignment", a.dump() + " is not an alignment: bottom-right or top-left");
    return parseAlignment(a.get<std::string>(), "alignment");
}

DecodeStep stepOf(int m, CausalAlignment alignment) {
    DecodeStep step;
    step.queries = m;
    step.alignment = alignment;
    return step;
}

bool lets(const BoolMatrix& block) {
    return block.size() > 0 && block.any();
}

// Whether no query of the mask sees a later key.
bool causal(const BoolMatrix& square) {
    for (Eigen::Index i = 0; i < square.rows(); ++i)
        if (lets(square.row(i).tail(square.cols() - i - 1))) return false;
    return true;
}

// Why decoding m of n tokens aligned `alignment` differs from the full pass, as the layers'
// masks tell it: the rows the alignment takes, and a cache whose prefill a layer below the last
// would have let see later tokens. Empty when the masks do not explain a difference.
std::vector<std::string> causes(const Scenario& s, int m, CausalAlignment alignment) {
    const int n = s.n(), c = n - m;
    const auto& layers = s.model.layers;
    std::vector<BoolMatrix> squares;
    for (const LayerSpec& layer : layers)
        squares.push_back(buildMask(layer.mask, n));
    std::vector<std::string> found;
    for (std::size_t l = 0; alignment == CausalAlignment::TopLeft && l < layers.size(); ++l) {
        const BoolMatrix& square = squares[l];
        if (!(alignedRows(square, m, alignment).array() !=
              alignedRows(square, m, CausalAlignment::BottomRight).array())
                 .any())
            continue;
        found.push_back(
            causal(square)
                ? "the mask is aligned at the top-left corner: query i of the decode "
                  "step sees keys 0..i instead of 0..c+i, PyTorch's is_causal on a "
                  "rectangle"
                : "the mask is aligned at the top-left corner: layer " + std::to_string(l) +
                      "'s decode queries use rows 0..m−1 of its mask instead of c..n−1");
        break;
    }
    for (std::size_t l = 0; l + 1 < layers.size(); ++l) {
        if (!lets(squares[l].topRightCorner(c, n - c))) continue;
        found.push_back("the cache was filled by a prefill that never saw the later tokens: layer "
                        "≥ " +
                        std::to_string(l + 1) + " keys of the cached tokens differ (layer " +
                        std::to_string(l) + "'s mask " + layers[l].mask.describe() +
                        " lets a cached token see a later one)");
        break;
    }
    return found;
}

// Why the decode step reproduced the full pass, from the masks (`queries` all held).
std::string holdsBecause(const Scenario& s, const std::vector<int>& queries,
                         CausalAlignment alignment) {
    if (queries.front() == s.n()) return "m = n: the decode step has no cache, it is the full pass";
    std::vector<std::string> found;
    for (int m : queries)
        for (const std::string& cause : causes(s, m, alignment))
            if (std::find(found.begin(), found.end(), cause) == found.end()) found.push_back(cause);
    if (!found.empty())
        return "the decode step equals the full pass on these inputs, although " +
               joinedCauses(found);
    const auto& layers = s.model.layers;
    const bool allCausal = std::all_of(layers.begin(), layers.end(), [&](const LayerSpec& l) {
        return causal(buildMask(l.mask, s.n()));
    });
    if (allCausal && alignment == CausalAlignment::BottomRight)
        return "every layer's mask is causal: the bottom-right rows of a causal mask are the full "
               "pass's rows, and no cached token sees a later one, so the prefill's keys and "
               "values are the full pass's";
    if (layers.size() == 1)
        return "a single layer: the cached keys and values are projections of the cached tokens "
               "alone, which later tokens cannot change, and the decode step's rows of the mask "
               "are the full pass's rows";
    return "the decode step's rows of every mask are the full pass's rows, and below the last "
           "layer no cached token sees a later one, so the cache holds the full pass's keys and "
           "values";
}

// The decode step of m tokens of `x` (`full`: its forward, when the caller has it) when it differs
// from the full pass beyond the tolerance (nullopt when it does not, or when the model does not
// apply to this many tokens).
template <class T>
std::optional<DecodeMaps<T>> failingStep(const CheckSetup<T>& setup, const CheckRequest& request,
                                         const Matrix<T>& x, int m, CausalAlignment alignment,
                                         const Trace<T>* full = nullptr) {
    pollCancel(request);
    try {
        DecodeMaps<T> maps(setup.model, x, full ? *full : setup.model.forward(x),
                           stepOf(m, alignment));
        const long depth = long(x.rows() + x.cols()) * long(request.scenario.model.layers.size());
        if (maps.firstWitness(depth)) return maps;
    } catch (const InputError&) {
        // e.g. a mask of fixed size: this many tokens is not a scenario of the model
    }
    return std::nullopt;
}

// The smallest witness: the smallest m that fails (below `failing`, the smallest checked m that
// failed), then, up to kShrinkTokensUpTo tokens, the fewest tokens that still fail, greedily;
// the first differing entry there.
template <class T>
std::optional<Witness> shrink(const CheckSetup<T>& setup, const CheckRequest& request,
                              const Trace<T>& full, int failing, CausalAlignment alignment) {
    const Matrix<T>& tokens = setup.tokens;
    int m = failing;
    for (int smaller = 1; smaller < failing; ++smaller)
        if (failingStep(setup, request, tokens, smaller, alignment, &full)) {
            m = smaller;
            break;
        }
    std::vector<int> keep(static_cast<std::size_t>(tokens.rows()));
    std::iota(keep.begin(), keep.end(), 0);
    for (bool removed = tokens.rows() <= kShrinkTokensUpTo; removed && int(keep.size()) > m + 1;) {
        removed = false;
        for (std::size_t k = 0; k < keep.size() && !removed; ++k) {
            std::vector<int> fewer = keep;
            fewer.erase(fewer.begin() + long(k));
            if (failingStep(setup, request, rowsOf(tokens, fewer), m, alignment)) {
                keep = std::move(fewer);
                removed = true;
            }
        }
    }
    const Matrix<T> x = rowsOf(tokens, keep);
    const auto step = failingStep(setup, request, x, m, alignment);
    if (!step) return std::nullopt;
    const long depth = long(x.rows() + x.cols()) * long(request.scenario.model.layers.size());
    std::optional<Witness> w = step->firstWitness(depth);
    w->with("tokens", keep).with("n", keep.size());
    return w;
}

class KvCacheCheck : public TypedCheck<KvCacheCheck> {
public:
    std::string name() const override { return "kv-cache"; }
    std::vector<CheckParameter> parameters() const override {
        return {{"queries", CheckParameter::Type::IntegerOrList, "1, ⌈n/2⌉",
                 "new tokens m (an integer or a list)"},
                {"alignment", CheckParameter::Type::Word, "bottom-right", "or top-left"}};
    }
    std::string note() const override { return "compares outputs and weights"; }

protected:
    std::optional<std::string> notApplicable(const Scenario& s) const override {
        for (std::size_t l = 0; l < s.model.layers.size(); ++l)
            if (s.model.layers[l].mixer.kind == MixerSpec::Kind::Ssm)
                return "layer " + std::to_string(l) +
                       "'s mixer is ssm: it keeps a state, not a KV cache, and has no decode step";
        if (s.n() == 1) return "a single token: there is no cache to decode against (m = n = 1)";
        return std::nullopt;
    }

public:
    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const std::vector<int> queries = queriesOf(request, s.n());
        const CausalAlignment alignment = alignmentOf(request);
        const CheckSetup<T> setup(request);
        pollCancel(request);
        const Trace<T> full = setup.model.forward(setup.tokens);
        std::vector<DecodeMaps<T>> steps;
        Deviation<T> merged;
        std::size_t worst = 0;
        for (int m : queries) {
            pollCancel(request);
            steps.emplace_back(setup.model, setup.tokens, full, stepOf(m, alignment));
            const Deviation<T> d = steps.back().compare().deviation;
            if (d.largest > merged.largest) worst = steps.size() - 1;
            merged.merge(d);
        }
        ReportBuilder report(name());
        report.settle(merged, setup.depth)
            .checked({{"queries", queries}, {"alignment", alignmentName(alignment)}});
        const T tol = tolerance<T>(merged.magnitude, setup.depth);
        std::vector<int> failing;
        std::vector<std::string> why;
        for (const DecodeMaps<T>& step : steps) {
            if (!(step.compare().deviation.largest > tol)) continue;
            failing.push_back(step.step.queries);
            for (const std::string& cause : causes(s, step.step.queries, alignment))
                if (std::find(why.begin(), why.end(), cause) == why.end()) why.push_back(cause);
        }
        report.details({{"failing_queries", failing}});
        if (report.fails()) {
            report.witness(steps[worst].worstWitness())
                .shrunkWitness(shrink(setup, request, full, failing.front(), alignment))
                .explain(why.empty() ? "the decode step differs from the full pass by more than "
                                       "rounding"
                                     : joinedCauses(why));
        } else {
            report.explain(holdsBecause(s, queries, alignment));
        }
        return std::move(report).build();
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeKvCacheCheck() {
    return std::make_unique<KvCacheCheck>();
}

} // namespace attnlab
