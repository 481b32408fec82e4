// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the CSV / clipboard table reader: any text is refused with an InputError or gives a
// non-empty matrix.
#include "fuzz_support.h"

#include "core/formats/table_text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attnlab;
    const std::string_view input = fuzz::text(data, size);
    try {
        const Matrix<Rational> m = parseTable(input);
        if (m.rows() < 1 || m.cols() < 1) fuzz::finding("an empty table was accepted", input);
    } catch (const InputError&) {
    }
    return 0;
}
