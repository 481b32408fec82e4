// SPDX-License-Identifier: GPL-3.0-or-later
// Inside one variant of the CPU kernels (cmake/CpuKernels.cmake): the kernels of the public
// headers, declared again in the variant's own namespace attnlab::kernels::ATTNLAB_CPU_VARIANT,
// which the build sets per variant. Only the variant's sources include it.
#pragma once

#include "core/backend/cpu/kernel_table.h"

#ifndef ATTNLAB_CPU_VARIANT
#error "a CPU kernel variant's source: built by attnlab_add_cpu_kernels (cmake/CpuKernels.cmake)"
#endif

namespace attnlab::kernels::ATTNLAB_CPU_VARIANT {

/// As kernels::fusedAttention (fused_attention.h).
template <class T>
FusedResult<T> fusedAttention(const MixerSpec& mixer, const MaskSpec& mask,
                              const std::vector<HeadInputs<T>>& heads, KernelTiles tiles,
                              int queryRows, const BlockReuse<T>* reuse);

/// As kernels::fusedLayerAttention (layer_attention.h).
template <class T>
LayerResult<T> fusedLayerAttention(const LayerTask<T>& task);

/// As kernels::maxPool and kernels::pooledWeights (pooled_map.h).
template <class T>
Matrix<T> maxPool(const Matrix<T>& map, int maxRows, int maxCols, PoolBy by);
template <class T>
Matrix<T> pooledWeights(const MixerSpec& mixer, const MaskSpec& mask, const HeadInputs<T>& head,
                        int maxRows, int maxCols);

/// The variant's table: the one symbol its object file exports.
extern const KernelTable kernelTable;

} // namespace attnlab::kernels::ATTNLAB_CPU_VARIANT
