// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a Decode transformation's step.
#include "core/explore/decode_transform.h"

#include "core/base/error.h"
#include "core/formats/npy.h"

namespace attnlab {

DecodeStep decodeStepOf(const Transform& t) {
    DecodeStep step;
    step.queries = t.queries;
    step.alignment = t.alignment;
    if (!t.maskFile.empty()) {
        try {
            step.mask = readNpyMask(t.maskFile);
        } catch (const InputError& e) {
            throw InputError("decode.mask", e.what());
        }
    }
    return step;
}

std::vector<BoolMatrix> decodeMasks(const Scenario& scenario, const DecodeStep& step, int limit) {
    std::vector<BoolMatrix> masks;
    for (const LayerSpec& layer : scenario.model.layers)
        masks.push_back(scenario.n() > limit ? BoolMatrix()
                        : step.mask          ? *step.mask
                                    : alignedRows(buildMask(layer.mask, scenario.n()), step.queries,
                                                  step.alignment));
    return masks;
}

} // namespace attnlab
