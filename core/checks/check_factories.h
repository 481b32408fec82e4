// Constructors of the individual property checks, each defined in its own file; the registry
// (registry.cpp) puts them in cli.md's order.
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeEquivarianceCheck(bool pooled);
std::unique_ptr<PropertyCheck> makeLocalityCheck();
std::unique_ptr<PropertyCheck> makeCausalityCheck();
std::unique_ptr<PropertyCheck> makeLogitSymmetryCheck();
std::unique_ptr<PropertyCheck> makeRowSumsCheck();
std::unique_ptr<PropertyCheck> makeAllTrueMaskCheck();
std::unique_ptr<PropertyCheck> makeTilingCheck(bool chunkwise);
std::unique_ptr<PropertyCheck> makeShiftInvarianceCheck();
std::unique_ptr<PropertyCheck> makeBatchInvarianceCheck();
std::unique_ptr<PropertyCheck> makeTensorParallelCheck();
std::unique_ptr<PropertyCheck> makeDataParallelCheck();
std::unique_ptr<PropertyCheck> makeGradientCheck();

} // namespace attnlab
