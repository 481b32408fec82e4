// SPDX-License-Identifier: GPL-3.0-or-later
// What a layer states beyond attention; a model evaluated over tiles or chunks.
#include "core/spec/model_spec.h"

namespace attnlab {

bool LayerSpec::hasBlockParts() const {
    return bq || bk || bv || bo || keyValueHeads() != heads || attentionNorm || mlpNorm || mlp ||
           parallelResidual;
}

bool evaluatedInBlocks(const LayerSpec& layer, bool chunkwise) {
    return (layer.mixer.kind == MixerSpec::Kind::Ssm) == chunkwise;
}

ModelSpec evaluatedInBlocks(ModelSpec spec, bool chunkwise, int size) {
    for (LayerSpec& l : spec.layers)
        (chunkwise ? l.mixer.chunk : l.mixer.tile) = evaluatedInBlocks(l, chunkwise) ? size : 0;
    return spec;
}

} // namespace attnlab
