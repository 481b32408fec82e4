// SPDX-License-Identifier: GPL-3.0-or-later
// The probe end to end on real programs: the numpy examples, correct and with each planted bug
// (a one-position causal leak, an off-by-one window, a block-sparse mask that drops keys, a
// batch-dependent result, a decode mask aligned top-left, positions scaled by the length), each
// found with its witness; misbehaving programs refused with the cause and nothing left behind;
// and AttnLab's own model measured as a black box agreeing with the model's checks.
#include "core/checks/check_registry.h"
#include "core/checks/model_function.h"
#include "core/io/scenario_reader.h"
#include "core/probe/probe.h"
#include "core/probe/program_function.h"

#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace attnlab;

namespace {

QString python() {
    return qEnvironmentVariable("ATTNLAB_PYTHON");
}

// The program `script` (under the source tree) run by the Python that has numpy.
ProgramOptions program(const std::string& script, std::vector<std::string> args = {}) {
    ProgramOptions o;
    o.command.argv = {python().toStdString(), std::string(ATTNLAB_SOURCE_DIR) + "/" + script};
    o.command.argv.insert(o.command.argv.end(), args.begin(), args.end());
    o.limits.timeout = std::chrono::seconds(60);
    return o;
}

ProbeResult probe(ProgramOptions options, ProbeRequest request) {
    options.queries = request.queries;
    ProgramFunction f(std::move(options));
    return runProbe(request, f);
}

const PropertyReport& report(const ProbeResult& r, const std::string& name) {
    for (const PropertyReport& p : r.reports)
        if (p.name == name) return p;
    throw std::runtime_error("no report " + name);
}

ProbeRequest request(int n, std::string mask = "", std::vector<std::string> names = {}) {
    ProbeRequest q;
    q.tokens = n;
    q.features = 4;
    q.mask = std::move(mask);
    for (const std::string& name : names)
        q.properties.push_back(parseCheckArgument(name));
    return q;
}

const char* kAttention = "examples/probe/numpy_attention.py";
const char* kBad = "tests/probe_programs/bad_program.py";

// Whether a program failure's message holds `words`, and nothing is left in the temporary folder.
void expectRefused(const std::string& kind, const QString& words, long timeoutMs = 60000) {
    ProgramOptions o = program(kBad, {"--fail", kind});
    o.limits.timeout = std::chrono::milliseconds(timeoutMs);
    try {
        probe(o, request(6, "", {"causality"}));
        QFAIL(("no error for --fail " + kind).c_str());
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains(words), e.what());
    }
}

} // namespace

