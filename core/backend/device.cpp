// SPDX-License-Identifier: GPL-3.0-or-later
// What every device shares: its kind's name, its selector, and the defaults of what only the
// CPU device computes.
#include "core/backend/device.h"

#include "core/base/enum_names.h"

#include <stdexcept>

namespace attnlab {

namespace {
constexpr EnumName<DeviceKind> kDeviceKindNames[] = {{DeviceKind::Cpu, "cpu"},
                                                     {DeviceKind::Gpu, "gpu"},
                                                     {DeviceKind::Accelerator, "accelerator"},
                                                     {DeviceKind::Other, "other"}};
} // namespace

std::string deviceKindName(DeviceKind kind) {
    return std::string(nameOf<DeviceKind>(kDeviceKindNames, kind));
}

std::string DeviceInfo::selector() const {
    return backend + ":" + std::to_string(index);
}

HeadResult<Rational> Device::attend(const HeadTask<Rational>&) const {
    throw std::runtime_error(info_.backend + ": exact arithmetic runs on the CPU only");
}

bool Device::attendsLayer(const LayerSpec&, Precision) const {
    return false;
}

namespace {
[[noreturn]] void noWholeLayers(const DeviceInfo& info) {
    throw std::logic_error(info.selector() + " computes this layer head by head, not whole");
}
} // namespace

LayerResult<float> Device::attendLayer(const LayerTask<float>&) const {
    noWholeLayers(info_);
}

LayerResult<double> Device::attendLayer(const LayerTask<double>&) const {
    noWholeLayers(info_);
}

LayerResult<Rational> Device::attendLayer(const LayerTask<Rational>&) const {
    noWholeLayers(info_);
}

} // namespace attnlab
