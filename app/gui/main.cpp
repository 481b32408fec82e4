// attnlab: the explorer window, opened on the default scenario or on the file (or
// builtin:NAME) given as the first argument.
#include "ui/main_window.h"

#include "core/base/process_tuning.h"
#include "ui/document/compute_service.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

int main(int argc, char** argv) {
    attnlab::restartWithIdleThreadsSleeping(argv);
    attnlab::keepFreedMemoryForReuse();
    QApplication app(argc, argv);
    QApplication::setOrganizationName("AttnLab");
    QApplication::setApplicationName("AttnLab");
    QApplication::setApplicationVersion("0.1.0");
    QCommandLineParser parser;
    parser.setApplicationDescription("Explore the mathematical properties of attention.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("scenario", "a scenario file or builtin:NAME (default: the "
                                             "smallest positional counterexample)");
    const QCommandLineOption screenshot(
        "screenshot",
        "draw the window, save it as <png> once views and verdicts are computed, and quit", "png");
    parser.addOption(screenshot);
    parser.process(app);

    attnlab::ui::MainWindow window;
    if (!parser.positionalArguments().isEmpty())
        window.openSource(parser.positionalArguments().first());
    window.show();
    if (!parser.isSet(screenshot)) window.offerRecovery();
    if (parser.isSet(screenshot)) {
        const QString path = parser.value(screenshot);
        QObject::connect(window.compute(), &attnlab::ui::ComputeService::idle, &window,
                         [&window, path] {
                             // Give the queued replots one more turn of the event loop before
                             // grabbing.
                             QTimer::singleShot(300, &window, [&window, path] {
                                 const bool saved = window.grab().save(path);
                                 QApplication::exit(saved ? 0 : 1);
                             });
                         });
    }
    return app.exec();
}
