// SPDX-License-Identifier: GPL-3.0-or-later
// An order difference's JSON form.
#include "core/checks/order_difference.h"

namespace attnlab {

namespace {

const char* kindName(OrderDifference::Kind kind) {
    switch (kind) {
    case OrderDifference::Kind::None:
        return "none";
    case OrderDifference::Kind::Rounding:
        return "rounding";
    case OrderDifference::Kind::BeyondRounding:
        break;
    }
    return "beyond rounding";
}

} // namespace

nlohmann::json OrderDifference::json() const {
    nlohmann::json j = {{"kind", kindName(kind)}};
    if (ulps) j["ulps"] = *ulps;
    return j;
}

} // namespace attnlab
