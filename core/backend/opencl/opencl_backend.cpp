// SPDX-License-Identifier: GPL-3.0-or-later
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
    limits.computeUnits = int(d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
    return limits;
}

struct Kernels {
    cl::Program program;
    cl::Kernel maps, weighted, fused, layer, peak;
};

// One OpenCL device; its context, in-order queue and buffer pool are made when it first
// computes. Uploads are queued without waiting, and one blocking read at the end is the only
// synchronisation of a head or a layer.
class OpenClDevice final : public KernelDevice<OpenClDevice> {
public:
    OpenClDevice(const cl::Platform& platform, const cl::Device& device, int index)
        : KernelDevice(describe(platform, device, index), limitsOf(device)), device_(device) {}

private:
    friend class KernelDevice<OpenClDevice>;

    void runPeak(long items, int steps) const {
        cl::Kernel peak = kernels(false).peak;
        arguments(peak, 0, cl_int(steps),
                  buffer(BufferRole::Peak, std::size_t(items) * sizeof(float)));
        queue_.enqueueNDRangeKernel(peak, cl::NullRange, cl::NDRange(std::size_t(items)));
        queue_.finish();
    }

    // Runs `work` under the device's lock on its queue; an OpenCL error waits for what was
    // queued, frees the pool (no half-written buffer is reused) and becomes a runtime_error
    // naming it.
    template <class Work>
    auto guarded(Work&& work) const -> decltype(work()) {
        std::lock_guard lock(mutex_);
        try {
            if (!queue_()) {
                context_ = cl::Context(device_);
                queue_ = cl::CommandQueue(context_, device_);
            }
            return work();
        } catch (const cl::Error& e) {
            try { // queued uploads may still read the caller's memory, and the pool's buffers
                queue_.finish();
            } catch (const cl::Error&) {
            }
            pool_.clear();
            throw std::runtime_error(std::string("OpenCL error in ") + e.what() + " (" +
                                     std::to_string(e.err()) + ")");
        }
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
        slot = Kernels{program,
                       cl::Kernel(program, "attnlab_maps"),
                       cl::Kernel(program, "attnlab_weighted"),
                       cl::Kernel(program, "attnlab_fused"),
                       cl::Kernel(program, "attnlab_layer"),
                       cl::Kernel(program, "attnlab_peak")};
        return *slot;
    }

    // The pool's buffer for `role`, at least `bytes` long.
    cl::Buffer& buffer(BufferRole role, std::size_t bytes) const {
        return pool_.get(role, bytes, [&](std::size_t size) {
            return cl::Buffer(context_, CL_MEM_READ_WRITE, size);
        });
    }
    // The pool's buffer for `role`, with `values` queued for upload (not waited for).
    template <class T>
    cl::Buffer& upload(BufferRole role, const T* values, std::size_t count) const {
        cl::Buffer& b = buffer(role, count * sizeof(T));
        if (count) queue_.enqueueWriteBuffer(b, CL_FALSE, 0, count * sizeof(T), values);
        return b;
    }
    // `values` resized to `count` and its read from `b` queued; `wait` makes it the blocking one.
    template <class T>
    void download(const cl::Buffer& b, std::vector<T>& values, std::size_t count,
                  bool wait = false) const {
        values.resize(count);
        if (count)
            queue_.enqueueReadBuffer(b, wait, 0, count * sizeof(T), values.data());
        else if (wait)
            queue_.finish();
    }

