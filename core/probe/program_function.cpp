// SPDX-License-Identifier: GPL-3.0-or-later
// The user's program as a black box (program_function.h).
#include "core/probe/program_function.h"

#include "core/base/error.h"
#include "core/probe/batch_npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace attnlab {

namespace {

std::filesystem::path makeTemporaryDirectory() {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec)
        throw InputError("no temporary directory for the probe (check TMPDIR): " + ec.message());
    std::string pattern = (base / "attnlab-probe-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
        throw InputError("cannot make a temporary directory for the probe in " + base.string() +
                         ": " + std::strerror(errno));
    return pattern;
}

// Removes the call's files on every way out of it.
struct CallFiles {
    std::filesystem::path in, out;
    ~CallFiles() {
        std::error_code ec;
        std::filesystem::remove(in, ec);
        std::filesystem::remove(out, ec);
    }
};

} // namespace

ProgramFunction::ProgramFunction(ProgramOptions options)
    : options_(std::move(options)), directory_(makeTemporaryDirectory()) {
    if (options_.command.argv.empty()) throw InputError("no program to probe: give it after --");
    if (options_.queries > 0)
        options_.command.environment.emplace_back("ATTNLAB_PROBE_QUERIES",
                                                  std::to_string(options_.queries));
    try {
        if (options_.persistent)
            persistent_ = std::make_unique<PersistentProgram>(options_.command);
    } catch (...) {
        std::error_code ec;
        std::filesystem::remove_all(directory_, ec);
        throw;
    }
}

ProgramFunction::~ProgramFunction() {
    persistent_.reset();
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
}

std::vector<Sequence> ProgramFunction::call(const std::vector<Sequence>& batch,
                                            const std::function<bool()>& cancelled) {
    const std::string id = std::to_string(calls());
    const CallFiles files{directory_ / ("in-" + id + ".npy"), directory_ / ("out-" + id + ".npy")};
    writeBatchNpy(files.in, batch, options_.single);
    ProgramLimits limits = options_.limits;
    limits.cancelled = cancelled;
    counted(batch.size());
    if (persistent_)
        persistent_->request(files.in.string(), files.out.string(), limits);
    else
        runProgramOnce(options_.command, {files.in.string(), files.out.string()}, limits);
    const long rows = options_.queries > 0 ? options_.queries : long(batch.front().rows());
    BatchAnswer answer = readBatchNpy(files.out, long(batch.size()), rows, maxOutputBytes());
    if (answer.unitRoundoff > outputRoundoff_) {
        outputRoundoff_ = answer.unitRoundoff;
        outputDtype_ = answer.dtype;
    }
    return std::move(answer.outputs);
}

long ProgramFunction::batchLimit(Eigen::Index n, Eigen::Index d) const {
    const std::uintmax_t bytes = std::uintmax_t(n) * std::uintmax_t(d) * (options_.single ? 4 : 8);
    return long(
        std::max<std::uintmax_t>(1, options_.maxBatchBytes / std::max<std::uintmax_t>(1, bytes)));
}

double ProgramFunction::unitRoundoff() const {
    return std::max(options_.single ? 0x1.0p-24 : 0x1.0p-53, outputRoundoff_);
}

std::string ProgramFunction::precisionText() const {
    return std::string(options_.single ? "float32" : "float64") + " inputs, " +
           (outputDtype_.empty() ? "outputs not read yet" : outputDtype_ + " outputs");
}

} // namespace attnlab
