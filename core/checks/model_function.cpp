// SPDX-License-Identifier: GPL-3.0-or-later
// The scenario's model as a black box (model_function.h).
#include "core/checks/model_function.h"

#include "core/checks/property_check.h"

namespace attnlab {

ModelFunction::ModelFunction(const Scenario& scenario)
    : model_(scenario.model, scenario.d(), scenario.backend) {}

std::vector<Sequence> ModelFunction::call(const std::vector<Sequence>& batch,
                                          const std::function<bool()>& cancelled) {
    if (cancelled && cancelled()) throw CancelledError();
    counted(batch.size());
    std::vector<Sequence> out;
    for (Trace<double>& t : model_.forwardBatch(batch, Maps::Drop))
        out.push_back(std::move(t.output));
    return out;
}

} // namespace attnlab