    // Sets the kernel's arguments from `first` on, in order.
    template <class... Args>
    static void arguments(cl::Kernel& kernel, int first, const Args&... args) {
        int at = first;
        (kernel.setArg(at++, args), ...);
    }
    // The fused kernels' local memory, after argument `first`: qt, kt, vt, acc, sc and the flag.
    template <class T>
    static void localMemory(cl::Kernel& kernel, int first, int tile, int p, int pv, int group) {
        const std::size_t t = std::size_t(tile), g = std::size_t(group);
        for (std::size_t count : {g * std::size_t(p), t * std::size_t(p), t * std::size_t(pv),
                                  g * std::size_t(pv), g * t})
            kernel.setArg(first++, cl::Local(std::max<std::size_t>(count, 1) * sizeof(T)));
        kernel.setArg(first, cl::Local(sizeof(cl_int)));
    }
    int group(cl::Kernel& kernel, int tile, int p, int pv, int scalarBytes) const {
        return fusedGroup(tile, p, pv, scalarBytes, limits(),
                          kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_));
    }

    template <class T>
    KernelOutput<T> run(const KernelHead<T>& h) const {
        const std::size_t n = std::size_t(h.n), pv = std::size_t(h.pv);
        const Kernels& kn = kernels(std::is_same_v<T, double>);
        const cl::Buffer &q = upload(BufferRole::Q, h.q.data(), std::size_t(h.q.size())),
                         &k = upload(BufferRole::K, h.k.data(), std::size_t(h.k.size())),
                         &v = upload(BufferRole::V, h.v.data(), std::size_t(h.v.size())),
                         &bias =
                             upload(BufferRole::Bias, h.bias.data(), std::size_t(h.bias.size())),
                         &code = upload(BufferRole::Code, h.mask.code.data(), h.mask.code.size()),
                         &data = upload(BufferRole::Data, h.mask.data.data(), h.mask.data.size());
        const cl_int codeLength = cl_int(h.mask.code.size()), hasBias = h.hasBias,
                     bidirectional = h.bidirectional;
        const cl::Buffer &result = buffer(BufferRole::Output, n * pv * sizeof(T)),
                         &allowed = buffer(BufferRole::Allowed, n * sizeof(cl_int));
        const cl::Buffer* scores =
            h.keepMaps ? &buffer(BufferRole::Scores, n * n * sizeof(T)) : nullptr;
        const cl::Buffer* weights =
            h.keepMaps ? &buffer(BufferRole::Weights, n * n * sizeof(T)) : nullptr;
        if (h.keepMaps) {
            cl::Kernel maps = kn.maps;
            arguments(maps, 0, q, k, bias, hasBias, code, codeLength, data, cl_int(h.n),
                      cl_int(h.p), cl_int(h.mixer), h.scale, h.decay, bidirectional, *scores,
                      *weights, allowed);
            queue_.enqueueNDRangeKernel(maps, cl::NullRange, cl::NDRange(n));
        }
        if (h.fused) {
            cl::Kernel fused = kn.fused;
            const int g = group(fused, h.tile, h.p, h.pv, sizeof(T));
            arguments(fused, 0, q, k, v, bias, hasBias, code, codeLength, data, cl_int(h.n),
                      cl_int(h.p), cl_int(h.pv), cl_int(h.mixer), h.scale, h.decay, bidirectional,
                      cl_int(h.tile), result, allowed);
            localMemory<T>(fused, 18, h.tile, h.p, h.pv, g);
            const std::size_t global = (n + std::size_t(g) - 1) / std::size_t(g) * std::size_t(g);
            queue_.enqueueNDRangeKernel(fused, cl::NullRange, cl::NDRange(global),
                                        cl::NDRange(std::size_t(g)));
        } else if (pv > 0) {
            cl::Kernel weighted = kn.weighted;
            arguments(weighted, 0, *weights, v, cl_int(h.n), cl_int(h.pv), result);
            queue_.enqueueNDRangeKernel(weighted, cl::NullRange, cl::NDRange(n, pv));
        }
        KernelOutput<T> out;
        if (h.keepMaps) {
            download(*scores, out.scores, n * n);
            download(*weights, out.weights, n * n);
        }
        download(result, out.output, n * pv);
        download(allowed, out.rowAllowed, n, true);
        return out;
    }

    template <class T>
    KernelOutput<T> runLayer(const KernelLayer<T>& l) const {
        pool_.releaseMaps(); // room for the layer, whose launches take half the memory
        const std::size_t rows = std::size_t(l.rows()), width = std::size_t(l.heads * l.pv);
        const Kernels& kn = kernels(std::is_same_v<T, double>);
        const cl::Buffer &q = upload(BufferRole::Q, l.q.data(), std::size_t(l.q.size())),
                         &k = upload(BufferRole::K, l.k.data(), std::size_t(l.k.size())),
                         &v = upload(BufferRole::V, l.v.data(), std::size_t(l.v.size())),
                         &starts = upload(BufferRole::Starts, l.starts.data(), l.starts.size()),
                         &programs =
                             upload(BufferRole::Programs, l.programs.data(), l.programs.size()),
                         &code = upload(BufferRole::Code, l.code.data(), l.code.size()),
                         &data = upload(BufferRole::Data, l.data.data(), l.data.size()),
                         &slopes = upload(BufferRole::Slopes, l.slopes.data(), l.slopes.size());
        const cl::Buffer &result = buffer(BufferRole::Output, rows * width * sizeof(T)),
                         &allowed = buffer(BufferRole::Allowed, rows * sizeof(cl_int));
        cl::Kernel layer = kn.layer;
        const int g = group(layer, l.tile, l.p, l.pv, sizeof(T));
        arguments(layer, 0, q, k, v, starts, programs, code, data, slopes, cl_int(l.biasKind),
                  cl_int(l.heads), cl_int(l.p), cl_int(l.pv), cl_int(l.mixer), l.scale,
                  cl_int(l.tile), result, allowed);
        localMemory<T>(layer, 17, l.tile, l.p, l.pv, g);
        const std::size_t blocks = (std::size_t(l.longest) + std::size_t(g) - 1) / std::size_t(g);
        queue_.enqueueNDRangeKernel(
            layer, cl::NullRange,
            cl::NDRange(blocks * std::size_t(g), std::size_t(l.sequences() * l.heads)),
            cl::NDRange(std::size_t(g), 1));
        KernelOutput<T> out;
        download(result, out.output, rows * width);
        download(allowed, out.rowAllowed, rows, true);
        return out;
    }

    mutable std::mutex mutex_;
    cl::Device device_;
    mutable cl::Context context_;
    mutable cl::CommandQueue queue_;
    mutable std::optional<Kernels> kernels_[2];
    mutable BufferPool<cl::Buffer> pool_;
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
