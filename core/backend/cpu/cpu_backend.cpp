// The CPU backend: attendHead on the caller's mask matrix.
#include "core/backend/cpu/cpu_backend.h"

namespace attnlab {

namespace {

class CpuBackend final : public Backend {
public:
    std::string name() const override { return "cpu"; }
    std::vector<DeviceInfo> devices() const override { return {cpuDevice()}; }
    std::string status() const override { return "computes every request (the reference)"; }
    bool accelerates() const override { return false; }
    Support supports(const HeadRequest&) const override { return {}; }
    HeadResult<float> attend(const HeadTask<float>& task) const override { return run(task); }
    HeadResult<double> attend(const HeadTask<double>& task) const override { return run(task); }
    HeadResult<Rational> attend(const HeadTask<Rational>& task) const override { return run(task); }

private:
    template <class T>
    static HeadResult<T> run(const HeadTask<T>& task) {
        return attendHead<T>(task.mixer, task.q, task.k, task.v, task.bias, task.maskCells);
    }
};

} // namespace

std::unique_ptr<Backend> makeCpuBackend() {
    return std::make_unique<CpuBackend>();
}

} // namespace attnlab
