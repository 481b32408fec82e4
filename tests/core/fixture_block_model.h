// SPDX-License-Identifier: GPL-3.0-or-later
// A model of real transformer blocks for the tests of Model::forwardFrom and the sweeps that
// use it: norms, biases, grouped-query attention, an MLP, residuals, under a mask of choice.
#pragma once

#include "core/spec/model_spec.h"

namespace attnlab {

/// A pre-norm transformer block as real checkpoints have (layernorm, biases, grouped-query
/// attention with 4 query and 2 key/value heads, a gelu_tanh MLP behind an rmsnorm, residuals),
/// twice, with a final norm: every row-wise part forwardFrom may take from a record.
inline ModelSpec normMlpGqaModel(const MaskSpec& mask) {
    LayerSpec layer;
    layer.wq = MatrixSpec::random(5);
    layer.wk = MatrixSpec::random(6);
    layer.wv = MatrixSpec::random(7);
    layer.heads = 4;
    layer.kvHeads = 2;
    layer.mask = mask;
    layer.bq = MatrixSpec::random(11);
    layer.bk = MatrixSpec::random(12);
    layer.bv = MatrixSpec::random(13);
    layer.wo = MatrixSpec::random(8);
    layer.bo = MatrixSpec::random(14);
    layer.residual = true;
    layer.attentionNorm = NormSpec{};
    layer.mlpNorm = NormSpec{};
    layer.mlpNorm->kind = NormSpec::Kind::RmsNorm;
    MlpSpec mlp;
    mlp.activation = MlpSpec::Activation::GeluTanh;
    mlp.up = MatrixSpec::random(15);
    mlp.down = MatrixSpec::random(16);
    mlp.upBias = MatrixSpec::random(17);
    layer.mlp = mlp;
    ModelSpec spec;
    spec.positional.kind = PositionalSpec::Kind::Rope;
    spec.layers = {layer, layer};
    spec.finalNorm = NormSpec{};
    return spec;
}

} // namespace attnlab
