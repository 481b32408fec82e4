// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA backend's host side: device discovery through the runtime API, one CudaDevice per
// GPU, device memory, and the launch of the kernels of attention.cu.
#include "core/backend/cuda/cuda_backend.h"

#include "core/backend/accelerator.h"
#include "core/backend/cuda/cuda_kernels.h"

#include <cuda_runtime_api.h>

#include <mutex>
#include <stdexcept>
#include <utility>

namespace attnlab {

namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(status));
}

// Device memory of `bytes` bytes, freed on destruction; movable, so a pool can keep it.
class DeviceMemory {
public:
    explicit DeviceMemory(std::size_t bytes) { check(cudaMalloc(&data_, bytes), "cudaMalloc"); }
    DeviceMemory(DeviceMemory&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
    DeviceMemory& operator=(DeviceMemory&&) = delete;
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    ~DeviceMemory() {
        if (data_) cudaFree(data_);
    }
    template <class T>
    T* as() const {
        return static_cast<T*>(data_);
    }

private:
    void* data_ = nullptr;
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
    limits.computeUnits = prop.multiProcessorCount;
    return limits;
}

// One GPU of the CUDA runtime, made current (cudaSetDevice) for each call. Its stream, made on
// first use, takes every copy and launch of a call in order, and one stream synchronisation at
// the end waits for them; the copies are from pageable host memory, which the driver stages
// (so an upload returns once staged, and no copy overlaps a kernel). Device buffers are kept in
// a pool between calls.
class CudaDevice final : public KernelDevice<CudaDevice> {
public:
    CudaDevice(const cudaDeviceProp& prop, int index, int ordinal)
        : KernelDevice(describe(prop, index), limitsOf(prop)), ordinal_(ordinal) {}
    ~CudaDevice() override {
        pool_.clear();
        if (stream_) cudaStreamDestroy(stream_);
    }

private:
    friend class KernelDevice<CudaDevice>;

    void runPeak(long items, int steps) const {
        cuda::launchPeak(items, steps, buffer<float>(BufferRole::Peak, std::size_t(items)),
                         stream_);
        finish();
    }

    // Runs `work` under the device's lock, on this GPU and its stream; an error frees the pool
    // (no half-written buffer is reused) and is rethrown.
    template <class Work>
    auto guarded(Work&& work) const -> decltype(work()) {
        std::lock_guard lock(mutex_);
        check(cudaSetDevice(ordinal_), "cudaSetDevice");
        if (!stream_) check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream");
        try {
            return work();
        } catch (...) {
            cudaStreamSynchronize(stream_); // nothing in flight uses the buffers freed next
            pool_.clear();
            throw;
        }
    }

    // The pool's buffer for `role`, room for `count` values of T.
    template <class T>
    T* buffer(BufferRole role, std::size_t count) const {
        return pool_
            .get(role, count * sizeof(T), [](std::size_t bytes) { return DeviceMemory(bytes); })
            .template as<T>();
    }
    // The pool's buffer for `role`, with `values` queued for upload on the stream.
    template <class T>
    const T* upload(BufferRole role, const T* values, std::size_t count) const {
        T* b = buffer<T>(role, count);
        if (count)
            check(cudaMemcpyAsync(b, values, count * sizeof(T), cudaMemcpyHostToDevice, stream_),
                  "copy to device");
        return b;
    }
    // `values` resized to `count`, with the copy from `b` queued on the stream.
    template <class T>
    void download(const T* b, std::vector<T>& values, std::size_t count) const {
        values.resize(count);
        if (count)
            check(cudaMemcpyAsync(values.data(), b, count * sizeof(T), cudaMemcpyDeviceToHost,
                                  stream_),
                  "copy to host");
    }
    void finish() const { check(cudaStreamSynchronize(stream_), "kernel execution"); }

