// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA kernels for one REAL type; included by attention.cu inside a namespace per type,
// after the shared attention_rows.inc.

__global__ void mapsKernel(DeviceHead<REAL> h) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < h.n)
        attnlab_maps_row(s, h.q, h.k, h.bias, h.hasBias, h.code, h.codeLength, h.data, h.n, h.p,
                         h.mixer, h.scale, h.decay, h.bidirectional, h.scores, h.weights,
                         h.rowAllowed);
}

__global__ void weightedKernel(DeviceHead<REAL> h) {
    const int s = blockIdx.x, j = blockIdx.y * blockDim.x + threadIdx.x;
    if (s < h.n && j < h.pv) attnlab_weighted_cell(s, j, h.weights, h.v, h.n, h.pv, h.output);
}

// The fused kernels' shared memory: qt group·p, kt tile·p, vt tile·pv, acc group·pv, sc
// group·tile (attnlab_fused_rows).
struct SharedTiles {
    REAL *qt, *kt, *vt, *acc, *sc;
    __device__ SharedTiles(unsigned char* shared, int group, int tile, int p, int pv) {
        qt = reinterpret_cast<REAL*>(shared);
        kt = qt + group * p;
        vt = kt + tile * p;
        acc = vt + tile * pv;
        sc = acc + group * pv;
    }
};

__global__ void fusedKernel(DeviceHead<REAL> h) {
    extern __shared__ __align__(16) unsigned char shared[];
    const SharedTiles m(shared, blockDim.x, h.tile, h.p, h.pv);
    const int seen = attnlab_fused_rows(
        threadIdx.x, blockDim.x, blockIdx.x, h.q, h.p, h.k, h.p, h.v, h.pv, h.bias, h.hasBias,
        REAL(0), h.code, h.codeLength, h.data, h.n, h.p, h.pv, h.mixer, h.scale, h.decay,
        h.bidirectional, h.tile, h.output, h.pv, m.qt, m.kt, m.vt, m.acc, m.sc,
        static_cast<int*>(nullptr));
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < h.n) h.rowAllowed[s] = seen;
}

// A whole layer over a batch of sequences: query blocks along x, (sequence, head) pairs along y.
__global__ void layerKernel(DeviceLayer<REAL> l) {
    extern __shared__ __align__(16) unsigned char shared[];
    const SharedTiles m(shared, blockDim.x, l.tile, l.p, l.pv);
    attnlab_layer_rows(threadIdx.x, blockDim.x, blockIdx.x, blockIdx.y, l.q, l.k, l.v, l.starts,
                       l.programs, l.code, l.data, l.slopes, l.biasKind, l.heads, l.p, l.pv,
                       l.mixer, l.scale, l.tile, l.output, l.rowAllowed, m.qt, m.kt, m.vt, m.acc,
                       m.sc, static_cast<int*>(nullptr));
}
