// The backend interface (design.md, Backends): a backend lists its devices and says whether it
// supports a request before it is asked to compute one attention head. The CPU backend
// computes everything; accelerators compute float32 and float64 (exact is CPU-only).
#pragma once

#include "core/backend/device.h"
#include "core/spec/mask.h"
#include "core/spec/mixer.h"

#include <string>
#include <vector>

namespace attnlab {

/// What a head asks of a backend, in the terms `supports` decides on.
struct HeadRequest {
    MixerSpec::Kind mixer = MixerSpec::Kind::Softmax;
    Precision precision = Precision::Float64;
    int n = 0;              // queries = keys
    int p = 0;              // head width of Q and K
    int pv = 0;             // head width of V
    int tile = 0;           // key tile of the tiled evaluation (0: untiled)
    bool keepMaps = true;   // the n x n scores and weights are wanted
    bool hasBias = false;   // an n x n additive bias is uploaded
    int maskStackDepth = 1; // nesting of the mask expression (mask_program.h)
};

/// Whether a backend takes a request, and when not, why (shown in the fallback notice).
struct Support {
    bool ok = true;
    std::string why;
};

/// One head's inputs: Q (n x p), K (n x p), V (n x pv), an optional additive bias (n x n), the
/// mask as its expression and, for the CPU, as the matrix the caller already built.
template <class T>
struct HeadTask {
    const MixerSpec& mixer;
    const Matrix<T>& q;
    const Matrix<T>& k;
    const Matrix<T>& v;
    const Matrix<T>* bias; // may be null
    const MaskSpec& mask;
    const BoolMatrix& maskCells;
    bool keepMaps = true;
};

/// The request a task makes (precision from T).
template <class T>
HeadRequest headRequest(const HeadTask<T>& task);

class Backend {
public:
    virtual ~Backend() = default;
    /// "cpu", "opencl" or "cuda".
    virtual std::string name() const = 0;
    /// The devices found (may be empty: then `status` says why).
    virtual std::vector<DeviceInfo> devices() const = 0;
    /// One line about the backend: the device it computes on, or why it has none.
    virtual std::string status() const = 0;
    /// True when the device computing is not the host CPU (auto only picks those).
    virtual bool accelerates() const = 0;
    /// Whether `attend` can compute this request.
    virtual Support supports(const HeadRequest& request) const = 0;
    /// One head: scores, weights (empty unless keepMaps), output, all-masked rows. Throws
    /// std::runtime_error when the device fails.
    virtual HeadResult<float> attend(const HeadTask<float>& task) const = 0;
    virtual HeadResult<double> attend(const HeadTask<double>& task) const = 0;
    /// Exact arithmetic: only the CPU backend overrides this; the default throws.
    virtual HeadResult<Rational> attend(const HeadTask<Rational>& task) const;
};

} // namespace attnlab
