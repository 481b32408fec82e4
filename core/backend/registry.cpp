// SPDX-License-Identifier: GPL-3.0-or-later
// The backends compiled in, the choice of a device, and the dispatch of layers and heads with
// fallback to the CPU.
#include "core/backend/registry.h"

#include "core/backend/cpu/cpu_backend.h"
#include "core/base/error.h"
#include "core/base/find_by_name.h"

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#ifdef ATTNLAB_HAVE_OPENCL
#include "core/backend/opencl/opencl_backend.h"
#endif
#ifdef ATTNLAB_HAVE_CUDA
#include "core/backend/cuda/cuda_backend.h"
#endif

namespace attnlab {

namespace {

struct SimulatedFailure {
    std::mutex lock;
    std::string backend;
    int after = -1;
    int heads = 0;
};

SimulatedFailure& simulated() {
    static SimulatedFailure f;
    static const bool fromEnvironment = [] {
        if (const char* env = std::getenv("ATTNLAB_SIMULATE_DEVICE_FAILURE")) {
            const std::string text = env;
            const auto colon = text.find(':');
            f.backend = text.substr(0, colon);
            f.after = colon == std::string::npos ? 0 : std::atoi(text.c_str() + colon + 1);
        }
        return true;
    }();
    (void)fromEnvironment;
    return f;
}

void failIfSimulated(const std::string& backend) {
    SimulatedFailure& f = simulated();
    const std::lock_guard guard(f.lock);
    if (f.after < 0 || f.backend != backend) return;
    if (f.heads++ >= f.after) throw std::runtime_error("simulated device failure");
}

} // namespace

void simulateDeviceFailure(const std::string& backend, int after) {
    SimulatedFailure& f = simulated();
    const std::lock_guard guard(f.lock);
    f.backend = backend;
    f.after = after;
    f.heads = 0;
}

const std::vector<std::unique_ptr<Backend>>& backends() {
    static const std::vector<std::unique_ptr<Backend>> list = [] {
        std::vector<std::unique_ptr<Backend>> b;
#ifdef ATTNLAB_HAVE_CUDA
        b.push_back(makeCudaBackend());
#endif
#ifdef ATTNLAB_HAVE_OPENCL
        b.push_back(makeOpenClBackend());
#endif
        b.push_back(makeCpuBackend());
        return b;
    }();
    return list;
}

const Backend* findBackend(const std::string& name) {
    return findByName(backends(), name);
}

void requireSelectable(BackendChoice choice) {
    if (choice.kind == BackendKind::Auto) return;
    const std::string name = backendKindName(choice.kind);
    const Backend* b = findBackend(name);
    if (!b)
        throw InputError("backend " + name +
                         ": not built into this version (see attnlab-cli devices)");
    if (choice.device >= 0 && !b->device(choice.device))
        throw InputError("backend " + backendChoiceName(choice) + ": no such device, " + name +
                         " has " + std::to_string(b->devices().size()) +
                         " device(s) (see attnlab-cli devices)");
}

namespace {

const Device& cpu() {
    return *backends().back()->defaultDevice();
}

// Why `device` of `b` (nullptr: `b` has no device by the index asked for) cannot take
// `request`, or "" when it can.
std::string refusal(const Backend& b, const Device* device, const HeadRequest& request) {
    if (b.devices().empty()) return b.name() + " has no device (" + b.status() + ")";
    if (!device)
        return b.name() + " has no device by that index (" + std::to_string(b.devices().size()) +
               " device(s))";
    const Support s = device->supports(request);
    return s.ok ? std::string() : b.name() + " does not support this request: " + s.why;
}

} // namespace

DevicePick pickDevice(BackendChoice choice, const HeadRequest& request) {
    if (choice.kind == BackendKind::Cpu) return {&cpu(), {}};
    if (choice.kind != BackendKind::Auto) {
        const std::string name = backendKindName(choice.kind);
        const Backend* b = findBackend(name);
        if (!b) return {&cpu(), "backend " + name + " is not built in; computed on cpu"};
        const Device* device = choice.device < 0 ? b->defaultDevice() : b->device(choice.device);
        const std::string why = refusal(*b, device, request);
        return why.empty() ? DevicePick{device, {}} : DevicePick{&cpu(), why + "; computed on cpu"};
    }
    std::string notice; // auto: the first accelerator that takes the request
    for (const auto& b : backends()) {
        if (!b->accelerates() || !b->defaultDevice()) continue;
        const std::string why = refusal(*b, b->defaultDevice(), request);
        if (why.empty()) return {b->defaultDevice(), {}};
        if (notice.empty()) notice = why + "; computed on cpu";
    }
    return {&cpu(), notice};
}

bool computesOnCpu(BackendChoice choice) {
    if (choice.kind == BackendKind::Cpu) return true;
    if (choice.kind != BackendKind::Auto) return false;
    static const bool noAccelerator = [] {
        for (const auto& b : backends())
            if (b->accelerates() && b->defaultDevice()) return false;
        return true;
    }();
    return noAccelerator;
}

namespace {
// The device `choice` names: auto's first accelerating device, a chosen backend's device by its
// index (its default without one); nullptr when there is none or the backend is not built.
const Device* chosenDevice(BackendChoice choice) {
    if (choice.kind == BackendKind::Auto) {
        for (const auto& b : backends())
            if (b->accelerates()) return b->defaultDevice();
        return nullptr;
    }
    const Backend* b = findBackend(backendKindName(choice.kind));
    if (!b) return nullptr;
    return choice.device < 0 ? b->defaultDevice() : b->device(choice.device);
}
} // namespace

bool computesOnDevice(BackendChoice choice, Precision precision) {
    if (computesOnCpu(choice)) return false;
    const Device* device = chosenDevice(choice);
    HeadRequest smallest; // what the device takes in this precision at all
    smallest.precision = precision;
    smallest.n = smallest.p = smallest.pv = 1;
    smallest.keepMaps = false;
    return device && device->supports(smallest).ok;
}

LayerPick layerDevice(BackendChoice choice, const LayerSpec& layer, Precision precision) {
    const Device* onCpu = cpu().attendsLayer(layer, precision) ? &cpu() : nullptr;
    if (computesOnCpu(choice)) return {onCpu, {}};
    const Device* device = chosenDevice(choice);
    if (!device && choice.kind != BackendKind::Auto) {
        const std::string name = backendKindName(choice.kind);
        const Backend* b = findBackend(name);
        return {onCpu, b ? b->name() + " has no device (" + b->status() + "); computed on cpu"
                         : "backend " + name + " is not built in; computed on cpu"};
    }
    return {device && device->attendsLayer(layer, precision) ? device : nullptr, {}};
}

template <class T>
LayerRun<T> attendLayerOn(const Device& device, const LayerTask<T>& task) {
    std::string notice;
    if (&device != &cpu()) {
        const std::string& backend = device.info().backend;
        try {
            failIfSimulated(backend);
            return {device.attendLayer(task), backend, {}};
        } catch (const InputError&) {
            throw;
        } catch (const std::exception& e) {
            notice = backend + " failed (" + e.what() + "); computed on cpu";
        }
    }
    return {cpu().attendLayer(task), cpu().info().backend, notice};
}

template <class T>
HeadRun<T> attendOn(BackendChoice choice, const HeadTask<T>& task) {
    if (task.unmasked) return {cpu().attend(task), cpu().info().backend, {}};
    if (task.q.rows() != task.k.rows() && !computesOnCpu(choice)) // devices take square heads
        return {cpu().attend(task), cpu().info().backend,
                "a rectangular head (" + std::to_string(task.q.rows()) + " queries x " +
                    std::to_string(task.k.rows()) + " keys) is computed on cpu"};
    DevicePick pick = pickDevice(choice, headRequest(task));
    if (pick.device != &cpu()) {
        const std::string& backend = pick.device->info().backend;
        try {
            failIfSimulated(backend);
            return {pick.device->attend(task), backend, {}};
        } catch (const std::exception& e) {
            pick.notice = backend + " failed (" + e.what() + "); computed on cpu";
        }
    }
    return {cpu().attend(task), cpu().info().backend, pick.notice};
}

template LayerRun<float> attendLayerOn<float>(const Device&, const LayerTask<float>&);
template LayerRun<double> attendLayerOn<double>(const Device&, const LayerTask<double>&);
template LayerRun<Rational> attendLayerOn<Rational>(const Device&, const LayerTask<Rational>&);
template HeadRun<float> attendOn<float>(BackendChoice, const HeadTask<float>&);
template HeadRun<double> attendOn<double>(BackendChoice, const HeadTask<double>&);
template HeadRun<Rational> attendOn<Rational>(BackendChoice, const HeadTask<Rational>&);

} // namespace attnlab
