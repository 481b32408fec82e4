// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the safetensors reader: any bytes are refused with an InputError or give a file whose
// every tensor reads, as double and as float, to its stated shape of finite numbers or is
// refused with an InputError.
#include "fuzz_support.h"

#include "core/formats/safetensors.h"

namespace {

template <class Read>
void checkRead(const attnlab::SafetensorsTensor& t, Read read, std::string_view input) {
    try {
        const auto m = read();
        if (m.rows() != t.rows || m.cols() != t.cols || !m.allFinite())
            attnlab::fuzz::finding("a tensor read to the wrong shape or non-finite numbers", input);
    } catch (const attnlab::InputError&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attnlab;
    const std::string_view input = fuzz::text(data, size);
    try {
        const SafetensorsFile file = SafetensorsFile::fromBytes(std::string(input), "fuzz");
        for (const std::string& name : file.names()) {
            const SafetensorsTensor& t = file.tensor(name);
            checkRead(
                t, [&] { return file.readDouble(name); }, input);
            checkRead(
                t, [&] { return file.readFloat(name); }, input);
        }
    } catch (const InputError&) {
    }
    return 0;
}
