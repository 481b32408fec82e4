// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-parallel (properties.md §2.12): every layer split across `parts` parts as tensor
// parallelism splits it (Evaluation::parts: the ffn and the Q, K, V projections column-parallel,
// so each part holds its own heads; the output projection row-parallel, the partial products
// added) equals the unsplit model on every sequence of the batch. Splitting the inner dimension
// of A·B and adding the partial products is exact over the rationals, so only the order of the
// sums changes: in floating point the difference is rounding and is reported as such.
#include "core/checks/properties/tensor_parallel/tensor_parallel_check.h"

#include "core/checks/check_support.h"

namespace attnlab {

namespace {

// How each layer splits across `parts` (the report's per-layer details), and in `notes` what is
// unusual: a part boundary inside a head, or nothing to reduce.
nlohmann::json splitLayers(const ModelSpec& model, int parts, std::vector<std::string>& notes) {
    nlohmann::json perLayer = nlohmann::json::array();
    bool reduces = false;
    for (std::size_t l = 0; l < model.layers.size(); ++l) {
        const LayerSpec& layer = model.layers[l];
        const bool wholeHeads = layer.heads % parts == 0;
        reduces = reduces || layer.wo.has_value();
        perLayer.push_back(
            {{"layer", l},
             {"heads", layer.heads},
             {"heads_per_part", wholeHeads ? nlohmann::json(layer.heads / parts) : nullptr},
             {"output", layer.wo ? "row-parallel Wo, partial products added"
                                 : "heads gathered (no output projection)"}});
        if (!wholeHeads && parts > 1)
            notes.push_back("layer " + std::to_string(l) + ": " + std::to_string(parts) +
                            " parts do not divide " + std::to_string(layer.heads) +
                            " head(s), so a part boundary cuts a head's columns");
    }
    if (!reduces)
        notes.push_back("no layer has an output projection, so nothing is reduced: the "
                        "parts' columns are only gathered");
    return perLayer;
}

class TensorParallelCheck : public TypedCheck<TensorParallelCheck> {
public:
    std::string name() const override { return "tensor-parallel"; }
    std::vector<CheckParameter> parameters() const override {
        return {{"parts", CheckParameter::Type::Integer, "2", ""}};
    }
    std::string note() const override {
        return "heads and projection columns split across parts, Wo's partial products added";
    }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const int parts = int(integerParam(request, "parts", 2, 1, 64));
        const Scenario& s = request.scenario;
        const BatchSetup<T> batch(s, request.seed);
        const auto shared = scenarioModel<T>(request); // shared with the other checks
        const Model<T>& model = *shared;
        Evaluation split;
        split.parts = parts;
        const std::vector<Matrix<T>> whole = batch.outputs(model);
        pollCancel(request);
        const std::vector<Matrix<T>> parallel = batch.outputs(model, split);
        const ListDeviation<T> d = compareLists(parallel, whole);

        ReportBuilder report(name());
        const std::string difference = report.settleOrderOnly(d.deviation, batch.depth,
                                                              "adding Wo's partial products of " +
                                                                  std::to_string(parts) + " parts");
        std::vector<std::string> notes;
        const nlohmann::json perLayer = splitLayers(s.model, parts, notes);
        report.checked(batch.checked).checked("parts", parts).details({{"per_layer", perLayer}});
        const std::string why = notes.empty() ? "" : "; " + joinedCauses(notes);
        if (report.fails())
            report
                .witness(listWitness(d, parallel, whole, "example", "split", "unsplit")
                             .with("parts", parts))
                .explain("the model split across " + std::to_string(parts) + " parts is " +
                         difference + " from the unsplit one" + why);
        else
            report.explain("split across " + std::to_string(parts) +
                           " parts and unsplit: " + difference +
                           ". Splitting an inner dimension and adding the partial products is "
                           "exact in exact arithmetic, so this always holds" +
                           why);
        return std::move(report).build();
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeTensorParallelCheck() {
    return std::make_unique<TensorParallelCheck>();
}

} // namespace attnlab
