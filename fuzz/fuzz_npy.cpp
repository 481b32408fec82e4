// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the .npy importer: any bytes are refused with an InputError or give a non-empty matrix
// of finite numbers, which written back as .npy reads back identically.
#include "fuzz_support.h"

#include "core/formats/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attnlab;
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    Eigen::MatrixXd m;
    try {
        m = parseNpy(bytes);
    } catch (const InputError&) {
        return 0;
    }
    if (m.size() == 0 || !m.allFinite()) fuzz::finding("an empty or non-finite array", bytes);
    if (parseNpy(npyBytes(m)) != m) fuzz::finding("npyBytes -> parseNpy changed the array", bytes);
    return 0;
}
