// SPDX-License-Identifier: GPL-3.0-or-later
// AttnLab's own model seen from the outside: a SequenceFunction (black_box.h) that runs a
// scenario's model in float64, so that every black-box property can be measured on the model as
// on any program, and the two measurements compared.
#pragma once

#include "core/checks/black_box.h"
#include "core/model/model.h"

namespace attnlab {

class ModelFunction : public SequenceFunction {
public:
    /// The model of `scenario` (its layers and weights; its tokens are not used).
    explicit ModelFunction(const Scenario& scenario);
    std::vector<Sequence> call(const std::vector<Sequence>& batch,
                               const std::function<bool()>& cancelled) override;
    long batchLimit(Eigen::Index, Eigen::Index) const override { return 1L << 20; }
    double unitRoundoff() const override { return 0x1.0p-53; }
    std::string precisionText() const override { return "float64 inputs and outputs"; }

private:
    Model<double> model_;
};

} // namespace attnlab
