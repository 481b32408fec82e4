// The backends compiled in, and per-head dispatch with fallback to the CPU.
#include "core/backend/registry.h"

#include "core/backend/cpu/cpu_backend.h"
#include "core/base/error.h"

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
    for (const auto& b : backends())
        if (b->name() == name) return b.get();
    return nullptr;
}

std::vector<DeviceInfo> listDevices() {
    std::vector<DeviceInfo> all;
    for (const auto& b : backends())
        for (DeviceInfo& d : b->devices())
            all.push_back(std::move(d));
    return all;
}

void requireCompiledIn(BackendChoice choice) {
    if (choice == BackendChoice::Auto) return;
    const std::string name = backendChoiceName(choice);
    if (!findBackend(name))
        throw InputError("backend " + name +
                         ": not built into this version (see attnlab-cli devices)");
}

namespace {

const Backend& cpu() {
    return *backends().back();
}

// Why `b` cannot take `request`, or "" when it can.
std::string refusal(const Backend& b, const HeadRequest& request) {
    if (b.devices().empty()) return b.name() + " has no device (" + b.status() + ")";
    const Support s = b.supports(request);
    return s.ok ? std::string() : b.name() + " does not support this request: " + s.why;
}

} // namespace

BackendPick pickBackend(BackendChoice choice, const HeadRequest& request) {
    if (choice == BackendChoice::Cpu) return {&cpu(), {}};
    if (choice != BackendChoice::Auto) {
        const std::string name = backendChoiceName(choice);
        const Backend* b = findBackend(name);
        if (!b) return {&cpu(), "backend " + name + " is not built in; computed on cpu"};
        const std::string why = refusal(*b, request);
        return why.empty() ? BackendPick{b, {}} : BackendPick{&cpu(), why + "; computed on cpu"};
    }
    std::string notice; // auto: the first accelerator that takes the request
    for (const auto& b : backends()) {
        if (!b->accelerates() || b->devices().empty()) continue;
        const std::string why = refusal(*b, request);
        if (why.empty()) return {b.get(), {}};
        if (notice.empty()) notice = why + "; computed on cpu";
    }
    return {&cpu(), notice};
}

bool computesOnCpu(BackendChoice choice) {
    if (choice == BackendChoice::Cpu) return true;
    if (choice != BackendChoice::Auto) return false;
    static const bool noAccelerator = [] {
        for (const auto& b : backends())
            if (b->accelerates() && !b->devices().empty()) return false;
        return true;
    }();
    return noAccelerator;
}

template <class T>
HeadRun<T> attendOn(BackendChoice choice, const HeadTask<T>& task) {
    BackendPick pick = pickBackend(choice, headRequest(task));
    if (pick.backend != &cpu()) {
        try {
            failIfSimulated(pick.backend->name());
            return {pick.backend->attend(task), pick.backend->name(), {}};
        } catch (const std::exception& e) {
            pick.notice = pick.backend->name() + " failed (" + e.what() + "); computed on cpu";
        }
    }
    return {cpu().attend(task), cpu().name(), pick.notice};
}

template HeadRun<float> attendOn<float>(BackendChoice, const HeadTask<float>&);
template HeadRun<double> attendOn<double>(BackendChoice, const HeadTask<double>&);
template HeadRun<Rational> attendOn<Rational>(BackendChoice, const HeadTask<Rational>&);

} // namespace attnlab
