// SPDX-License-Identifier: GPL-3.0-or-later
// Host-side preparation and support rules shared by the OpenCL and CUDA backends.
#include "core/backend/accelerator.h"

#include "core/spec/positional.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

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
    h.bias = h.hasBias ? RowMajorMatrix<T>(*task.bias) : RowMajorMatrix<T>::Zero(1, 1);
    return h;
}

template <class T>
KernelLayer<T> kernelLayer(const LayerTask<T>& task, std::size_t first, std::size_t last,
                           Eigen::Index firstRow) {
    const LayerSpec& spec = task.layer;
    const PositionalSpec& pos = task.positional;
    const std::vector<int> lengths = task.sequenceLengths();
    KernelLayer<T> l;
    l.heads = spec.heads;
    l.p = int(task.q.cols()) / l.heads;
    l.pv = int(task.v.cols()) / l.heads;
    l.mixer = static_cast<int>(spec.mixer.kind);
    l.scale = mixerScale<T>(spec.mixer, l.p);
    l.tile = spec.mixer.tile > 0 ? spec.mixer.tile : kDefaultKeyTile;
    if (pos.kind == PositionalSpec::Kind::Alibi) {
        l.biasKind = pos.causal ? 3 : 2;
        for (int h = 0; h < l.heads; ++h)
            l.slopes.push_back(alibiSlope<T>(pos, h, l.heads));
    }
    l.starts.push_back(0);
    for (std::size_t i = first; i < last; ++i) {
        const int n = lengths[i];
        const MaskProgram program = encodeMask(spec.mask, n);
        l.programs.insert(l.programs.end(),
                          {int(l.code.size()), int(program.code.size()), int(l.data.size())});
        l.code.insert(l.code.end(), program.code.begin(), program.code.end());
        l.data.insert(l.data.end(), program.data.begin(), program.data.end());
        l.starts.push_back(l.starts.back() + n);
        l.longest = std::max(l.longest, n);
    }
    const Eigen::Index rows = l.rows();
    l.q = task.q.middleRows(firstRow, rows);
    l.k = task.k.middleRows(firstRow, rows);
    l.v = task.v.middleRows(firstRow, rows);
    if (pos.kind == PositionalSpec::Kind::Rope) // per head and sequence, as the CPU's kernel
        for (int i = 0; i < l.sequences(); ++i) {
            const int n = l.starts[std::size_t(i) + 1] - l.starts[std::size_t(i)];
            for (int h = 0; h < l.heads; ++h)
                for (RowMajorMatrix<T>* m : {&l.q, &l.k}) {
                    Matrix<T> head = m->block(l.starts[std::size_t(i)], h * l.p, n, l.p);
                    applyRope(head, pos, task.offset);
                    m->block(l.starts[std::size_t(i)], h * l.p, n, l.p) = head;
                }
        }
    return l;
}

