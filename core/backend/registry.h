// SPDX-License-Identifier: GPL-3.0-or-later
// The registry of backends compiled into this build (CUDA, OpenCL, CPU; the CPU always last),
// each with its devices, and the dispatch of the forward pass: a whole layer to the device that
// computes layers (the CPU's fused kernels, an accelerator's layer kernel), else each head to
// the device a choice resolves to, with fallback to the CPU.
#pragma once

#include "core/backend/backend.h"
#include "core/spec/backend_choice.h"

#include <memory>
#include <string>
#include <vector>

namespace attnlab {

/// Every backend compiled in, accelerators first, the CPU last. Created on first use.
const std::vector<std::unique_ptr<Backend>>& backends();
/// The backend called `name` ("cpu", "opencl", "cuda"), or nullptr when not compiled in.
const Backend* findBackend(const std::string& name);
/// Throws InputError when `choice` names a backend that is not compiled into this build, or a
/// device index past its last device.
void requireSelectable(BackendChoice choice);

/// The device that will compute `request` under `choice` and, when that is not the one asked
/// for, the notice saying why (no device, request not supported).
struct DevicePick {
    const Device* device = nullptr;
    std::string notice;
};
DevicePick pickDevice(BackendChoice choice, const HeadRequest& request);
/// Whether `choice` computes on the host CPU whatever the request: cpu, or auto on a machine with
/// no accelerating device (then the CPU's own fast paths may be used).
bool computesOnCpu(BackendChoice choice);
/// Whether `choice` sends computations in `precision` to a device other than the host CPU's own
/// kernels: a chosen backend with a device by the index asked for, or auto with an accelerating
/// device, when that device computes the precision (never exact; float64 where it has it).
/// (Neither this nor computesOnCpu holds for a chosen backend without a device: its heads fall
/// back to the CPU one by one, each with its notice.)
bool computesOnDevice(BackendChoice choice, Precision precision);

/// Fault injection, to show and test the fallback: from the (after+1)-th head it computes on,
/// `backend` throws as a failing device would (after < 0 turns it off). Also set at start-up by
/// the environment: ATTNLAB_SIMULATE_DEVICE_FAILURE=opencl:3.
void simulateDeviceFailure(const std::string& backend, int after);

/// The device that computes `layer` whole in `precision` when no maps are kept: the one
/// `choice` resolves to when it computes layers (the CPU's fused kernels, an accelerator's
/// layer kernel), the CPU's when the chosen backend has no such device (with the notice saying
/// so), or nullptr: then heads go one by one, each with its own fallback.
struct LayerPick {
    const Device* device = nullptr;
    std::string notice;
};
LayerPick layerDevice(BackendChoice choice, const LayerSpec& layer, Precision precision);

/// A layer computed whole: the result, the backend that computed it and the notice of a
/// fallback (empty when none).
template <class T>
struct LayerRun {
    LayerResult<T> result;
    std::string backend;
    std::string notice;
};

/// Computes the task's layer on `device` (a layerDevice); when an accelerator fails, on the
/// CPU, saying so in the notice. InputError (an invalid mask) is not a device failure.
template <class T>
LayerRun<T> attendLayerOn(const Device& device, const LayerTask<T>& task);

/// A head computed under a choice: the result, the backend that computed it and the notice
/// of a fallback (empty when none).
template <class T>
struct HeadRun {
    HeadResult<T> result;
    std::string backend;
    std::string notice;
};

/// Computes one head on the device `choice` resolves to; when that device fails, computes it
/// on the CPU and says so in the notice. The unmasked code path is the CPU's, without notice.
template <class T>
HeadRun<T> attendOn(BackendChoice choice, const HeadTask<T>& task);

} // namespace attnlab
