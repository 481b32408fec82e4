// SPDX-License-Identifier: GPL-3.0-or-later
// The gradient check's reference: central finite differences in float64 of <f(X), delta> along
// each entry (small inputs) or along a random direction (large ones), skipping steps that cross
// a ReLU kink, and the worst relative disagreement with the reverse pass, with its witness.
#pragma once

#include "core/checks/check_support.h"
#include "core/checks/witness.h"
#include "core/model/backward.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace attnlab::gradient {

inline constexpr double kStep = 1e-6; // h = kStep·max(1, |x|)

struct Worst {
    double error = 0;
    std::optional<Witness> witness;
    void offer(double e, Witness where) {
        if (!witness || e > error) {
            error = e;
            witness = std::move(where);
        }
    }
};

// Central finite differences in float64 of ⟨f(X), δ_s⟩ for every sample, entry by entry (or
// along u_s for large inputs). Fills `worst` with the comparison against the VJPs `grads`.
struct FiniteDifferences {
    const Model<double>& model;
    const Eigen::MatrixXd& x;
    const CheckRequest& request;
    bool kinks = false; // whether the model has ReLU-type arguments at all
    long compared = 0, skipped = 0;

    std::vector<bool> pattern(const Eigen::MatrixXd& at) const {
        return kinks ? activationPattern(model, at) : std::vector<bool>{};
    }

    Eigen::MatrixXd value(const Eigen::MatrixXd& at) const {
        return model.forward(at, Maps::Drop).output;
    }

    void everyEntry(const std::vector<Eigen::MatrixXd>& deltas,
                    const std::vector<Eigen::MatrixXd>& grads, Worst& worst) {
        const std::vector<bool> atX = pattern(x);
        const auto samples = deltas.size();
        std::vector<Eigen::MatrixXd> fd(samples, Eigen::MatrixXd::Zero(x.rows(), x.cols()));
        BoolMatrix used = BoolMatrix::Constant(x.rows(), x.cols(), false);
        for (Eigen::Index r = 0; r < x.rows(); ++r)
            for (Eigen::Index c = 0; c < x.cols(); ++c) {
                pollCancel(request);
                Eigen::MatrixXd plus = x, minus = x;
                const double h = kStep * std::max(1.0, std::abs(x(r, c)));
                plus(r, c) += h;
                minus(r, c) -= h;
                if (pattern(plus) != atX || pattern(minus) != atX) {
                    ++skipped;
                    continue;
                }
                const Eigen::MatrixXd slope =
                    (value(plus) - value(minus)) / (plus(r, c) - minus(r, c));
                for (std::size_t s = 0; s < samples; ++s)
                    fd[s](r, c) = slope.cwiseProduct(deltas[s]).sum();
                used(r, c) = true;
                ++compared;
            }
        for (std::size_t s = 0; s < samples; ++s) {
            double scale = grads[s].cwiseAbs().maxCoeff();
            for (Eigen::Index i = 0; i < x.size(); ++i)
                if (used(i)) scale = std::max(scale, std::abs(fd[s](i)));
            for (Eigen::Index r = 0; r < x.rows(); ++r)
                for (Eigen::Index c = 0; c < x.cols(); ++c) {
                    if (!used(r, c)) continue;
                    const double diff = std::abs(grads[s](r, c) - fd[s](r, c));
                    worst.offer(scale > 0 ? diff / scale : 0.0,
                                Witness({WitnessCell::Map::Output, -1, -1, int(r), int(c)},
                                        CellKeys::RowColumn)
                                    .with("against", "finite differences")
                                    .with("sample", s)
                                    .with("vjp", grads[s](r, c))
                                    .with("finite_difference", fd[s](r, c)));
                }
        }
    }

    void directions(const std::vector<Eigen::MatrixXd>& deltas,
                    const std::vector<Eigen::MatrixXd>& dirs,
                    const std::vector<Eigen::MatrixXd>& grads, double sampleWork, Worst& worst) {
        const std::vector<bool> atX = pattern(x);
        struct Sample {
            bool compared = false, skipped = false;
            double fd = 0, viaVjp = 0, scale = 0;
        };
        std::vector<Sample> found(deltas.size());
        forEachItem(request, long(deltas.size()), sampleWork * double(deltas.size()), [&](long i) {
            const auto s = std::size_t(i);
            const double size = dirs[s].cwiseAbs().maxCoeff();
            if (size == 0) return;
            const double t = kStep * std::max(1.0, x.cwiseAbs().maxCoeff()) / size;
            const Eigen::MatrixXd plus = x + t * dirs[s], minus = x - t * dirs[s];
            if (pattern(plus) != atX || pattern(minus) != atX) {
                found[s].skipped = true;
                return;
            }
            found[s].compared = true;
            found[s].fd = (value(plus) - value(minus)).cwiseProduct(deltas[s]).sum() / (2 * t);
            found[s].viaVjp = dirs[s].cwiseProduct(grads[s]).sum();
            found[s].scale = std::max(dirs[s].cwiseAbs().cwiseProduct(grads[s].cwiseAbs()).sum(),
                                      std::abs(found[s].fd));
        });
        for (std::size_t s = 0; s < found.size(); ++s) {
            const Sample& f = found[s];
            skipped += f.skipped;
            if (!f.compared) continue;
            worst.offer(f.scale > 0 ? std::abs(f.fd - f.viaVjp) / f.scale : 0.0,
                        Witness()
                            .with("against", "finite differences")
                            .with("sample", s)
                            .with("direction", "u of this sample")
                            .with("vjp", f.viaVjp)
                            .with("finite_difference", f.fd));
            ++compared;
        }
    }
};

} // namespace attnlab::gradient
