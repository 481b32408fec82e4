// Describing a transformation in words.
#include "core/spec/transform.h"

namespace attnlab {

std::string Transform::describe() const {
    switch (kind) {
    case Kind::Permutation:
        return "permutation";
    case Kind::Shift:
        return "shift by " + std::to_string(shift);
    case Kind::Perturbation:
        break;
    }
    return "X[" + std::to_string(token) + "][" + std::to_string(feature) +
           "] += " + rationalText(delta);
}

} // namespace attnlab
