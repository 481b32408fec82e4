// The parts of the backend interface every backend shares: requests from tasks, choice names.
#include "core/backend/backend.h"
#include "core/backend/mask_program.h"
#include "core/spec/backend_choice.h"

#include "core/base/error.h"

#include <stdexcept>

namespace attnlab {

template <class T>
HeadRequest headRequest(const HeadTask<T>& task) {
    HeadRequest r;
    r.mixer = task.mixer.kind;
    r.precision = ScalarOps<T>::exact        ? Precision::Exact
                  : std::is_same_v<T, float> ? Precision::Float32
                                             : Precision::Float64;
    r.n = int(task.q.rows());
    r.p = int(task.q.cols());
    r.pv = int(task.v.cols());
    r.tile = task.mixer.kind == MixerSpec::Kind::Ssm ? 0 : task.mixer.tile;
    r.keepMaps = task.keepMaps;
    r.hasBias = task.bias && task.mixer.kind != MixerSpec::Kind::Ssm;
    r.maskStackDepth = maskStackDepth(task.mask);
    return r;
}

template HeadRequest headRequest<float>(const HeadTask<float>&);
template HeadRequest headRequest<double>(const HeadTask<double>&);
template HeadRequest headRequest<Rational>(const HeadTask<Rational>&);

HeadResult<Rational> Backend::attend(const HeadTask<Rational>&) const {
    throw std::runtime_error(name() + ": exact arithmetic runs on the CPU only");
}

std::string backendChoiceName(BackendChoice choice) {
    switch (choice) {
    case BackendChoice::Auto:
        return "auto";
    case BackendChoice::Cpu:
        return "cpu";
    case BackendChoice::OpenCl:
        return "opencl";
    case BackendChoice::Cuda:
        return "cuda";
    }
    return "?";
}

BackendChoice parseBackendChoice(std::string_view text) {
    for (BackendChoice c :
         {BackendChoice::Auto, BackendChoice::Cpu, BackendChoice::OpenCl, BackendChoice::Cuda})
        if (text == backendChoiceName(c)) return c;
    throw InputError("backend: '" + std::string(text) + "' is not auto, cpu, opencl or cuda");
}

} // namespace attnlab
