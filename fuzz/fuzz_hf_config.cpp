// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the config.json reader: any text is refused with an InputError or gives a config whose
// sizes are positive and consistent (heads divisible by key/value heads, rotated dimensions
// even and within a head).
#include "fuzz_support.h"

#include "core/formats/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attnlab;
    const std::string_view input = fuzz::text(data, size);
    HfConfig c;
    try {
        c = parseHfConfig(std::string(input), "config.json");
    } catch (const InputError&) {
        return 0;
    }
    if (c.hiddenSize < 1 || c.layers < 1 || c.heads < 1 || c.kvHeads < 1 || c.headDim < 1 ||
        c.intermediateSize < 1 || c.vocabSize < 1 || !(c.normEps > 0))
        fuzz::finding("a size that is not positive", input);
    if (c.heads % c.kvHeads != 0) fuzz::finding("kv heads do not divide the heads", input);
    if (c.positional == HfPositional::Rope &&
        (c.rotaryDim < 2 || c.rotaryDim % 2 != 0 || c.rotaryDim > c.headDim))
        fuzz::finding("rotated dimensions odd or beyond the head", input);
    return 0;
}
