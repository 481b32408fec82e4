// What a model is, as a scenario states it: positional information and a stack of layers
// (properties.md §1.3). Shapes are resolved against the tokens when a Model is built.
#pragma once

#include "core/spec/mask.h"
#include "core/spec/matrix_spec.h"
#include "core/spec/mixer.h"
#include "core/spec/positional.h"

#include <optional>
#include <vector>

namespace attnlab {

struct LayerSpec {
    std::optional<MatrixSpec> ffn; // present: relu(X·W) before the projections
    MatrixSpec wq, wk, wv;         // identity by default
    std::optional<MatrixSpec> wo;  // present: output projection
    int heads = 1;
    MixerSpec mixer;
    MaskSpec mask;
    bool residual = false;

    bool operator==(const LayerSpec&) const = default;
};

struct ModelSpec {
    PositionalSpec positional;
    std::vector<LayerSpec> layers;

    bool operator==(const ModelSpec&) const = default;
};

} // namespace attnlab
