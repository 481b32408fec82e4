// tiling (flash) equivalence and chunkwise scans: the output evaluated over key tiles of length b
// (attention mixers) or in chunks of length b (ssm) equals the untiled / recurrent result, for
// every divisor b of n and one ragged size. Exact in rational arithmetic; in floating point the
// difference is rounding and is reported as such. In float modes the tiled side is the fused CPU
// kernel with key blocks of b (what long sequences run on), the reference the dense path.
#include "core/base/error.h"
#include "core/base/precision_dispatch.h"
#include "core/checks/check_factories.h"
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

class TilingCheck : public PropertyCheck {
public:
    explicit TilingCheck(bool chunkwise) : chunkwise_(chunkwise) {}
    std::string name() const override { return chunkwise_ ? "chunkwise" : "tiling"; }
    std::string parameters() const override {
        return chunkwise_ ? "chunk [every divisor of n, and one ragged size]"
                          : "tile [every divisor of n, and one ragged size]";
    }
    PropertyReport run(const CheckRequest& request) const override {
        const char* key = chunkwise_ ? "chunk" : "tile";
        expectParams(request, {key});
        const Scenario& s = request.scenario;
        bool applies = false;
        for (const LayerSpec& l : s.model.layers)
            applies = applies || ((l.mixer.kind == MixerSpec::Kind::Ssm) == chunkwise_);
        if (!applies)
            return notApplicable(
                name(), chunkwise_ ? "no ssm layer to evaluate chunkwise"
                                   : "no attention layer (softmax, softmax_like, raw) to tile");
        std::vector<int> sizes = defaultSizes(s.n());
        if (request.params.contains(key)) sizes = {int(integerParam(request, key, 1, 1, s.n()))};
        return withScalar(s.precision, [&]<class T>() {
            // The scenario's model with the layers under study at size b; 0: the reference,
            // every layer untiled and recurrent. Models only: the tokens are materialised once.
            const auto modelAt = [&](int b) {
                ModelSpec spec = s.model;
                for (LayerSpec& l : spec.layers) {
                    const bool studied = (l.mixer.kind == MixerSpec::Kind::Ssm) == chunkwise_;
                    (chunkwise_ ? l.mixer.chunk : l.mixer.tile) = studied ? b : 0;
                }
                return Model<T>(spec, s.d(), s.backend);
            };
            const CheckSetup<T> base(s);
            // Kept maps: the untiled reference path, not the (itself tiled) fused kernel.
            const Matrix<T> expected = modelAt(0).forward(base.tokens, Maps::Keep).output;
            PropertyReport report;
            report.name = name();
            Deviation<T> worst;
            nlohmann::json perSize = nlohmann::json::array();
            std::optional<int> worstSize;
            std::vector<Deviation<T>> deviations(sizes.size());
            base.forEachForward(request, long(sizes.size()), [&](long i) {
                const Model<T> tiled = modelAt(sizes[std::size_t(i)]);
                deviations[std::size_t(i)] =
                    compareMatrices<T>(tiled.forward(base.tokens, Maps::Drop).output, expected);
            });
            for (std::size_t i = 0; i < sizes.size(); ++i) {
                const int b = sizes[i];
                const Deviation<T>& d = deviations[i];
                perSize.push_back({{key, b},
                                   {"ragged", s.n() % b != 0},
                                   {"deviation", scalarJson<T>(d.largest)}});
                if (!worstSize || d.largest > worst.largest) worstSize = b;
                worst.merge(d);
            }
            const std::string what = chunkwise_ ? "chunkwise scan" : "tiled evaluation";
            const std::string difference =
                settleOrderOnly(report, worst, base.depth, "the " + what);
            report.checked = {{std::string(key) + "_sizes", sizes}};
            report.details = {{"per_size", perSize}};
            if (report.verdict == Verdict::Fails) {
                report.witness = {{key, *worstSize}, {"row", worst.row}, {"column", worst.col}};
                report.explanation = "the " + what + " with " + key + " " +
                                     std::to_string(*worstSize) +
                                     " differs from the reference by more than rounding";
            } else {
                report.explanation =
                    "the " + what + " and the reference, for every size: " + difference;
            }
            return report;
        });
    }

private:
    bool chunkwise_;
};

} // namespace

std::unique_ptr<PropertyCheck> makeTilingCheck(bool chunkwise) {
    return std::make_unique<TilingCheck>(chunkwise);
}

} // namespace attnlab
