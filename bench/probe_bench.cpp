// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab-probe-bench: AttnLab's own cost around a probed program, in one run (never a test
// verdict). For N tokens of width D in float32 and the default properties of an intended mask,
// it runs the whole probe with an in-process stand-in for the program (each call's answer is
// written as a program would write it, outside the clock) and times what AttnLab does: writing
// the inputs, reading and checking the answers, and planning and analysing around them. Reports
// the calls and sequences, each part's median of three warm runs, and the writing and reading
// against the budget of half a second and against the machine's floor measured in the same run
// (the same bytes written and read as one buffer, unconverted). With `-- PROGRAM ARGS...` it also
// runs the real probe once and splits its wall time between AttnLab and the program. Prints JSON.
//
//   attnlab-probe-bench [--n 512] [--d 64] [--mask causal] [-- PROGRAM ARGS...]
#include "core/base/process_tuning.h"
#include "core/probe/batch_npy.h"
#include "core/probe/probe.h"
#include "core/probe/program_function.h"
#include "timing.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

using namespace attnlab;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The program's stand-in: the identity, its answer written outside the clock, so that what is
// timed is AttnLab's writing and reading of each call's arrays.
class ExchangeOnly : public SequenceFunction {
public:
    explicit ExchangeOnly(std::filesystem::path dir) : dir_(std::move(dir)) {}
    std::vector<Sequence> call(const std::vector<Sequence>& batch,
                               const std::function<bool()>&) override {
        counted(batch.size());
        const auto in = dir_ / "in.npy", out = dir_ / "out.npy";
        auto start = Clock::now();
        writeBatchNpy(in, batch, true);
        writing += secondsSince(start);
        start = Clock::now();
        writeBatchNpy(out, batch, true); // what the program would write
        standIn += secondsSince(start);
        start = Clock::now();
        BatchAnswer answer =
            readBatchNpy(out, long(batch.size()), batch.front().rows(), std::uintmax_t(4) << 30);
        reading += secondsSince(start);
        bytes += 2 * std::filesystem::file_size(in);
        return std::move(answer.outputs);
    }
    long batchLimit(Eigen::Index n, Eigen::Index d) const override {
        return long((std::uintmax_t(256) << 20) / std::uintmax_t(n * d * 4));
    }
    double unitRoundoff() const override { return 0x1.0p-24; }
    std::string precisionText() const override { return "float32 inputs and outputs"; }

    double writing = 0, reading = 0, standIn = 0;
    std::uintmax_t bytes = 0;

private:
    std::filesystem::path dir_;
};

} // namespace

int main(int argc, char** argv) {
    keepFreedMemoryForReuse(); // as attnlab-cli does
    ProbeRequest request;
    request.tokens = 512;
    request.features = 64;
    request.mask = "causal";
    ProgramOptions program;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--") {
            program.command.argv.assign(argv + i + 1, argv + argc);
            break;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "usage: %s [--n N] [--d D] [--mask SPEC] [-- PROGRAM ARGS...]\n",
                         argv[0]);
            return 2;
        }
        if (a == "--n")
            request.tokens = std::atoi(argv[++i]);
        else if (a == "--d")
            request.features = std::atoi(argv[++i]);
        else if (a == "--mask")
            request.mask = argv[++i];
    }

    const auto dir = std::filesystem::temp_directory_path() / "attnlab-probe-bench";
    std::filesystem::create_directories(dir);
    std::vector<double> writing, reading, around, total;
    long calls = 0, sequences = 0;
    std::uintmax_t bytes = 0;
    for (int run = 0; run < 4; ++run) { // the first warms the page cache and the allocator
        ExchangeOnly f(dir);
        const auto start = Clock::now();
        const ProbeResult r = runProbe(request, f);
        const double wall = secondsSince(start) - f.standIn;
        calls = r.calls;
        sequences = r.sequences;
        bytes = f.bytes;
        if (run == 0) continue;
        writing.push_back(1000 * f.writing);
        reading.push_back(1000 * f.reading);
        around.push_back(1000 * (wall - f.writing - f.reading));
        total.push_back(1000 * wall);
    }
    // The machine's floor for the same bytes in the same run: one contiguous buffer written to a
    // file and read back, with no conversion or checking.
    std::vector<char> buffer(bytes / 2, 1);
    const Timing floor = measure(1, 3, [&] {
        const auto path = dir / "floor.bin";
        {
            std::ofstream out(path, std::ios::binary | std::ios::trunc);
            out.write(buffer.data(), std::streamsize(buffer.size()));
        }
        std::ifstream in(path, std::ios::binary);
        in.read(buffer.data(), std::streamsize(buffer.size()));
    });
    std::filesystem::remove_all(dir);
    const double ownMs = summarise(total).median;
    const double exchangeMs = summarise(writing).median + summarise(reading).median;
    nlohmann::json out = {
        {"tokens", request.tokens},
        {"features", request.features},
        {"mask", request.mask},
        {"properties", defaultProbeProperties(parseIntendedMask(request.mask, request.tokens, 0),
                                              request.tokens, 0)},
        {"calls", calls},
        {"sequences", sequences},
        {"bytes_written_and_read", bytes},
        {"write_ms", summarise(writing).median},
        {"read_ms", summarise(reading).median},
        {"plan_and_analysis_ms", summarise(around).median},
        {"exchange_ms", exchangeMs},
        {"budget_ms", 500},
        {"exchange_over_budget", exchangeMs / 500.0},
        {"file_floor_ms", floor.median},
        {"exchange_over_file_floor", exchangeMs / floor.median},
        {"attnlab_ms", ownMs}};

    if (!program.command.argv.empty()) {
        program.limits.timeout = std::chrono::seconds(3600);
        ProgramFunction f(program);
        const auto start = Clock::now();
        const ProbeResult r = runProbe(request, f);
        const double wall = 1000 * secondsSince(start);
        out["program"] = program.command.display();
        out["program_probe_ms"] = wall;
        out["program_calls"] = r.calls;
        out["attnlab_share_of_program_probe"] = ownMs / wall;
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
