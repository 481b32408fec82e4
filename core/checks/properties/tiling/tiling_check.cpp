// SPDX-License-Identifier: GPL-3.0-or-later
// tiling (flash) equivalence and chunkwise scans: the output evaluated over key tiles of length b
// (attention mixers) or in chunks of length b (ssm) equals the untiled / recurrent result, for
// every divisor b of n and one ragged size. Exact in rational arithmetic; in floating point the
// difference is rounding and is reported as such. In float modes the tiled side is the fused CPU
// kernel with key blocks of b (what long sequences run on), the reference the dense path.
#include "core/checks/properties/tiling/tiling_check.h"

#include "core/checks/check_support.h"

namespace attnlab {

namespace {

std::vector<int> defaultSizes(int n) {
    std::vector<int> sizes;
    for (int b = 1; b <= n; ++b)
        if (n % b == 0) sizes.push_back(b);
    for (int b = 2; b < n; ++b)
        if (n % b != 0) {
            sizes.push_back(b); // the smallest ragged size
            break;
        }
    return sizes;
}

class TilingCheck : public TypedCheck<TilingCheck> {
public:
    explicit TilingCheck(bool chunkwise) : chunkwise_(chunkwise) {}
    std::string name() const override { return chunkwise_ ? "chunkwise" : "tiling"; }
    std::vector<CheckParameter> parameters() const override {
        return {{sizeKey(), CheckParameter::Type::Integer,
                 "every divisor of n, and one ragged size", ""}};
    }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const std::string key = sizeKey();
        std::vector<int> sizes = defaultSizes(s.n());
        if (request.params.contains(key)) sizes = {int(integerParam(request, key, 1, 1, s.n()))};
        const CheckSetup<T> base(request);
        // Kept maps: the untiled reference path, not the (itself tiled) fused kernel.
        const Matrix<T> expected =
            base.model.inBlocks(chunkwise_, 0).forward(base.tokens, Maps::Keep).output;
        std::vector<Deviation<T>> deviations(sizes.size());
        base.forEachForward(request, long(sizes.size()), [&](long i) {
            const Model<T> tiled = base.model.inBlocks(chunkwise_, sizes[std::size_t(i)]);
            deviations[std::size_t(i)] =
                compareMatrices<T>(tiled.forward(base.tokens, Maps::Drop).output, expected);
        });
        Deviation<T> worst;
        nlohmann::json perSize = nlohmann::json::array();
        std::optional<int> worstSize;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const int b = sizes[i];
            const Deviation<T>& d = deviations[i];
            perSize.push_back(
                {{key, b}, {"ragged", s.n() % b != 0}, {"deviation", scalarJson<T>(d.largest)}});
            if (!worstSize || d.largest > worst.largest) worstSize = b;
            worst.merge(d);
        }
        const std::string what = chunkwise_ ? "chunkwise scan" : "tiled evaluation";
        ReportBuilder report(name());
        const std::string difference = report.settleOrderOnly(worst, base.depth, "the " + what);
        report.checked({{key + "_sizes", sizes}}).details({{"per_size", perSize}});
        if (report.fails()) {
            report
                .witness(Witness({WitnessCell::Map::Output, -1, -1, int(worst.row), int(worst.col)},
                                 CellKeys::RowColumn)
                             .with(key, *worstSize))
                .explain("the " + what + " with " + key + " " + std::to_string(*worstSize) +
                         " differs from the reference by more than rounding");
        } else {
            report.explain("the " + what + " and the reference, for every size: " + difference);
        }
        return std::move(report).build();
    }

protected:
    std::optional<std::string> notApplicable(const Scenario& s) const override {
        for (const LayerSpec& l : s.model.layers)
            if (evaluatedInBlocks(l, chunkwise_)) return {};
        return chunkwise_ ? "no ssm layer to evaluate chunkwise"
                          : "no attention layer (softmax, softmax_like, raw) to tile";
    }

private:
    std::string sizeKey() const { return chunkwise_ ? "chunk" : "tile"; }

    bool chunkwise_;
};

} // namespace

std::unique_ptr<PropertyCheck> makeTilingCheck(bool chunkwise) {
    return std::make_unique<TilingCheck>(chunkwise);
}

} // namespace attnlab
