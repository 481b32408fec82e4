// SPDX-License-Identifier: GPL-3.0-or-later
// One decode step against a KV cache (properties.md §1.7): the first c = n − m tokens are
// prefilled (the model run on them alone), then the last m tokens are decoded together, their
// queries reading the keys and values of all n rows at every layer. The square causal mask
// becomes an m x n rectangle whose alignment is a choice: bottom-right (flash-attn ≥ 2.1,
// Hugging Face's KV cache) or top-left (PyTorch's is_causal and tril on a rectangle).
#pragma once

#include "core/model/model.h"
#include "core/spec/mask_conventions.h"

#include <optional>
#include <string>

namespace attnlab {

struct DecodeStep {
    int queries = 1; // m: the last m tokens are decoded, the first n − m are the cache
    CausalAlignment alignment = CausalAlignment::BottomRight;
    /// An m x n mask that replaces the aligned rows in every layer (e.g. read from a .npy).
    std::optional<BoolMatrix> mask;

    bool operator==(const DecodeStep& o) const;
};

/// The m x n mask the decode's queries use in a layer whose square mask (n x n) is `square`:
/// rows n − m..n − 1 of it (bottom-right) or rows 0..m − 1 (top-left).
BoolMatrix alignedRows(const BoolMatrix& square, int queries, CausalAlignment alignment);

/// Throws InputError, naming the field, when the step does not fit n tokens of a model: m
/// outside 1..n, an explicit mask that is not m x n, an ssm layer (a state, not a KV cache).
void checkDecodeStep(const DecodeStep& step, const ModelSpec& spec, int n);

/// The decode step of `model` on `tokens` (n rows): a trace of the decode only, with m x n
/// maps per layer and head (kept when `maps` says so) and m rows of input, layer outputs and
/// output (the tokens n − m..n − 1). Heads run one by one on the model's backend (a device
/// that takes only square heads leaves the rectangular ones to the CPU, with a notice). Throws
/// InputError as checkDecodeStep does.
template <class T>
Trace<T> decode(const Model<T>& model, const Matrix<T>& tokens, const DecodeStep& step,
                Maps maps = Maps::Keep);

} // namespace attnlab
