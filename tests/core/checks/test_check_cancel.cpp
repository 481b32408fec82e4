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
#include <future>
#include <memory>
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

/// A check running on a thread of its own, with everything it reads: a check the bound finds
/// still running is left to finish by itself, so this outlives the test that started it.
struct RunningCheck {
    Scenario scenario;
    CheckSpec spec;
    std::atomic<bool> cancelled = false;
    std::promise<bool> done; // true: it stopped on the cancel (CancelledError)
};

std::future<bool> start(const std::shared_ptr<RunningCheck>& run) {
    std::future<bool> done = run->done.get_future();
    std::thread([run] {
        try {
            findPropertyCheck(run->spec.name)
                ->run({run->scenario,
                       run->spec.params,
                       0,
                       [&] { return run->cancelled.load(); },
                       {}});
            run->done.set_value(false);
        } catch (const CancelledError&) {
            run->done.set_value(true);
        } catch (...) {
            run->done.set_exception(std::current_exception());
        }
    }).detach();
    return done;
}

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
        auto run = std::make_shared<RunningCheck>();
        run->scenario = largeScenario(Precision(precision), largeTokenCount(Precision(precision)));
        for (const CheckSpec& c : panelChecks(run->scenario, {}))
            if (c.name == property.toStdString()) run->spec = c;
        std::future<bool> done = start(run);
        if (done.wait_for(kRunFor) == std::future_status::ready) {
            done.get(); // finished before the cancel: nothing to stop
            return;
        }
        const Clock::time_point cancelledAt = Clock::now();
        run->cancelled = true;
        const bool returned = done.wait_for(kReturnWithin) == std::future_status::ready;
        const double seconds = std::chrono::duration<double>(Clock::now() - cancelledAt).count();
        QVERIFY2(
            returned,
            qPrintable(QString("still running %1 s after the cancel").arg(kReturnWithin.count())));
        // Cancelled, or done just before it saw the flag.
        qInfo("%s %s %.3f s after the cancel", qPrintable(property),
              done.get() ? "stopped" : "finished", seconds);
    }
};

QTEST_GUILESS_MAIN(TestCheckCancel)
#include "test_check_cancel.moc"
