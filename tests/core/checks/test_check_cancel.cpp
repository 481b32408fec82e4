// SPDX-License-Identifier: GPL-3.0-or-later
// Cancelling a check: every property of the explorer's panel, started on a large input (the
// default scenario's model on thousands of generated tokens, exact and float64), returns soon
// after its cancel flag is set, whichever of its loops it is in. ATTNLAB_CANCEL_TOKENS sets the
// number of tokens (to measure).
#include "core/checks/check_registry.h"
#include "core/explore/panel_checks.h"
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace attnlab;
using Clock = std::chrono::steady_clock;

namespace {

/// How many times slower the sanitizers' instrumentation makes every loop (the reliability
/// build runs this test under AddressSanitizer).
#if defined(__SANITIZE_ADDRESS__)
constexpr int kSlowdown = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int kSlowdown = 4;
#else
constexpr int kSlowdown = 1;
#endif
#else
constexpr int kSlowdown = 1;
#endif

/// How long a check runs before it is cancelled, and how soon after it must have returned (a
/// behaviour bound: a poll per perturbation or row block answers within far less).
constexpr auto kRunFor = std::chrono::milliseconds(500);
constexpr auto kReturnWithin = std::chrono::seconds(3 * kSlowdown);

/// Tokens a check starts on: thousands, fewer in exact mode, where one forward pass of 4,096
/// tokens takes half a minute.
int largeTokenCount(Precision precision) {
    const int fromEnvironment = qEnvironmentVariableIntValue("ATTNLAB_CANCEL_TOKENS");
    if (fromEnvironment > 0) return fromEnvironment;
    return precision == Precision::Exact ? 2048 : 4096;
}

/// The explorer's default scenario after Generate with n = `tokens` (its random tokens, the
/// permutation grown by fixed points).
Scenario largeScenario(Precision precision, int tokens) {
    Scenario s = loadScenario(std::string("builtin:") + kDefaultPreset);
    s.precision = precision;
    s.tokens = TokenSpec::random(tokens, s.d(), 1);
    s.permutation = s.permutation.resizedTo(tokens);
    s.validate();
    return s;
}

/// Sets `flag` after kRunFor, on a thread of its own, and says when.
class Canceller {
public:
    explicit Canceller(std::atomic<bool>& flag)
        : thread_([this, &flag] {
              std::this_thread::sleep_for(kRunFor);
              at_ = Clock::now();
              flag = true;
          }) {}
    /// When it set the flag (after waiting for it to).
    Clock::time_point at() {
        if (thread_.joinable()) thread_.join();
        return at_;
    }
    ~Canceller() {
        if (thread_.joinable()) thread_.join();
    }

private:
    Clock::time_point at_;
    std::thread thread_;
};

} // namespace

class TestCheckCancel : public QObject {
    Q_OBJECT
private slots:
    void returnsSoonAfterCancel_data() {
        QTest::addColumn<int>("precision");
        QTest::addColumn<QString>("property");
        for (const Precision p : {Precision::Exact, Precision::Float64})
            for (const CheckSpec& c : panelChecks(largeScenario(p, largeTokenCount(p)), {}))
                QTest::addRow("%s %s", std::string(precisionName(p)).c_str(), c.name.c_str())
                    << int(p) << QString::fromStdString(c.name);
    }

    void returnsSoonAfterCancel() {
        QFETCH(int, precision);
        QFETCH(QString, property);
        const Scenario scenario =
            largeScenario(Precision(precision), largeTokenCount(Precision(precision)));
        CheckSpec spec;
        for (const CheckSpec& c : panelChecks(scenario, {}))
            if (c.name == property.toStdString()) spec = c;
        // The check runs on this thread (as on the window's worker: OpenMP's threads and all);
        // another sets its flag.
        std::atomic<bool> cancelled = false;
        Canceller canceller(cancelled);
        bool stopped = false;
        try {
            findPropertyCheck(spec.name)->run(
                {scenario, spec.params, 0, [&] { return cancelled.load(); }, {}});
        } catch (const CancelledError&) {
            stopped = true;
        }
        const Clock::time_point returned = Clock::now();
        const Clock::time_point cancelledAt = canceller.at();
        if (!stopped && returned < cancelledAt) return; // finished before the cancel
        const double seconds = std::chrono::duration<double>(returned - cancelledAt).count();
        QVERIFY2(returned - cancelledAt <= kReturnWithin,
                 qPrintable(QString("returned %1 s after the cancel").arg(seconds)));
        qInfo("%s %s %.3f s after the cancel", qPrintable(property),
              stopped ? "stopped" : "finished", seconds);
    }
};

QTEST_GUILESS_MAIN(TestCheckCancel)
#include "test_check_cancel.moc"
