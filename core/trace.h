// What a forward pass leaves behind for views, the CLI and checks: per layer and head the
// scores and weights, per layer the output, and the warnings (e.g. all-masked rows).
#pragma once

#include "scalar.h"

#include <string>
#include <vector>

namespace attnlab {

template <class T>
struct HeadTrace {
    Matrix<T> scores;
    Matrix<T> weights;
};

template <class T>
struct LayerTrace {
    std::vector<HeadTrace<T>> heads; // empty when maps were not requested
    Matrix<T> output;
};

template <class T>
struct Trace {
    Matrix<T> input; // tokens after absolute positional features: the network's real input
    std::vector<LayerTrace<T>> layers;
    Matrix<T> output;
    std::vector<std::string> warnings;
};

} // namespace attnlab
