// The CUDA backend's host side: device discovery through the runtime API, one CudaDevice per
// GPU, device memory, and the launch of the kernels of attention.cu.
#include "core/backend/cuda/cuda_backend.h"

#include "core/backend/accelerator.h"
#include "core/backend/cuda/cuda_kernels.h"

#include <cuda_runtime_api.h>

#include <mutex>
#include <stdexcept>

namespace attnlab {

namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(status));
}

// Device memory for `count` values of T, freed on destruction.
template <class T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        check(cudaMalloc(reinterpret_cast<void**>(&data_),
                         std::max<std::size_t>(count, 1) * sizeof(T)),
              "cudaMalloc");
    }
    DeviceBuffer(const T* values, std::size_t count) : DeviceBuffer(count) {
        if (count)
            check(cudaMemcpy(data_, values, count * sizeof(T), cudaMemcpyHostToDevice),
                  "copy to device");
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() { cudaFree(data_); }
    T* get() const { return data_; }
    std::vector<T> read() const {
        std::vector<T> values(count_);
        if (count_)
            check(cudaMemcpy(values.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost),
                  "copy to host");
        return values;
    }

private:
    T* data_ = nullptr;
    std::size_t count_;
};

DeviceInfo describe(const cudaDeviceProp& prop, int index) {
    DeviceInfo info;
    info.backend = "cuda";
    info.index = index;
    info.name = prop.name;
    info.kind = DeviceKind::Gpu;
    info.memoryBytes = prop.totalGlobalMem;
    info.features = {"sm_" + std::to_string(prop.major) + std::to_string(prop.minor),
                     "multiprocessors=" + std::to_string(prop.multiProcessorCount),
                     "shared_memory=" + std::to_string(prop.sharedMemPerBlockOptin / 1024) + "KiB",
                     "float32",
                     "float64",
                     "softmax",
                     "softmax_like",
                     "raw",
                     "ssm",
                     "masks in-kernel",
                     "flash kernel (online softmax, masked tiles skipped)"};
    return info;
}

DeviceLimits limitsOf(const cudaDeviceProp& prop) {
    DeviceLimits limits;
    limits.fp64 = true;
    limits.globalBytes = prop.totalGlobalMem;
    limits.maxAllocBytes = prop.totalGlobalMem;
    limits.localBytes = prop.sharedMemPerBlockOptin;
    return limits;
}

// One GPU of the CUDA runtime, made current (cudaSetDevice) for each head it computes.
class CudaDevice final : public AcceleratorDevice {
public:
    CudaDevice(const cudaDeviceProp& prop, int index, int ordinal)
        : AcceleratorDevice(describe(prop, index), limitsOf(prop)), ordinal_(ordinal) {}

protected:
    KernelOutput<float> compute(const KernelHead<float>& head) const override { return run(head); }
    KernelOutput<double> compute(const KernelHead<double>& head) const override {
        return run(head);
    }

private:
    template <class T>
    KernelOutput<T> run(const KernelHead<T>& h) const {
        const std::size_t n = std::size_t(h.n), pv = std::size_t(h.pv);
        std::lock_guard lock(mutex_);
        check(cudaSetDevice(ordinal_), "cudaSetDevice");
        const DeviceBuffer<T> q(h.q.data(), std::size_t(h.q.size())),
            k(h.k.data(), std::size_t(h.k.size())), v(h.v.data(), std::size_t(h.v.size())),
            bias(h.bias.data(), std::size_t(h.bias.size()));
        const DeviceBuffer<int> code(h.mask.code.data(), h.mask.code.size()),
            data(h.mask.data.data(), h.mask.data.size());
        const DeviceBuffer<T> output(n * pv), scores(h.keepMaps ? n * n : 0),
            weights(h.keepMaps ? n * n : 0);
        const DeviceBuffer<int> allowed(n);
        cuda::DeviceHead<T> d;
        d.q = q.get();
        d.k = k.get();
        d.v = v.get();
        d.bias = bias.get();
        d.code = code.get();
        d.data = data.get();
        d.codeLength = int(h.mask.code.size());
        d.n = h.n;
        d.p = h.p;
        d.pv = h.pv;
        d.mixer = h.mixer;
        d.hasBias = h.hasBias;
        d.bidirectional = h.bidirectional;
        d.tile = h.tile;
        d.scale = h.scale;
        d.decay = h.decay;
        d.scores = scores.get();
        d.weights = weights.get();
        d.output = output.get();
        d.rowAllowed = allowed.get();
        if (h.keepMaps) cuda::launchMaps(d);
        if (h.fused) {
            const int group = fusedGroup(h, limits(), kMostThreads);
            cuda::launchFused(d, group, fusedLocalBytes(h.tile, h.p, h.pv, group, sizeof(T)));
        } else {
            cuda::launchWeighted(d);
        }
        check(cudaDeviceSynchronize(), "kernel execution");
        KernelOutput<T> out;
        out.output = output.read();
        out.rowAllowed = allowed.read();
        if (h.keepMaps) {
            out.scores = scores.read();
            out.weights = weights.read();
        }
        return out;
    }

    static constexpr std::size_t kMostThreads = 1024; // per block, every CUDA GPU
    int ordinal_;                                     // the CUDA runtime's number of the GPU
    mutable std::mutex mutex_;
};

class CudaBackend final : public Backend {
public:
    CudaBackend() {
        int count = 0;
        const cudaError_t status = cudaGetDeviceCount(&count);
        if (status != cudaSuccess || count == 0) {
            status_ = std::string("no CUDA device: ") +
                      (status != cudaSuccess ? cudaGetErrorString(status) : "none found");
            cudaGetLastError(); // clear the sticky error for later calls
            return;
        }
        for (int i = 0; i < count; ++i) {
            cudaDeviceProp prop{};
            if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
            devices_.push_back(std::make_unique<CudaDevice>(prop, int(devices_.size()), i));
        }
        if (!devices_.empty()) status_ = "computes on " + devices_.front()->info().name;
    }

    std::string name() const override { return "cuda"; }
    const std::vector<std::unique_ptr<Device>>& devices() const override { return devices_; }
    std::string status() const override { return status_; }
    bool accelerates() const override { return !devices_.empty(); }
    const Device* defaultDevice() const override { return device(0); }

private:
    std::vector<std::unique_ptr<Device>> devices_;
    std::string status_;
};

} // namespace

std::unique_ptr<Backend> makeCudaBackend() {
    return std::make_unique<CudaBackend>();
}

} // namespace attnlab
