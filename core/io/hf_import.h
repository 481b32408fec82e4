// SPDX-License-Identifier: GPL-3.0-or-later
// A Hugging Face checkpoint as an AttnLab model: config.json and the safetensors tensors (read
// lazily through core/formats/checkpoint.h) become a ModelSpec whose weights refer to the
// checkpoint, with each architecture's conventions translated (fused QKV re-sliced, sliding_window
// W as a causal window of radius W - 1, RoPE pairs as `rotate_half` pairs them, BLOOM's ALiBi), and
// text becomes tokens through the checkpoint's tokenizer.json.
#pragma once

#include "core/model/scenario.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

/// The model of checkpoint directory `directory`, layers [firstLayer, endLayer) (endLayer -1:
/// to the last) fed with the embedded tokens. Throws InputError naming the directory and the
/// problem: no config.json, an unsupported architecture (listing the supported ones), a
/// missing or misshapen tensor, a layer range outside the model.
ModelSpec importCheckpoint(const std::filesystem::path& directory, int firstLayer = 0,
                           int endLayer = -1);

/// Token ids of `checkpoint`'s vocabulary as tokens (labelled by its tokenizer when it has one);
/// throws InputError for an id outside the vocabulary.
TokenSpec checkpointTokens(const CheckpointRef& checkpoint, std::vector<long long> ids);
/// `text` tokenised exactly as the checkpoint's tokenizer.json does it; throws InputError when
/// the checkpoint has no tokenizer or the text is empty after tokenisation.
TokenSpec checkpointText(const CheckpointRef& checkpoint, const std::string& text);

/// "A:B" (layers A to B - 1), "A:" (A to the last) or ":B" as {A, B}, B = -1 for the last;
/// throws InputError naming the text otherwise.
std::pair<int, int> parseLayerRange(const std::string& text);

/// What `attnlab-cli import` and File → Open model ask for.
struct ImportRequest {
    std::filesystem::path directory;
    std::optional<std::string> text; // else `ids`
    std::vector<long long> ids;
    int firstLayer = 0, endLayer = -1;
    Precision precision = Precision::Float32;
};

/// A scenario of the checkpoint's model on the request's tokens, named after the checkpoint,
/// with the checks that apply to it listed.
Scenario importScenario(const ImportRequest& request);

} // namespace attnlab
