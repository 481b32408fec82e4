// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario validation and the permutation a scenario names.
#include "core/model/scenario.h"

#include "core/base/error.h"
#include "core/base/precision_dispatch.h"
#include "core/model/model.h"

namespace attnlab {

Permutation PermutationSpec::resolve(int n) const {
    try {
        switch (kind) {
        case Kind::Identity:
            return Permutation::identity(n);
        case Kind::Images:
            if (static_cast<int>(images.size()) != n)
                throw InputError("has " + std::to_string(images.size()) +
                                 " entries, expected n = " + std::to_string(n));
            return Permutation(images);
        case Kind::Cycles:
            return Permutation::fromCycles(cycles, n);
        case Kind::Reverse:
            return Permutation::reverse(n);
        case Kind::Random:
            return Permutation::random(n, seed);
        }
    } catch (const InputError& e) {
        throw InputError("permutation", e.what());
    }
    return Permutation::identity(n);
}

PermutationSpec PermutationSpec::resizedTo(int n) const {
    try {
        (void)resolve(n);
        return *this;
    } catch (const InputError&) {
    }
    PermutationSpec out;
    if (kind != Kind::Images) return out;
    std::vector<int> next(images.begin(),
                          images.begin() + std::min<std::size_t>(images.size(), std::size_t(n)));
    for (int i = int(next.size()); i < n; ++i)
        next.push_back(i);
    try {
        (void)Permutation(next);
        out.kind = Kind::Images;
        out.images = std::move(next);
    } catch (const InputError&) {
    }
    return out;
}

void Scenario::validate() const {
    const int n = this->n(), d = this->d();
    if (n < 1 || d < 1) throw InputError("tokens", "need at least one token of width at least 1");
    checkMatrixSize(n, d, "tokens");
    checkMatrixSize(n, n, "the attention map of tokens (n x n)");
    checkPrecision(model, precision);
    // Shapes through the layers, and every number given within the precision's range (a value
    // that would overflow float32 is refused here, not computed with); an imported model's were
    // checked against its config when it was imported (materialising a checkpoint here would read
    // all of it).
    withScalar(precision, [&]<class T>() {
        if (!model.checkpoint) (void)Model<T>(model, d);
        if constexpr (!ScalarOps<T>::exact) {
            if (tokens.kind == TokenSpec::Kind::Values) (void)tokens.materialize<T>();
            const auto& slopes = model.positional.slopes;
            if (model.positional.kind == PositionalSpec::Kind::Alibi)
                for (int h = 0; h < int(slopes.size()); ++h)
                    (void)alibiSlope<T>(model.positional, h, int(slopes.size()));
            for (std::size_t b = 0; b < batch.size(); ++b)
                try {
                    (void)fromRational<T>(batch[b]);
                } catch (const InputError& e) {
                    throw InputError("batch[" + std::to_string(b) + "]", e.what());
                }
        }
    });
    for (std::size_t i = 0; i < model.layers.size(); ++i) {
        try {
            model.layers[i].mask.validate(n);
        } catch (const InputError& e) {
            throw InputError("layers[" + std::to_string(i) + "].mask", e.what());
        }
    }
    if (model.positional.kind == PositionalSpec::Kind::Polynomial && d != 3)
        throw InputError("positional", "polynomial adds (i, i², 1) and needs d = 3, got d = " +
                                           std::to_string(d));
    withScalar(precision, [&]<class T>() { (void)absolutePositions<T>(model.positional, n, d); });
    (void)permutation.resolve(n);
    for (std::size_t b = 0; b < batch.size(); ++b) {
        const std::string path = "batch[" + std::to_string(b) + "]";
        const int nb = int(batch[b].rows());
        if (batch[b].cols() != d)
            throw InputError(path, "has width " + std::to_string(batch[b].cols()) +
                                       ", expected d = " + std::to_string(d));
        checkMatrixSize(nb, nb, "the attention map of " + path + " (n x n)");
        // Every sequence runs through the same model: its masks and positions must fit nb.
        for (std::size_t i = 0; i < model.layers.size(); ++i) {
            try {
                model.layers[i].mask.validate(nb);
            } catch (const InputError& e) {
                throw InputError(path, "has " + std::to_string(nb) + " tokens, but layers[" +
                                           std::to_string(i) + "].mask: " + e.what());
            }
        }
        try {
            (void)absolutePositions<double>(model.positional, nb, d);
        } catch (const InputError& e) {
            throw InputError(path, "has " + std::to_string(nb) + " tokens, but " + e.what());
        }
    }
}

bool Scenario::operator==(const Scenario& o) const {
    if (batch.size() != o.batch.size()) return false;
    for (std::size_t b = 0; b < batch.size(); ++b)
        if (batch[b].rows() != o.batch[b].rows() || batch[b].cols() != o.batch[b].cols() ||
            batch[b] != o.batch[b])
            return false;
    return name == o.name && notes == o.notes && precision == o.precision && tokens == o.tokens &&
           model == o.model && permutation == o.permutation && checks == o.checks;
}

} // namespace attnlab
