// The OpenCL backend on the Khronos C++ bindings: every device of every platform, each
// computing on its own context and queue. The kernels only use OpenCL 1.2, so the
// bindings target 1.2: that runs on PoCL (CI), NVIDIA, AMD and Intel alike.
#define CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_TARGET_OPENCL_VERSION 120
#include <CL/opencl.hpp>

#include "core/backend/opencl/opencl_backend.h"

#include "core/backend/accelerator.h"
#include "core/backend/opencl/opencl_source.h"

#include <mutex>
#include <optional>
#include <stdexcept>

namespace attnlab {

namespace {

DeviceKind kindOf(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU) return DeviceKind::Gpu;
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return DeviceKind::Accelerator;
    if (type & CL_DEVICE_TYPE_CPU) return DeviceKind::Cpu;
    return DeviceKind::Other;
}

bool hasFp64(const cl::Device& d) {
    return d.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_fp64") != std::string::npos;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\0' || text.back() == ' '))
        text.pop_back();
    return text;
}

DeviceInfo describe(const cl::Platform& platform, const cl::Device& d, int index) {
    DeviceInfo info;
    info.backend = "opencl";
    info.index = index;
    info.name = trimmed(d.getInfo<CL_DEVICE_NAME>());
    info.kind = kindOf(d.getInfo<CL_DEVICE_TYPE>());
    info.memoryBytes = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
    info.features = {
        "platform=" + trimmed(platform.getInfo<CL_PLATFORM_NAME>()),
        trimmed(d.getInfo<CL_DEVICE_VERSION>()),
        "compute_units=" + std::to_string(d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>()),
        "local_memory=" + std::to_string(d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>() / 1024) + "KiB",
        "float32"};
    if (hasFp64(d)) info.features.push_back("float64");
    info.features.insert(info.features.end(), {"softmax", "softmax_like", "raw", "ssm",
                                               "masks in-kernel", "fused tiled online softmax"});
    return info;
}

DeviceLimits limitsOf(const cl::Device& d) {
    DeviceLimits limits;
    limits.fp64 = hasFp64(d);
    limits.globalBytes = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
    limits.maxAllocBytes = d.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    limits.localBytes = d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    return limits;
}

struct Kernels {
    cl::Program program;
    cl::Kernel maps, weighted, fused;
};

// One OpenCL device; its context and queue are made when it first computes.
class OpenClDevice final : public AcceleratorDevice {
public:
    OpenClDevice(const cl::Platform& platform, const cl::Device& device, int index)
        : AcceleratorDevice(describe(platform, device, index), limitsOf(device)), device_(device) {}

protected:
    KernelOutput<float> compute(const KernelHead<float>& head) const override { return run(head); }
    KernelOutput<double> compute(const KernelHead<double>& head) const override {
        return run(head);
    }

private:
    // The kernels for float (fp64 false) or double, compiled on first use.
    const Kernels& kernels(bool fp64) const {
        std::optional<Kernels>& slot = kernels_[fp64 ? 1 : 0];
        if (slot) return *slot;
        cl::Program program(context_, std::string(openClKernelSource()));
        try {
            program.build({device_}, fp64 ? "-cl-std=CL1.2 -DATTNLAB_FP64" : "-cl-std=CL1.2");
        } catch (const cl::Error&) {
            throw std::runtime_error("OpenCL kernel build failed: " +
                                     program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_));
        }
        slot =
            Kernels{program, cl::Kernel(program, "attnlab_maps"),
                    cl::Kernel(program, "attnlab_weighted"), cl::Kernel(program, "attnlab_fused")};
        return *slot;
    }

