// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab: the explorer window, opened on the default scenario, on the file (or builtin:NAME)
// given as the first argument, or on a Hugging Face checkpoint (--model DIR [--text "..."]),
// optionally showing a decode step (--decode M[:top-left]), or probing another program's
// attention (--probe -- PROGRAM ARGS...: everything after "--" is that program's). --help
// and --version are answered before any window system is touched, so they work without a display
// (help2man runs them at build time).
#include "ui/main_window.h"

#include "app/version.h"
#include "core/base/process_tuning.h"
#include "ui/document/comparison_choice.h"
#include "ui/document/compute_service.h"
#include "ui/document/model_import.h"
#include "ui/document/probe_service.h"
#include "ui/document/scenario_document.h"
#include "ui/editors/model_editor.h"
#include "ui/editors/transform_editor.h"
#include "ui/help/help_window.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"
#include "ui/probe_mode.h"

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

namespace {

// The desktop entry, icon and AppStream id (cmake/Install.cmake installs them under this name).
constexpr char kAppId[] = "io.github.attnlab.AttnLab";

struct Options {
    QCommandLineOption screenshot{
        "screenshot",
        "draw the window, save it as <png> once views and verdicts are computed, and quit; with "
        "--guide, the help window",
        "png"};
    QCommandLineOption model{"model",
                             "open the Hugging Face checkpoint in <dir> (config.json and "
                             "safetensors) instead of a scenario",
                             "dir"};
    QCommandLineOption text{
        "text", "with --model, the tokens: <text> through the checkpoint's tokenizer", "text"};
    QCommandLineOption decode{"decode",
                              "show the decode step of the last <m> tokens against a KV cache of "
                              "the others (the transformation \"decode with a KV cache\"); "
                              "<m>:top-left aligns the causal mask top-left",
                              "m"};
    QCommandLineOption shift{"shift",
                             "show every position shifted by <c> (the transformation \"shift "
                             "positions by c\")",
                             "c"};
    QCommandLineOption page{"page",
                            "open the views on <page>: side-by-side, dependencies, overview or "
                            "positions",
                            "page"};
    QCommandLineOption property{"property",
                                "draw the comparison property <name> checks (as selecting it in "
                                "the list does), e.g. logit-symmetry: S beside its transpose",
                                "name"};
    QCommandLineOption presentation{"presentation",
                                    "start in presentation mode (large fonts and lines, F11)"};
    QCommandLineOption probe{
        "probe",
        "probe the attention of the program given after -- as a black box (attnlab --probe -- "
        "/usr/bin/python3 my_attention.py): its input is the token editor's values, its intended "
        "mask the mask editor's, and it is started once and probed again on each edit; File > "
        "Probe Program... offers the other choices"};
    QCommandLineOption guide{"guide",
                             "open the user guide at <page>: a document of the guide with an "
                             "optional heading, e.g. user-guide.md or properties.md#24-causality",
                             "page"};
};

void describe(QCommandLineParser& parser, const Options& options) {
    parser.setApplicationDescription("Explore the mathematical properties of attention.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("scenario", "a scenario file or builtin:NAME (default: the "
                                             "smallest positional counterexample)");
    parser.addOption(options.screenshot);
    parser.addOption(options.model);
    parser.addOption(options.text);
    parser.addOption(options.guide);
    parser.addOption(options.decode);
    parser.addOption(options.shift);
    parser.addOption(options.page);
    parser.addOption(options.property);
    parser.addOption(options.presentation);
    parser.addOption(options.probe);
    parser.addPositionalArgument("-- program",
                                 "with --probe: the program to probe, then its "
                                 "arguments",
                                 "[-- PROGRAM [ARGS...]]");
}

// The views page --page names, or -1.
int pageIndex(const QString& name) {
    const QStringList pages{"side-by-side", "dependencies", "overview", "positions"};
    return int(pages.indexOf(name));
}

// The transformation --decode asks for ("4", "4:top-left", "4:bottom-right"), or nothing when
// the value is not one.
std::optional<attnlab::Transform> decodeOption(const QString& value) {
    const QStringList parts = value.split(':');
    bool ok = false;
    attnlab::Transform t;
    t.kind = attnlab::Transform::Kind::Decode;
    t.queries = parts.front().toInt(&ok);
    if (!ok || parts.size() > 2) return std::nullopt;
    try {
        if (parts.size() == 2) t.alignment = attnlab::parseAlignment(parts[1].toStdString());
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return t;
}

// True when the arguments ask for help or the version (before a "--" that ends the options).
bool asksForHelpOrVersion(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (std::strcmp(a, "--") == 0) return false;
        for (const char* o : {"-h", "--help", "--help-all", "-v", "--version"})
            if (std::strcmp(a, o) == 0) return true;
    }
    return false;
}

void setIdentity() {
    QCoreApplication::setOrganizationName("AttnLab");
    QCoreApplication::setApplicationName("AttnLab");
    QCoreApplication::setApplicationVersion(attnlab::kVersion);
}

} // namespace

int main(int argc, char** argv) {
    const Options options;
    // Everything after "--" is the program --probe runs, kept from the options Qt reads.
    char** const dashes = std::find_if(argv + 1, argv + argc,
                                       [](const char* a) { return std::strcmp(a, "--") == 0; });
    int ownArgc = int(dashes - argv);
    QStringList probeCommand;
    for (char** a = dashes + (dashes < argv + argc ? 1 : 0); a < argv + argc; ++a)
        probeCommand << QString::fromLocal8Bit(*a);
    if (asksForHelpOrVersion(argc, argv)) {
        // A QCoreApplication connects to no display; process() prints and exits.
        QCoreApplication app(ownArgc, argv);
        setIdentity();
        QCommandLineParser parser;
        describe(parser, options);
        parser.process(app);
        return 0;
    }
    attnlab::restartWithIdleThreadsSleeping(argv);
    attnlab::keepFreedMemoryForReuse();
    QApplication app(ownArgc, argv);
    setIdentity();
    QGuiApplication::setDesktopFileName(kAppId);
    // The installed theme icon, else the same drawing compiled in (running from a build).
    QApplication::setWindowIcon(QIcon::fromTheme(kAppId, QIcon(":/icons/attnlab.svg")));
    QCommandLineParser parser;
    describe(parser, options);
    parser.process(app);

    const bool probing = parser.isSet(options.probe);
    if (probing != (dashes < argv + argc) || (probing && probeCommand.isEmpty())) {
        std::fprintf(stderr, "%s\n",
                     probing ? "--probe: give the program after --, e.g. attnlab --probe -- "
                               "/usr/bin/python3 my_attention.py"
                             : "the arguments after -- are a program for --probe to probe");
        return 2;
    }

    attnlab::ui::MainWindow window;
    if (!parser.positionalArguments().isEmpty())
        window.openSource(parser.positionalArguments().first());
    std::optional<attnlab::Transform> transform;
    if (parser.isSet(options.decode)) {
        transform = decodeOption(parser.value(options.decode));
        if (!transform) {
            std::fprintf(stderr, "--decode: expected M or M:top-left, got %s\n",
                         qPrintable(parser.value(options.decode)));
            return 2;
        }
    }
    if (parser.isSet(options.shift)) {
        bool ok = false;
        transform.emplace();
        transform->kind = attnlab::Transform::Kind::Shift;
        transform->shift = parser.value(options.shift).toLong(&ok);
        if (!ok) {
            std::fprintf(stderr, "--shift: expected an integer, got %s\n",
                         qPrintable(parser.value(options.shift)));
            return 2;
        }
    }
    if (transform) {
        attnlab::ui::ExplorerState next = window.document()->state();
        next.transform = *transform;
        window.document()->edit(next, "transformation"); // refused: the banner says why
        window.showEditorTab(window.transformEditor());
    }
    if (parser.isSet(options.page)) {
        const int page = pageIndex(parser.value(options.page));
        if (page < 0) {
            std::fprintf(stderr,
                         "--page: expected side-by-side, dependencies, overview or "
                         "positions, got %s\n",
                         qPrintable(parser.value(options.page)));
            return 2;
        }
        // Once the first answer is drawn: showing a failing property's witness turns the page.
        QObject::connect(
            window.compute(), &attnlab::ui::ComputeService::idle, &window,
            [&window, page] { window.views()->tabs()->setCurrentIndex(page); },
            Qt::SingleShotConnection);
    }
    if (parser.isSet(options.property)) {
        const QString name = parser.value(options.property);
        const auto checks = attnlab::panelChecks(window.document()->scenario(), {});
        if (std::none_of(checks.begin(), checks.end(),
                         [&](const auto& c) { return c.name == name.toStdString(); })) {
            std::fprintf(stderr, "--property: no property called %s\n", qPrintable(name));
            return 2;
        }
        window.comparison()->followProperty(name, nullptr);
        QObject::connect( // its row selected once the list has it, its explanation shown
            window.compute(), &attnlab::ui::ComputeService::checksStarted, &window,
            [&window, name] { window.properties()->select(name); }, Qt::SingleShotConnection);
    }
    window.show();
    // Once shown, so that presentation mode widens the verdicts from their laid-out width.
    if (parser.isSet(options.presentation))
        if (auto* presentation = window.findChild<QAction*>("presentation"))
            presentation->trigger();
    QWidget* shown = &window;
    if (parser.isSet(options.guide)) shown = window.showHelp(parser.value(options.guide));
    if (!parser.isSet(options.screenshot)) window.offerRecovery();
    // The probe starts once the scenario it probes is open (a scenario opened ends probe mode).
    const auto startProbe = [&window, probeCommand] {
        attnlab::ui::ProbeChoice choice; // the token editor's values, persistent, its mask
        choice.command = probeCommand;
        choice.maskLayer = window.modelEditor()->currentLayer();
        window.probe()->start(choice);
    };
    // Grabs the window once the worker has answered the scenario shown (with --model: the
    // imported one, the default scenario's answer coming first), and the probe its program.
    const auto screenshotWhenIdle = [&] {
        const QString path = parser.value(options.screenshot);
        const auto grab = [&window, shown, path] {
            if (window.compute()->isBusy() || window.probe()->service()->isRunning()) return;
            // Give the queued replots one more turn of the event loop before grabbing.
            QTimer::singleShot(300, &window, [shown, path] {
                const bool saved = shown->grab().save(path);
                QApplication::exit(saved ? 0 : 1);
            });
        };
        using attnlab::ui::ProbeService;
        QObject::connect(window.compute(), &attnlab::ui::ComputeService::idle, &window, grab);
        QObject::connect(window.probe()->service(), &ProbeService::finished, &window, grab);
        QObject::connect(window.probe()->service(), &ProbeService::failed, &window, grab);
    };
    if (parser.isSet(options.model)) {
        std::optional<QString> text;
        if (parser.isSet(options.text)) text = parser.value(options.text);
        if (parser.isSet(options.screenshot)) {
            QObject::connect(window.modelImport(), &attnlab::ui::ModelImport::imported, &window,
                             screenshotWhenIdle, Qt::SingleShotConnection);
            QObject::connect(window.modelImport(), &attnlab::ui::ModelImport::failed, &window,
                             [](const QString& message) {
                                 std::fprintf(stderr, "%s\n", qPrintable(message));
                                 QApplication::exit(1);
                             });
        }
        if (probing)
            QObject::connect(window.modelImport(), &attnlab::ui::ModelImport::imported, &window,
                             startProbe, Qt::SingleShotConnection);
        window.openModel(parser.value(options.model), text);
    } else {
        if (parser.isSet(options.screenshot)) screenshotWhenIdle();
        if (probing) startProbe();
    }
    return app.exec();
}
