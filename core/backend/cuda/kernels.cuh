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

__global__ void fusedKernel(DeviceHead<REAL> h) {
    extern __shared__ __align__(16) unsigned char shared[];
    const int group = blockDim.x;
    REAL* kt = reinterpret_cast<REAL*>(shared);
    REAL* vt = kt + h.tile * h.p;
    REAL* acc = vt + h.tile * h.pv;
    REAL* sc = acc + group * h.pv;
    attnlab_fused_rows(threadIdx.x, group, blockIdx.x, h.q, h.k, h.v, h.bias, h.hasBias, h.code,
                       h.codeLength, h.data, h.n, h.p, h.pv, h.mixer, h.scale, h.decay,
                       h.bidirectional, h.tile, h.output, h.rowAllowed, kt, vt, acc, sc,
                       static_cast<int*>(nullptr));
}