    template <class T>
    cl::Buffer input(const T* values, std::size_t count) const {
        const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(T);
        if (count == 0) return cl::Buffer(context_, CL_MEM_READ_ONLY, bytes);
        return cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                          const_cast<T*>(values));
    }

    template <class T>
    cl::Buffer output(std::vector<T>& values, std::size_t count) const {
        values.resize(count);
        return cl::Buffer(context_, CL_MEM_WRITE_ONLY, std::max<std::size_t>(count, 1) * sizeof(T));
    }

    template <class T>
    KernelOutput<T> run(const KernelHead<T>& h) const {
        const std::size_t n = std::size_t(h.n), pv = std::size_t(h.pv);
        std::lock_guard lock(mutex_);
        try {
            if (!queue_()) {
                context_ = cl::Context(device_);
                queue_ = cl::CommandQueue(context_, device_);
            }
            const Kernels& kn = kernels(std::is_same_v<T, double>);
            const cl::Buffer q = input(h.q.data(), std::size_t(h.q.size())),
                             k = input(h.k.data(), std::size_t(h.k.size())),
                             v = input(h.v.data(), std::size_t(h.v.size())),
                             bias = input(h.bias.data(), std::size_t(h.bias.size())),
                             code = input(h.mask.code.data(), h.mask.code.size()),
                             data = input(h.mask.data.data(), h.mask.data.size());
            const cl_int codeLength = cl_int(h.mask.code.size()), hasBias = h.hasBias,
                         bidirectional = h.bidirectional;
            KernelOutput<T> out;
            const cl::Buffer result = output(out.output, n * pv),
                             allowed = output(out.rowAllowed, n);
            cl::Buffer scores, weights;
            if (h.keepMaps) {
                scores = output(out.scores, n * n);
                weights = output(out.weights, n * n);
                cl::Kernel maps = kn.maps;
                int a = 0;
                for (const cl::Buffer* b : {&q, &k, &bias})
                    maps.setArg(a++, *b);
                maps.setArg(a++, hasBias);
                maps.setArg(a++, code);
                maps.setArg(a++, codeLength);
                maps.setArg(a++, data);
                for (cl_int i : {h.n, h.p, h.mixer})
                    maps.setArg(a++, i);
                maps.setArg(a++, h.scale);
                maps.setArg(a++, h.decay);
                maps.setArg(a++, bidirectional);
                maps.setArg(a++, scores);
                maps.setArg(a++, weights);
                maps.setArg(a++, allowed);
                queue_.enqueueNDRangeKernel(maps, cl::NullRange, cl::NDRange(n));
            }
            if (h.fused) {
                cl::Kernel fused = kn.fused;
                const int group = fusedGroup(
                    h, limits(), fused.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_));
                int a = 0;
                for (const cl::Buffer* b : {&q, &k, &v, &bias})
                    fused.setArg(a++, *b);
                fused.setArg(a++, hasBias);
                fused.setArg(a++, code);
                fused.setArg(a++, codeLength);
                fused.setArg(a++, data);
                for (cl_int i : {h.n, h.p, h.pv, h.mixer})
                    fused.setArg(a++, i);
                fused.setArg(a++, h.scale);
                fused.setArg(a++, h.decay);
                fused.setArg(a++, bidirectional);
                fused.setArg(a++, cl_int(h.tile));
                fused.setArg(a++, result);
                fused.setArg(a++, allowed);
                const std::size_t tile = std::size_t(h.tile), g = std::size_t(group);
                for (std::size_t bytes : {tile * std::size_t(h.p), tile * pv, g * pv, g * tile})
                    fused.setArg(a++, cl::Local(std::max<std::size_t>(bytes, 1) * sizeof(T)));
                fused.setArg(a++, cl::Local(sizeof(cl_int)));
                const std::size_t global = (n + g - 1) / g * g;
                queue_.enqueueNDRangeKernel(fused, cl::NullRange, cl::NDRange(global),
                                            cl::NDRange(g));
            } else {
                cl::Kernel weighted = kn.weighted;
                weighted.setArg(0, weights);
                weighted.setArg(1, v);
                weighted.setArg(2, cl_int(h.n));
                weighted.setArg(3, cl_int(h.pv));
                weighted.setArg(4, result);
                if (pv > 0)
                    queue_.enqueueNDRangeKernel(weighted, cl::NullRange, cl::NDRange(n, pv));
            }
            auto read = [&](const cl::Buffer& b, auto& values) {
                if (!values.empty())
                    queue_.enqueueReadBuffer(b, CL_TRUE, 0, values.size() * sizeof(values.front()),
                                             values.data());
            };
            read(result, out.output);
            read(allowed, out.rowAllowed);
            if (h.keepMaps) {
                read(scores, out.scores);
                read(weights, out.weights);
            }
            return out;
        } catch (const cl::Error& e) {
            throw std::runtime_error(std::string("OpenCL error in ") + e.what() + " (" +
                                     std::to_string(e.err()) + ")");
        }
    }

    mutable std::mutex mutex_;
    cl::Device device_;
    mutable cl::Context context_;
    mutable cl::CommandQueue queue_;
    mutable std::optional<Kernels> kernels_[2];
};

class OpenClBackend final : public Backend {
public:
    OpenClBackend() {
        try {
            discover();
        } catch (const cl::Error& e) {
            devices_.clear();
            default_ = nullptr;
            status_ = std::string("no OpenCL platform or device (") + e.what() + " " +
                      std::to_string(e.err()) + ")";
        }
    }

    std::string name() const override { return "opencl"; }
    const std::vector<std::unique_ptr<Device>>& devices() const override { return devices_; }
    std::string status() const override { return status_; }
    bool accelerates() const override {
        return default_ && default_->info().kind != DeviceKind::Cpu;
    }
    const Device* defaultDevice() const override { return default_; }

private:
    // Lists every device of every platform; the default is the first GPU or accelerator, else
    // the first device.
    void discover() {
        std::vector<cl::Platform> platforms;
        cl::Platform::get(&platforms);
        const Device* accelerator = nullptr;
        for (const cl::Platform& platform : platforms) {
            std::vector<cl::Device> found;
            try {
                platform.getDevices(CL_DEVICE_TYPE_ALL, &found);
            } catch (const cl::Error&) {
                continue; // a platform without devices
            }
            for (const cl::Device& d : found) {
                devices_.push_back(
                    std::make_unique<OpenClDevice>(platform, d, int(devices_.size())));
                if (!accelerator && !(d.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU))
                    accelerator = devices_.back().get();
            }
        }
        default_ = accelerator ? accelerator : device(0);
        if (!default_) {
            status_ = "no OpenCL device on " + std::to_string(platforms.size()) + " platform(s)";
            return;
        }
        status_ =
            "computes on " + default_->info().name +
            (accelerator ? "" : " (a CPU device: used when asked for, auto prefers the Eigen CPU)");
    }

    std::vector<std::unique_ptr<Device>> devices_;
    const Device* default_ = nullptr;
    std::string status_;
};

} // namespace

std::unique_ptr<Backend> makeOpenClBackend() {
    return std::make_unique<OpenClBackend>();
}

} // namespace attnlab