    template <class T>
    KernelOutput<T> run(const KernelHead<T>& h) const {
        const std::size_t n = std::size_t(h.n), pv = std::size_t(h.pv);
        cuda::DeviceHead<T> d;
        d.q = upload(BufferRole::Q, h.q.data(), std::size_t(h.q.size()));
        d.k = upload(BufferRole::K, h.k.data(), std::size_t(h.k.size()));
        d.v = upload(BufferRole::V, h.v.data(), std::size_t(h.v.size()));
        d.bias = upload(BufferRole::Bias, h.bias.data(), std::size_t(h.bias.size()));
        d.code = upload(BufferRole::Code, h.mask.code.data(), h.mask.code.size());
        d.data = upload(BufferRole::Data, h.mask.data.data(), h.mask.data.size());
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
        d.output = buffer<T>(BufferRole::Output, n * pv);
        d.rowAllowed = buffer<int>(BufferRole::Allowed, n);
        if (h.keepMaps) {
            d.scores = buffer<T>(BufferRole::Scores, n * n);
            d.weights = buffer<T>(BufferRole::Weights, n * n);
            cuda::launchMaps(d, stream_);
        }
        if (h.fused) {
            const int group = fusedGroup(h.tile, h.p, h.pv, sizeof(T), limits(), kMostThreads);
            cuda::launchFused(d, group, fusedLocalBytes(h.tile, h.p, h.pv, group, sizeof(T)),
                              stream_);
        } else {
            cuda::launchWeighted(d, stream_);
        }
        KernelOutput<T> out;
        download(d.output, out.output, n * pv);
        download(d.rowAllowed, out.rowAllowed, n);
        if (h.keepMaps) {
            download(d.scores, out.scores, n * n);
            download(d.weights, out.weights, n * n);
        }
        finish();
        return out;
    }

    template <class T>
    KernelOutput<T> runLayer(const KernelLayer<T>& l) const {
        pool_.releaseMaps(); // room for the layer, whose launches take half the memory
        const std::size_t rows = std::size_t(l.rows()), width = std::size_t(l.heads * l.pv);
        cuda::DeviceLayer<T> d;
        d.q = upload(BufferRole::Q, l.q.data(), std::size_t(l.q.size()));
        d.k = upload(BufferRole::K, l.k.data(), std::size_t(l.k.size()));
        d.v = upload(BufferRole::V, l.v.data(), std::size_t(l.v.size()));
        d.starts = upload(BufferRole::Starts, l.starts.data(), l.starts.size());
        d.programs = upload(BufferRole::Programs, l.programs.data(), l.programs.size());
        d.code = upload(BufferRole::Code, l.code.data(), l.code.size());
        d.data = upload(BufferRole::Data, l.data.data(), l.data.size());
        d.slopes = upload(BufferRole::Slopes, l.slopes.data(), l.slopes.size());
        d.heads = l.heads;
        d.p = l.p;
        d.pv = l.pv;
        d.mixer = l.mixer;
        d.tile = l.tile;
        d.biasKind = l.biasKind;
        d.sequences = l.sequences();
        d.longest = l.longest;
        d.scale = l.scale;
        d.output = buffer<T>(BufferRole::Output, rows * width);
        d.rowAllowed = buffer<int>(BufferRole::Allowed, rows);
        const int group = fusedGroup(l.tile, l.p, l.pv, sizeof(T), limits(), kMostThreads);
        cuda::launchLayer(d, group, fusedLocalBytes(l.tile, l.p, l.pv, group, sizeof(T)), stream_);
        KernelOutput<T> out;
        download(d.output, out.output, rows * width);
        download(d.rowAllowed, out.rowAllowed, rows);
        finish();
        return out;
    }

    static constexpr std::size_t kMostThreads = 1024; // per block, every CUDA GPU
    int ordinal_;                                     // the CUDA runtime's number of the GPU
    mutable std::mutex mutex_;
    mutable cudaStream_t stream_ = nullptr;
    mutable BufferPool<DeviceMemory> pool_;
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