std::uint64_t fusedLocalBytes(int tile, int p, int pv, int group, int scalarBytes) {
    const std::uint64_t scalars = std::uint64_t(tile) * std::uint64_t(p + pv) +
                                  std::uint64_t(group) * std::uint64_t(p + pv + tile);
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

int fusedGroup(int tile, int p, int pv, int scalarBytes, const DeviceLimits& limits,
               std::size_t mostThreads) {
    for (int group = 64; group > 1; group /= 2)
        if (std::size_t(group) <= mostThreads &&
            fusedLocalBytes(tile, p, pv, group, scalarBytes) <= limits.localBytes)
            return group;
    return 1;
}

template <class T>
HeadResult<T> headResult(const KernelHead<T>& head, const KernelOutput<T>& out) {
    using Map = Eigen::Map<const RowMajorMatrix<T>>;
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

std::vector<std::pair<std::size_t, std::size_t>> layerLaunches(const std::vector<int>& lengths,
                                                               int heads, int p, int pv,
                                                               int scalarBytes,
                                                               const DeviceLimits& limits) {
    const std::uint64_t perRow =
        std::uint64_t(heads) * std::uint64_t(2 * p + 2 * pv) * std::uint64_t(scalarBytes) +
        sizeof(int);
    const std::uint64_t budget = limits.globalBytes / 2;
    const std::uint64_t rowsPerBuffer =
        limits.maxAllocBytes /
        std::max<std::uint64_t>(1, std::uint64_t(heads) * std::uint64_t(std::max(p, pv)) *
                                       std::uint64_t(scalarBytes));
    std::vector<std::pair<std::size_t, std::size_t>> launches;
    for (std::size_t first = 0; first < lengths.size();) {
        std::size_t last = first;
        std::uint64_t rows = 0;
        while (last < lengths.size() &&
               (last - first + 1) * std::size_t(heads) <= std::size_t(kMostLayerPairs) &&
               (rows + std::uint64_t(lengths[last])) * perRow <= budget &&
               rows + std::uint64_t(lengths[last]) <= rowsPerBuffer)
            rows += std::uint64_t(lengths[last++]);
        if (last == first)
            throw std::runtime_error("a sequence of " + std::to_string(lengths[first]) +
                                     " tokens needs " +
                                     mib(std::uint64_t(lengths[first]) * perRow) +
                                     " of device memory for its layer, more than " + mib(budget) +
                                     " (half the device's)");
        launches.emplace_back(first, last);
        first = last;
    }
    return launches;
}

bool AcceleratorDevice::attendsLayer(const LayerSpec& layer, Precision precision) const {
    return layer.mixer.kind != MixerSpec::Kind::Ssm &&
           (precision == Precision::Float32 || (precision == Precision::Float64 && limits_.fp64)) &&
           maskStackDepth(layer.mask) <= 16;
}

double AcceleratorDevice::measurePeakGflops() const {
    const long items = 8192L * limits_.computeUnits;
    constexpr int kSteps = 8192;
    runPeakProbe(items, kSteps);
    double best = 0;
    for (int run = 0; run < 3; ++run) {
        const auto start = std::chrono::steady_clock::now();
        runPeakProbe(items, kSteps);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::max(best, 16.0 * kSteps * double(items) / seconds / 1e9);
    }
    return best;
}

template <class T>
LayerResult<T> AcceleratorDevice::runLayer(const LayerTask<T>& task) const {
    const std::vector<int> lengths = task.sequenceLengths();
    const int heads = task.layer.heads;
    const int p = int(task.q.cols()) / heads, pv = int(task.v.cols()) / heads;
    const int tile = task.layer.mixer.tile > 0 ? task.layer.mixer.tile : kDefaultKeyTile;
    if (fusedLocalBytes(tile, p, pv, 1, sizeof(T)) > limits_.localBytes)
        throw std::runtime_error("key tile " + std::to_string(tile) + " with head width " +
                                 std::to_string(p) + " does not fit the device's local memory");
    LayerResult<T> result{Matrix<T>(task.q.rows(), task.v.cols()), {}};
    Eigen::Index row = 0;
    for (const auto& [first, last] : layerLaunches(lengths, heads, p, pv, sizeof(T), limits_)) {
        const KernelLayer<T> layer = kernelLayer(task, first, last, row);
        const KernelOutput<T> out = computeLayer(layer);
        result.attention.middleRows(row, layer.rows()) =
            Eigen::Map<const RowMajorMatrix<T>>(out.output.data(), layer.rows(), heads * pv);
        for (int i = 0; i < layer.sequences(); ++i) {
            std::vector<int>& masked = result.allMaskedRows.emplace_back();
            for (int s = layer.starts[std::size_t(i)]; s < layer.starts[std::size_t(i) + 1]; ++s)
                if (!out.rowAllowed[std::size_t(s)])
                    masked.push_back(s - layer.starts[std::size_t(i)]);
        }
        row += layer.rows();
    }
    return result;
}

#define ATTNLAB_INSTANTIATE(T)                                                                     \
    template KernelHead<T> kernelHead<T>(const HeadTask<T>&);                                      \
    template KernelLayer<T> kernelLayer<T>(const LayerTask<T>&, std::size_t, std::size_t,          \
                                           Eigen::Index);                                          \
    template LayerResult<T> AcceleratorDevice::runLayer<T>(const LayerTask<T>&) const;             \
    template HeadResult<T> headResult<T>(const KernelHead<T>&, const KernelOutput<T>&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

} // namespace attnlab
