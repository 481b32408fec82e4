// Host-side preparation and support rules shared by the OpenCL and CUDA backends.
#include "core/backend/accelerator.h"

#include <algorithm>

namespace attnlab {

template <class T>
KernelHead<T> kernelHead(const HeadTask<T>& task) {
    const MixerSpec& spec = task.mixer;
    const bool ssm = spec.kind == MixerSpec::Kind::Ssm;
    KernelHead<T> h;
    h.n = int(task.q.rows());
    h.p = int(task.q.cols());
    h.pv = int(task.v.cols());
    h.mixer = static_cast<int>(spec.kind);
    h.scale = ssm ? T(1) : mixerScale<T>(spec, h.p);
    h.decay = ScalarOps<T>::fromRational(spec.a);
    h.tile = !ssm && spec.tile > 0 ? spec.tile : kDefaultKeyTile;
    h.keepMaps = task.keepMaps;
    h.fused = !task.keepMaps || (!ssm && spec.tile > 0);
    h.hasBias = task.bias && !ssm;
    h.bidirectional = spec.bidirectional;
    h.mask = ssm ? encodeMask(spec.bidirectional ? MaskSpec::all() : MaskSpec::causal(), h.n)
                 : encodeMask(task.mask, h.n);
    h.q = task.q;
    h.k = task.k;
    h.v = task.v;
    h.bias = h.hasBias ? RowMajor<T>(*task.bias) : RowMajor<T>::Zero(1, 1);
    return h;
}

std::uint64_t fusedLocalBytes(int tile, int p, int pv, int group, int scalarBytes) {
    const std::uint64_t scalars = std::uint64_t(tile) * std::uint64_t(p + pv) +
                                  std::uint64_t(group) * std::uint64_t(pv + tile);
    return scalars * std::uint64_t(scalarBytes) + 64;
}

namespace {
std::string mib(std::uint64_t bytes) {
    return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}
} // namespace

Support acceleratorSupport(const HeadRequest& r, const DeviceLimits& limits) {
    if (r.precision == Precision::Exact) return {false, "exact arithmetic runs on the CPU only"};
    if (r.precision == Precision::Float64 && !limits.fp64)
        return {false, "the device has no float64 support"};
    if (r.maskStackDepth > 16) return {false, "the mask expression is nested too deeply"};
    const std::uint64_t scalarBytes = r.precision == Precision::Float32 ? 4 : 8;
    const std::uint64_t n = std::uint64_t(r.n), square = n * n * scalarBytes;
    const int squares = (r.keepMaps ? 2 : 0) + (r.hasBias ? 1 : 0); // n x n buffers
    const std::uint64_t total =
        scalarBytes * n * std::uint64_t(2 * r.p + 2 * r.pv) + square * std::uint64_t(squares);
    if (total > limits.globalBytes / 10 * 8 || (squares > 0 && square > limits.maxAllocBytes))
        return {false, "n = " + std::to_string(r.n) + " needs " + mib(total) +
                           " of device memory, the device has " + mib(limits.globalBytes)};
    const bool fused = !r.keepMaps || (r.tile > 0 && r.mixer != MixerSpec::Kind::Ssm);
    const int tile = r.tile > 0 ? r.tile : kDefaultKeyTile;
    const std::uint64_t local = fusedLocalBytes(tile, r.p, r.pv, 1, int(scalarBytes));
    if (fused && local > limits.localBytes)
        return {false, "key tile " + std::to_string(tile) + " with head widths " +
                           std::to_string(r.p) + "/" + std::to_string(r.pv) + " needs " +
                           std::to_string(local) + " bytes of local memory, the device has " +
                           std::to_string(limits.localBytes)};
    return {};
}

template <class T>
int fusedGroup(const KernelHead<T>& head, const DeviceLimits& limits, std::size_t mostThreads) {
    for (int group = 64; group > 1; group /= 2)
        if (std::size_t(group) <= mostThreads &&
            fusedLocalBytes(head.tile, head.p, head.pv, group, sizeof(T)) <= limits.localBytes)
            return group;
    return 1;
}

template <class T>
HeadResult<T> headResult(const KernelHead<T>& head, const KernelOutput<T>& out) {
    using Map = Eigen::Map<const RowMajor<T>>;
    HeadResult<T> r;
    if (head.keepMaps) {
        r.scores = Map(out.scores.data(), head.n, head.n);
        r.weights = Map(out.weights.data(), head.n, head.n);
    }
    r.output = Map(out.output.data(), head.n, head.pv);
    if (head.mixer != static_cast<int>(MixerSpec::Kind::Ssm))
        for (int s = 0; s < head.n; ++s)
            if (!out.rowAllowed[std::size_t(s)]) r.allMaskedRows.push_back(s);
    return r;
}

#define ATTNLAB_INSTANTIATE(T)                                                                     \
    template KernelHead<T> kernelHead<T>(const HeadTask<T>&);                                      \
    template int fusedGroup<T>(const KernelHead<T>&, const DeviceLimits&, std::size_t);            \
    template HeadResult<T> headResult<T>(const KernelHead<T>&, const KernelOutput<T>&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

} // namespace attnlab
