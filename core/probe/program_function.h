// SPDX-License-Identifier: GPL-3.0-or-later
// The user's program as a black box (a SequenceFunction, black_box.h): each call writes the batch
// to a fresh temporary directory as IN.npy, runs the program on IN.npy OUT.npy (or asks the
// persistent program to), reads OUT.npy back checked, and removes both files whatever happens;
// the directory goes with the function.
#pragma once

#include "core/checks/black_box.h"
#include "core/probe/program_runner.h"

#include <cstdint>
#include <filesystem>
#include <memory>

namespace attnlab {

struct ProgramOptions {
    ProgramCommand command;
    bool single = true;      // float32 inputs (else float64)
    bool persistent = false; // started once, a request per line
    ProgramLimits limits;    // its timeout per call (limits.cancelled is the caller's)
    std::uintmax_t maxBatchBytes = std::uintmax_t(256) << 20; // of one call's input
    int queries = 0; // a decode step: the program returns the last `queries` rows
};

class ProgramFunction : public SequenceFunction {
public:
    /// Makes the temporary directory; starts a persistent program (ProgramError when it cannot).
    explicit ProgramFunction(ProgramOptions options);
    ~ProgramFunction() override;

    std::vector<Sequence> call(const std::vector<Sequence>& batch,
                               const std::function<bool()>& cancelled) override;
    long batchLimit(Eigen::Index n, Eigen::Index d) const override;
    int queries() const override { return options_.queries; }
    double unitRoundoff() const override;
    std::string precisionText() const override;
    /// The largest output one call may write: four times the input's limit.
    std::uintmax_t maxOutputBytes() const { return 4 * options_.maxBatchBytes; }

private:
    ProgramOptions options_;
    std::filesystem::path directory_;
    std::unique_ptr<PersistentProgram> persistent_;
    double outputRoundoff_ = 0; // the coarsest output dtype seen
    std::string outputDtype_;
};

} // namespace attnlab
