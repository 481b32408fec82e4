// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the .npy mask reader: any bytes are refused with an InputError or give a non-empty
// mask, which written back as a bool .npy reads back identically and, as numbers, is the 0/1
// matrix of the same cells.
#include "fuzz_support.h"

#include "core/formats/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attnlab;
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    BoolMatrix mask;
    try {
        mask = parseNpyMask(bytes);
    } catch (const InputError&) {
        return 0;
    }
    if (mask.size() == 0) fuzz::finding("an empty mask", bytes);
    const std::string written = npyMaskBytes(mask);
    const BoolMatrix again = parseNpyMask(written);
    if (again.rows() != mask.rows() || again.cols() != mask.cols() || !(again == mask).all())
        fuzz::finding("npyMaskBytes -> parseNpyMask changed the mask", bytes);
    if (parseNpy(written) != mask.cast<double>().matrix())
        fuzz::finding("the bool .npy does not read as the 0/1 matrix", bytes);
    return 0;
}
