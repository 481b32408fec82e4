// What a layer states beyond attention.
#include "core/spec/model_spec.h"

namespace attnlab {

bool LayerSpec::hasBlockParts() const {
    return bq || bk || bv || bo || keyValueHeads() != heads || attentionNorm || mlpNorm || mlp ||
           parallelResidual;
}

} // namespace attnlab
