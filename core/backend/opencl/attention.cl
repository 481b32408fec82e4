// SPDX-License-Identifier: GPL-3.0-or-later
/* OpenCL C 1.2 kernels of the attention backend, compiled at run time from this text (embedded
   in the binary with the shared .inc files in place of their #include lines). Built once
   with REAL = float and, where the device has cl_khr_fp64, once with -DATTNLAB_FP64. */
#ifdef ATTNLAB_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double REAL;
#else
typedef float REAL;
#endif

#define ATTNLAB_FN
#define ATTNLAB_GCONST __global const
#define ATTNLAB_GMUT __global
#define ATTNLAB_LOCAL __local
#define ATTNLAB_EXP(x) exp(x)
#define ATTNLAB_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define ATTNLAB_GROUP_ANY(value, flag) attnlab_group_any(value, flag)
#define ATTNLAB_FMA(a, b, c) mad(a, b, c)

/* 1 when `value` is non-zero on any work-item of the group (every item must call it). */
int attnlab_group_any(int value, __local int* flag) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) *flag = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (value) *flag = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    return *flag;
}

#include "core/backend/shared/mask_eval.inc"
#include "core/backend/shared/attention_rows.inc"
#include "core/backend/shared/peak_probe.inc"

/* One work-item per query row: scores, weights and whether the row has an allowed key. */
__kernel void attnlab_maps(__global const REAL* q, __global const REAL* k,
                           __global const REAL* bias, int hasBias, __global const int* code,
                           int codeLength, __global const int* data, int n, int p, int mixer,
                           REAL scale, REAL decay, int bidirectional, __global REAL* scores,
                           __global REAL* weights, __global int* rowAllowed) {
    const int s = get_global_id(0);
    if (s < n)
        attnlab_maps_row(s, q, k, bias, hasBias, code, codeLength, data, n, p, mixer, scale,
                         decay, bidirectional, scores, weights, rowAllowed);
}

/* One work-item per output entry: weights · V. */
__kernel void attnlab_weighted(__global const REAL* weights, __global const REAL* v, int n,
                               int pv, __global REAL* out) {
    const int s = get_global_id(0), j = get_global_id(1);
    if (s < n && j < pv) attnlab_weighted_cell(s, j, weights, v, n, pv, out);
}

/* The fused tiled evaluation of one head, one work-group per `get_local_size(0)` queries. */
__kernel void attnlab_fused(__global const REAL* q, __global const REAL* k,
                            __global const REAL* v, __global const REAL* bias, int hasBias,
                            __global const int* code, int codeLength, __global const int* data,
                            int n, int p, int pv, int mixer, REAL scale, REAL decay,
                            int bidirectional, int tile, __global REAL* out,
                            __global int* rowAllowed, __local REAL* qt, __local REAL* kt,
                            __local REAL* vt, __local REAL* acc, __local REAL* sc,
                            __local int* flag) {
    const int seen = attnlab_fused_rows(
        get_local_id(0), get_local_size(0), get_group_id(0), q, p, k, p, v, pv, bias, hasBias,
        (REAL)0, code, codeLength, data, n, p, pv, mixer, scale, decay, bidirectional, tile, out,
        pv, qt, kt, vt, acc, sc, flag);
    const int s = get_global_id(0);
    if (s < n) rowAllowed[s] = seen;
}

/* A whole layer over a batch of sequences (attnlab_layer_rows): query blocks along dimension
   0, (sequence, head) pairs along dimension 1. */
__kernel void attnlab_layer(__global const REAL* q, __global const REAL* k,
                            __global const REAL* v, __global const int* starts,
                            __global const int* programs, __global const int* code,
                            __global const int* data, __global const REAL* slopes, int biasKind,
                            int heads, int p, int pv, int mixer, REAL scale, int tile,
                            __global REAL* out, __global int* rowAllowed, __local REAL* qt,
                            __local REAL* kt, __local REAL* vt, __local REAL* acc,
                            __local REAL* sc, __local int* flag) {
    attnlab_layer_rows(get_local_id(0), get_local_size(0), get_group_id(0), get_group_id(1), q, k,
                       v, starts, programs, code, data, slopes, biasKind, heads, p, pv, mixer,
                       scale, tile, out, rowAllowed, qt, kt, vt, acc, sc, flag);
}

/* The peak probe: `steps` steps of attnlab_fma_chains per work-item, one float out each. */
__kernel void attnlab_peak(int steps, __global float* out) {
    out[get_global_id(0)] = attnlab_fma_chains((float)get_global_id(0) * 1e-6f, steps);
}