class TestProbe : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (python().isEmpty())
            QSKIP("no python3 with numpy was found at configure time (Debian: python3-numpy)");
    }

    void correctCausalProgramHoldsInFewCalls() {
        const ProbeResult r =
            probe(program(kAttention, {"--mask", "causal"}), request(12, "causal"));
        for (const PropertyReport& p : r.reports)
            QVERIFY2(p.verdict == Verdict::Holds, (p.name + ": " + p.explanation).c_str());
        QStringList names;
        for (const PropertyReport& p : r.reports)
            names << QString::fromStdString(p.name);
        QCOMPARE(names,
                 QStringList({"mask", "causality", "prefix-consistency", "batch-invariance"}));
        QVERIFY2(r.calls <= 4, qPrintable(QString::number(r.calls)));
        QCOMPARE(report(r, "mask").details["leaks"].get<int>(), 0);
    }

    void oneFutureTokenLeakIsFoundWithItsPair() {
        const ProbeResult r =
            probe(program(kAttention, {"--mask", "causal", "--bug", "leak"}), request(8, "causal"));
        const PropertyReport& causal = report(r, "causality");
        QCOMPARE(causal.verdict, Verdict::Fails);
        const nlohmann::json w = causal.witness->json();
        QCOMPARE(w["output_row"].get<int>(), 2);
        QCOMPARE(w["input_token"].get<int>(), 5);
        const PropertyReport& mask = report(r, "mask");
        QCOMPARE(mask.verdict, Verdict::Fails);
        QCOMPARE(mask.details["leaks"].get<int>(), 1);
        QCOMPARE(mask.details["dead_keys"].get<int>(), 0);
        QCOMPARE(mask.witness->json()["kind"].get<std::string>(), std::string("leak"));
    }

    // The window's mask editor gives its mask as cells, named by where it came from.
    void maskGivenAsCellsStandsForASpecification() {
        ProbeRequest q = request(8);
        q.maskMatrix = parseIntendedMask("causal", 8, 0);
        q.maskMatrixText = "the mask editor's mask (layer 0)";
        QVERIFY(probeProperties(q) ==
                (std::vector<std::string>{"mask", "causality", "prefix-consistency",
                                          "batch-invariance"}));
        const ProbeResult r = probe(program(kAttention, {"--mask", "causal", "--bug", "leak"}), q);
        QCOMPARE(r.intendedMaskText, q.maskMatrixText);
        const PropertyReport& mask = report(r, "mask");
        QCOMPARE(mask.verdict, Verdict::Fails);
        QCOMPARE(mask.details["leaks"].get<int>(), 1);
        QVERIFY2(QString::fromStdString(mask.explanation).contains("mask editor's mask (layer 0)"),
                 mask.explanation.c_str());
        q.mask = "all"; // a specification wins over the cells
        QVERIFY(probeProperties(q).front() == "mask");
        QCOMPARE(probe(program(kAttention, {"--mask", "all"}), q).intendedMaskText,
                 std::string("all"));
        q.mask.clear();
        q.maskMatrix = BoolMatrix::Constant(7, 7, true);
        try {
            probeProperties(q);
            QFAIL("a 7 x 7 mask was taken for 8 tokens");
        } catch (const InputError& e) {
            QVERIFY2(
                QString(e.what()).contains("the mask editor's mask (layer 0): the mask is 7 x 7"),
                e.what());
        }
    }

    void windowOneTokenTooWideLeaksAtItsEdge() {
        const ProbeResult r =
            probe(program(kAttention, {"--mask", "window:2", "--bug", "window-off-by-one"}),
                  request(10, "window:2"));
        const PropertyReport& mask = report(r, "mask");
        QCOMPARE(mask.verdict, Verdict::Fails);
        QCOMPARE(mask.witness->json()["distance"].get<int>(), 3);
        QCOMPARE(mask.details["leaks"].get<int>(), 2 * (10 - 3)); // both sides, distance 3
        const PropertyReport& locality = report(r, "locality");
        QCOMPARE(locality.verdict, Verdict::Fails);
        QCOMPARE(locality.details["measured_radius"].get<int>(), 3);
    }

    void droppedPartialBlocksShowAsDeadKeys() {
        const ProbeResult r =
            probe(program(kAttention, {"--mask", "causal", "--bug", "block-sparse"}),
                  request(10, "causal", {"mask"}));
        const PropertyReport& mask = report(r, "mask");
        QCOMPARE(mask.verdict, Verdict::Fails);
        QCOMPARE(mask.details["leaks"].get<int>(), 0);
        QVERIFY(mask.details["dead_keys"].get<int>() > 0);
        QCOMPARE(mask.witness->json()["kind"].get<std::string>(), std::string("dead key"));
    }

    void batchDependentResultNamesTheComposition() {
        const ProbeResult r = probe(program(kAttention, {"--mask", "causal", "--bug", "batch"}),
                                    request(8, "", {"batch-invariance", "causality"}));
        const PropertyReport& batch = report(r, "batch-invariance");
        QCOMPARE(batch.verdict, Verdict::Fails);
        const nlohmann::json w = batch.witness->json();
        QVERIFY(w.contains("composition") && w.contains("sequence") && w.contains("row"));
        QCOMPARE(report(r, "causality").verdict, Verdict::Holds);
    }

    void decodeStepAlignedTopLeftLeavesDeadKeys() {
        ProbeRequest q = request(8, "causal", {"mask"});
        q.queries = 2;
        const ProbeResult good = probe(program(kAttention, {"--mask", "causal"}), q);
        QCOMPARE(report(good, "mask").verdict, Verdict::Holds);
        const ProbeResult bad =
            probe(program(kAttention, {"--mask", "causal", "--bug", "decode-top-left"}), q);
        const PropertyReport& mask = report(bad, "mask");
        QCOMPARE(mask.verdict, Verdict::Fails);
        QCOMPARE(mask.details["leaks"].get<int>(), 0);
        // Query 0 of the step (position 6) reads keys 0..0 instead of 0..6; query 1 keys 0..1.
        QCOMPARE(mask.details["dead_keys"].get<int>(), 6 + 5);
        const nlohmann::json w = mask.witness->json();
        QCOMPARE(w["output_row"].get<int>(), 0);
        QCOMPARE(w["query_position"].get<int>(), 6);
        QCOMPARE(w["input_token"].get<int>(), 1);
    }

    void lengthDependentProgramFailsPrefixConsistencyOnly() {
        const ProbeResult r =
            probe(program(kAttention, {"--mask", "causal", "--bug", "length"}), request(8));
        QCOMPARE(report(r, "causality").verdict, Verdict::Holds);
        const PropertyReport& prefix = report(r, "prefix-consistency");
        QCOMPARE(prefix.verdict, Verdict::Fails);
        const nlohmann::json w = prefix.witness->json();
        QCOMPARE(w["length"].get<int>(), 4);
        QCOMPARE(w["row"].get<int>(), 1); // position 0 reads 0 / n whatever n is
    }

    void bidirectionalProgramIsEquivariantAndShrinksWhenNot() {
        const ProbeResult all = probe(program(kAttention, {"--mask", "all"}), request(4, "all"));
        QCOMPARE(report(all, "permutation-equivariance").verdict, Verdict::Holds);
        QCOMPARE(report(all, "permutation-invariance").verdict, Verdict::Holds);
        QVERIFY(report(all, "permutation-equivariance").checked["exhaustive"].get<bool>());
        const ProbeResult causal = probe(program(kAttention, {"--mask", "causal"}),
                                         request(12, "", {"permutation-equivariance"}));
        const PropertyReport& eq = report(causal, "permutation-equivariance");
        QCOMPARE(eq.verdict, Verdict::Fails);
        QVERIFY(eq.shrunkWitness);
        QCOMPARE(eq.shrunkWitness->json()["n"].get<int>(), 2);
    }

    // The PyTorch example with the causal mask built as tril(1): every query also reads the next
    // token. Runs where the Python named by ATTNLAB_TORCH_PYTHON (else ATTNLAB_PYTHON) has torch.
    void pytorchMaskBuiltTheWrongWayLeaks() {
        QString torchPython = qEnvironmentVariable("ATTNLAB_TORCH_PYTHON", python());
        QProcess check;
        check.start(torchPython, {"-c", "import torch"});
        if (!check.waitForFinished(60000) || check.exitCode() != 0)
            QSKIP("torch is not installed for this Python (set ATTNLAB_TORCH_PYTHON to one that "
                  "has it)");
        ProgramOptions o;
        o.command.argv = {torchPython.toStdString(),
                          std::string(ATTNLAB_SOURCE_DIR) + "/examples/probe/torch_sdpa.py",
                          "--mask",
                          "causal",
                          "--bug",
                          "tril1"};
        o.persistent = true;
        const ProbeResult r = probe(o, request(8, "causal", {"mask", "causality"}));
        const PropertyReport& mask = report(r, "mask");
        QCOMPARE(mask.verdict, Verdict::Fails);
        QCOMPARE(mask.details["leaks"].get<int>(), 7); // (s, s + 1) for s = 0..6
        QCOMPARE(mask.witness->json()["output_row"].get<int>(), 0);
        QCOMPARE(mask.witness->json()["input_token"].get<int>(), 1);
        o.command.argv.resize(4); // without the bug
        QCOMPARE(report(probe(o, request(8, "causal", {"mask"})), "mask").verdict, Verdict::Holds);
    }

    void persistentModeAnswersEveryCall() {
        ProgramOptions o = program(kAttention, {"--mask", "causal", "--bug", "leak"});
        o.persistent = true;
        const ProbeResult r = probe(o, request(8, "causal"));
        QCOMPARE(report(r, "causality").witness->json()["input_token"].get<int>(), 5);
        QVERIFY(r.calls >= 3);
    }

    void largeBatchesAreSplit() {
        ProgramOptions o = program(kAttention, {"--mask", "causal"});
        o.maxBatchBytes = 8 * 4 * 4 * 5; // five sequences of 8 x 4 float32 per call
        const ProbeResult r = probe(o, request(8, "causal", {"causality"}));
        QCOMPARE(r.sequences, 2 * 8 + 1);
        QCOMPARE(r.calls, (2 * 8 + 1 + 4) / 5);
        QCOMPARE(report(r, "causality").verdict, Verdict::Holds);
    }

    void badProgramsAreRefusedWithTheirCause() {
        // A temporary folder of this test's own: other tests probing at the same time make
        // and remove theirs in the shared one.
        QTemporaryDir own;
        const bool had = qEnvironmentVariableIsSet("TMPDIR");
        const QByteArray previous = qgetenv("TMPDIR");
        qputenv("TMPDIR", own.path().toLocal8Bit());
        const auto restore = qScopeGuard([&] {
            if (had)
                qputenv("TMPDIR", previous);
            else
                qunsetenv("TMPDIR");
        });
        const auto tmp = std::filesystem::temp_directory_path();
        QCOMPARE(QString::fromStdString(tmp.string()), own.path());
        auto probeDirs = [&] {
            int count = 0;
            for (const auto& e : std::filesystem::directory_iterator(tmp))
                count += e.path().filename().string().rfind("attnlab-probe-", 0) == 0;
            return count;
        };
        const int before = probeDirs();
        expectRefused("exit", "the last line of stderr");
        expectRefused("exit", "exited with status 3");
        expectRefused("no-output", "wrote no output file");
        expectRefused("not-npy", "not a .npy file");
        expectRefused("wrong-shape", "axis 1 (the rows) is 7, expected 6");
        expectRefused("wrong-batch", "axis 0 (the sequences of the batch)");
        expectRefused("dtype", "int32 is not supported");
        expectRefused("complex", "not supported");
        expectRefused("nan", "NaN at sequence 0, row 1, column 2");
        expectRefused("inf", "an infinity at sequence 0, row 1, column 2");
        expectRefused("huge", "more than the limit");
        QElapsedTimer clock;
        clock.start();
        expectRefused("hang", "ran past the timeout", 1500);
        QVERIFY(clock.elapsed() < 10000);
        try {
            ProgramOptions o;
            o.command.argv = {"attnlab-no-such-program"};
            probe(o, request(4, "", {"causality"}));
            QFAIL("a missing program was run");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("attnlab-no-such-program"), e.what());
        }
        QCOMPARE(probeDirs(), before);
        QCOMPARE(before, 0);
    }

    void badRequestsAreRefusedBeforeRunning() {
        const ProgramOptions o = program(kAttention);
        QVERIFY_THROWS_EXCEPTION(InputError, probe(o, request(6, "", {"tiling"})));
        QVERIFY_THROWS_EXCEPTION(InputError, probe(o, request(6, "window:x")));
        QVERIFY_THROWS_EXCEPTION(InputError, probe(o, request(6, "causal", {"mask:layers=0"})));
        QVERIFY_THROWS_EXCEPTION(InputError, probe(o, request(6, "", {"causality:radius=1"})));
        const ProbeResult r = probe(o, request(6, "", {"mask", "locality"}));
        QCOMPARE(report(r, "mask").verdict, Verdict::NotApplicable);
        QCOMPARE(report(r, "locality").verdict, Verdict::NotApplicable);
    }

    // AttnLab's model seen as a black box gives the verdicts its own checks give.
    void modelAsBlackBoxAgreesWithItsChecks() {
        for (const char* name : {"causal-model", "window-stray-cell", "rope-shift"}) {
            const Scenario s = loadScenario(std::string("builtin:") + name);
            ModelFunction f(s);
            ProbeRequest q;
            q.input = s.tokens.materialize<double>();
            for (const char* p : {"causality", "permutation-equivariance", "batch-invariance"})
                q.properties.push_back({p});
            const ProbeResult black = runProbe(q, f);
            const std::vector<PropertyReport> own = runChecks(s, q.properties, 0);
            for (std::size_t i = 0; i < own.size(); ++i)
                QVERIFY2(black.reports[i].verdict == own[i].verdict,
                         (std::string(name) + " " + own[i].name).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestProbe)
#include "test_probe.moc"
