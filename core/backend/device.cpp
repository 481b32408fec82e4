// What every device shares: its kind's name, its selector, and the defaults of what only the
// CPU device computes.
#include "core/backend/device.h"

#include <stdexcept>

namespace attnlab {

std::string deviceKindName(DeviceKind kind) {
    switch (kind) {
    case DeviceKind::Cpu:
        return "cpu";
    case DeviceKind::Gpu:
        return "gpu";
    case DeviceKind::Accelerator:
        return "accelerator";
    case DeviceKind::Other:
        return "other";
    }
    return "?";
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
