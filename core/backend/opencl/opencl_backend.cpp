// The OpenCL backend on the Khronos C++ bindings. The kernels only use OpenCL 1.2, so the
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

std::string typeName(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU) return "gpu";
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    if (type & CL_DEVICE_TYPE_CPU) return "cpu";
    return "other";
}

bool hasFp64(const cl::Device& d) {
    return d.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_fp64") != std::string::npos;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\0' || text.back() == ' '))
        text.pop_back();
    return text;
}

DeviceInfo describe(const cl::Platform& platform, const cl::Device& d) {
    DeviceInfo info;
    info.backend = "opencl";
    info.name = trimmed(d.getInfo<CL_DEVICE_NAME>());
    info.type = typeName(d.getInfo<CL_DEVICE_TYPE>());
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

struct Kernels {
    cl::Program program;
    cl::Kernel maps, weighted, fused;
};

class OpenClBackend final : public Backend {
public:
    OpenClBackend() {
        try {
            discover();
        } catch (const cl::Error& e) {
            status_ = std::string("no OpenCL platform or device (") + e.what() + " " +
                      std::to_string(e.err()) + ")";
        }
    }

    using Backend::attend;
    std::string name() const override { return "opencl"; }
    std::vector<DeviceInfo> devices() const override { return infos_; }
    std::string status() const override { return status_; }
    bool accelerates() const override { return computeOn_ && !onCpu_; }
    Support supports(const HeadRequest& request) const override {
        if (!computeOn_) return {false, status_};
        return acceleratorSupport(request, limits_);
    }
    HeadResult<float> attend(const HeadTask<float>& task) const override { return run(task); }
    HeadResult<double> attend(const HeadTask<double>& task) const override { return run(task); }

private:
    void discover() {
        std::vector<cl::Platform> platforms;
        cl::Platform::get(&platforms);
        std::optional<std::pair<cl::Platform, cl::Device>> first, accelerator;
        for (const cl::Platform& platform : platforms) {
            std::vector<cl::Device> found;
            try {
                platform.getDevices(CL_DEVICE_TYPE_ALL, &found);
            } catch (const cl::Error&) {
                continue; // a platform without devices
            }
            for (const cl::Device& d : found) {
                infos_.push_back(describe(platform, d));
                if (!first) first.emplace(platform, d);
                if (!accelerator && !(d.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU))
                    accelerator.emplace(platform, d);
            }
        }
        const auto chosen = accelerator ? accelerator : first;
        if (!chosen) {
            status_ = "no OpenCL device on " + std::to_string(platforms.size()) + " platform(s)";
            return;
        }
        device_ = chosen->second;
        context_ = cl::Context(device_);
        queue_ = cl::CommandQueue(context_, device_);
        onCpu_ = !accelerator;
        limits_.fp64 = hasFp64(device_);
        limits_.globalBytes = device_.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
        limits_.maxAllocBytes = device_.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
        limits_.localBytes = device_.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
        status_ =
            "computes on " + trimmed(device_.getInfo<CL_DEVICE_NAME>()) +
            (onCpu_ ? " (a CPU device: used when asked for, auto prefers the Eigen CPU)" : "");
        computeOn_ = true;
    }

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

    // The largest power-of-two group (at most 64 queries) whose local memory fits.
    template <class T>
    int fusedGroup(const KernelHead<T>& h, const cl::Kernel& kernel) const {
        const auto most = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_);
        for (int group = 64; group > 1; group /= 2)
            if (std::size_t(group) <= most &&
                fusedLocalBytes(h.tile, h.p, h.pv, group, sizeof(T)) <= limits_.localBytes)
                return group;
        return 1;
    }

    template <class T>
    HeadResult<T> run(const HeadTask<T>& task) const {
        const KernelHead<T> h = kernelHead(task);
        const std::size_t n = std::size_t(h.n), pv = std::size_t(h.pv);
        std::lock_guard lock(mutex_);
        try {
            const Kernels& kn = kernels(std::is_same_v<T, double>);
            const cl::Buffer q = input(h.q.data(), std::size_t(h.q.size())),
                             k = input(h.k.data(), std::size_t(h.k.size())),
                             v = input(h.v.data(), std::size_t(h.v.size())),
                             bias = input(h.bias.data(), std::size_t(h.bias.size())),
                             code = input(h.mask.code.data(), h.mask.code.size()),
                             data = input(h.mask.data.data(), h.mask.data.size());
            const cl_int codeLength = cl_int(h.mask.code.size()), hasBias = h.hasBias,
                         bidirectional = task.mixer.bidirectional;
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
                const int group = fusedGroup(h, fused);
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
            return headResult(h, out);
        } catch (const cl::Error& e) {
            throw std::runtime_error(std::string("OpenCL error in ") + e.what() + " (" +
                                     std::to_string(e.err()) + ")");
        }
    }

    mutable std::mutex mutex_;
    std::vector<DeviceInfo> infos_;
    std::string status_;
    bool computeOn_ = false, onCpu_ = true;
    cl::Device device_;
    cl::Context context_;
    cl::CommandQueue queue_;
    DeviceLimits limits_;
    mutable std::optional<Kernels> kernels_[2];
};

} // namespace

std::unique_ptr<Backend> makeOpenClBackend() {
    return std::make_unique<OpenClBackend>();
}

} // namespace attnlab
