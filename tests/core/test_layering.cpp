// SPDX-License-Identifier: GPL-3.0-or-later
// The house plan, checked: every quoted include in core/ and ui/ names its file from the
// repository root and follows an edge of the dependency graph (docs/architecture.md), never up
// or sideways; the core includes no Qt header. And every source file names its licence.
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

/// A folder of the plan and the folders it depends on directly (the edges of the dependency
/// graph, docs/architecture.md): a file may include files of its own folder and of every folder
/// it reaches along the edges. A private folder's headers are its layer's own: only files under
/// `owner` include them.
struct Room {
    QString folder;
    QStringList edges;
    QString owner = {}; // empty: public
};

// Ordered so that the longest folder matching a path is found first.
const Room plan[] = {
    // core: base <- formats <- spec <- backend <- model <- {checks, io} <- explore. In the
    // backend, the interface sits below each backend and the registry above them all; in the
    // checks, the interface and shared pieces below the properties (one folder each, private to
    // the layer) and the registry above them.
    {"core/backend/registry.", {"core/backend/cpu/", "core/backend/opencl/", "core/backend/cuda/"}},
    {"core/backend/shared/", {}, "core/backend/"}, // kernel sources the device backends compile
    {"core/backend/cpu/", {"core/backend/"}},
    {"core/backend/opencl/", {"core/backend/"}, "core/backend/"},
    {"core/backend/cuda/", {"core/backend/"}, "core/backend/"},
    {"core/backend/", {"core/spec/", "core/backend/shared/"}},
    {"core/base/", {}},
    {"core/formats/", {"core/base/"}},
    {"core/spec/", {"core/formats/"}},
    {"core/model/", {"core/backend/registry."}},
    {"core/checks/check_registry.", {"core/checks/properties/"}},
    {"core/checks/properties/", {"core/checks/"}, "core/checks/"},
    {"core/checks/", {"core/model/"}},
    {"core/io/", {"core/model/"}},
    {"core/probe/", {"core/checks/check_registry.", "core/io/"}},
    {"core/explore/", {"core/probe/"}},
    // ui: document <- {views, help, mask} <- {editors, panels} <- the main window
    {"ui/document/", {"core/explore/"}},
    {"ui/views/", {"ui/document/"}},
    {"ui/help/", {"ui/document/"}},
    {"ui/mask/", {"ui/document/"}},
    {"ui/editors/", {"ui/views/", "ui/help/", "ui/mask/"}},
    {"ui/panels/", {"ui/views/", "ui/help/", "ui/mask/"}},
    {"ui/", {"ui/editors/", "ui/panels/"}},
};

const Room* roomOf(const QString& path) {
    for (const Room& room : plan)
        if (path.startsWith(room.folder)) return &room;
    return nullptr;
}

/// Whether `to` is reached from `from` along the plan's edges.
bool reaches(const Room& from, const Room& to) {
    for (const QString& next : from.edges) {
        const Room* room = roomOf(next);
        if (room == &to || (room && reaches(*room, to))) return true;
    }
    return false;
}

/// Why `file` may not include `target` (both relative to the repository root), or "".
QString ruleBroken(const QString& file, const QString& target, bool angled) {
    const bool inCore = file.startsWith("core/");
    if (angled)
        return inCore && target.startsWith('Q') ? "the core includes no Qt header" : QString();
    if (target.endsWith(".moc")) return {};
    const Room* from = roomOf(file);
    const Room* to = roomOf(target);
    if (!from) return "the file lies outside the plan's folders";
    if (!to) return "includes name their file from the repository root (core/<layer>/..., ui/...)";
    if (inCore && !target.startsWith("core/")) return "the core includes nothing outside core/";
    if (!to->owner.isEmpty() && !file.startsWith(to->owner))
        return QString("private: %1 belongs to %2").arg(to->folder, to->owner);
    if (to == from || reaches(*from, *to)) return {};
    return reaches(*to, *from)
               ? QString("upward: %1 is above %2").arg(to->folder, from->folder)
               : QString("sideways: no edge leads from %1 to %2").arg(from->folder, to->folder);
}

/// Every include in core/ and ui/ under `root` that breaks the plan, one line each.
QStringList violations(const QString& root) {
    static const QRegularExpression include("^\\s*#\\s*include\\s*([<\"])([^\">]+)[\">]",
                                            QRegularExpression::MultilineOption);
    QStringList found;
    for (const QString top : {"core", "ui"}) {
        QDirIterator it(root + "/" + top, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            static const QRegularExpression source("\\.(h|cpp|inc|cu|cuh|cl|in)$");
            if (!source.match(path).hasMatch()) continue;
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly)) return {"cannot read " + path};
            const QString rel = path.mid(root.size() + 1);
            const QString text = QString::fromUtf8(f.readAll());
            auto m = include.globalMatch(text);
            while (m.hasNext()) {
                const auto match = m.next();
                const QString why =
                    ruleBroken(rel, match.captured(2), match.captured(1) == QLatin1String("<"));
                if (!why.isEmpty())
                    found << QString("%1: #include %2%3%4: %5")
                                 .arg(rel, match.captured(1), match.captured(2),
                                      match.captured(1) == QLatin1String("<") ? ">" : "\"", why);
            }
        }
    }
    return found;
}

void writeFile(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

} // namespace

class TestLayering : public QObject {
    Q_OBJECT
private slots:
    void theTreeFollowsThePlan() {
        const QString root = QStringLiteral(ATTNLAB_SOURCE_DIR);
        QVERIFY(QFileInfo::exists(root + "/core/base/scalar.h"));
        const QStringList broken = violations(root);
        QVERIFY2(broken.isEmpty(), qPrintable("\n" + broken.join('\n')));
    }

    void brokenRulesAreFound_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("why");
        QTest::newRow("upward") << "core/spec/mask.h"
                                << QByteArray("#include \"core/model/model.h\"\n") << "upward";
        QTest::newRow("formats below spec")
            << "core/formats/npy.cpp" << QByteArray("#include \"core/spec/mask.h\"\n") << "upward";
        QTest::newRow("sideways layers")
            << "core/io/x.cpp" << QByteArray("#include \"core/checks/report_export.h\"\n")
            << "sideways";
        QTest::newRow("sideways backends")
            << "core/backend/cuda/x.cpp" << QByteArray("#include \"core/backend/opencl/y.h\"\n")
            << "sideways";
        QTest::newRow("sideways ui")
            << "ui/views/v.cpp" << QByteArray("#include \"ui/mask/m.h\"\n") << "sideways";
        QTest::newRow("bare name")
            << "core/formats/npy.cpp" << QByteArray("#include \"scalar.h\"\n") << "repository root";
        QTest::newRow("private to its layer")
            << "core/io/x.cpp" << QByteArray("#include \"core/checks/properties/tiling_check.h\"\n")
            << "private";
        QTest::newRow("qt in core")
            << "core/base/x.h" << QByteArray("#include <QString>\n") << "no Qt";
        QTest::newRow("ui from core")
            << "core/explore/x.cpp" << QByteArray("#include \"ui/views/heatmap_view.h\"\n")
            << "nothing outside core";
    }

    void brokenRulesAreFound() {
        QFETCH(QString, file);
        QFETCH(QByteArray, text);
        QFETCH(QString, why);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        writeFile(dir.path() + "/" + file, text);
        writeFile(dir.path() + "/core/base/fine.h",
                  "#include \"core/base/scalar.h\"\n#include <vector>\n");
        const QStringList broken = violations(dir.path());
        QCOMPARE(broken.size(), 1);
        QVERIFY2(broken.front().contains(why), qPrintable(broken.front()));
    }

    /// GPL-3.0-or-later (QCustomPlot is GPL-3.0): every source, build and script file says so in
    /// its first lines; data files are covered by REUSE.toml.
    void everySourceFileNamesItsLicence() {
        const QString root = QStringLiteral(ATTNLAB_SOURCE_DIR);
        static const QRegularExpression source(
            "(\\.(h|cpp|inc|cu|cuh|cl|cmake|sh|py)|CMakeLists\\.txt)$");
        QStringList unlicensed;
        for (const QString top :
             {"core", "ui", "app", "tests", "bench", "fuzz", "cmake", "scripts", "resources"}) {
            QDirIterator it(root + "/" + top, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                if (!source.match(path).hasMatch() || path.contains("/fixtures/") ||
                    path.contains("/corpus/") || path.contains("/.venv/"))
                    continue;
                QFile f(path);
                QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
                if (!f.read(400).contains("SPDX-License-"
                                          "Identifier: GPL-3.0-or-later"))
                    unlicensed << path.mid(root.size() + 1);
            }
        }
        QVERIFY(QFileInfo::exists(root + "/LICENSE"));
        QVERIFY2(unlicensed.isEmpty(), qPrintable("no SPDX line:\n" + unlicensed.join('\n')));
    }

    void downwardIncludesAreAllowed() {
        QTemporaryDir dir;
        writeFile(dir.path() + "/core/explore/a.cpp",
                  "#include \"core/explore/a.h\"\n#include \"core/model/model.h\"\n"
                  "#include \"core/base/scalar.h\"\n");
        writeFile(dir.path() + "/core/backend/registry.cpp",
                  "#include \"core/backend/cuda/c.h\"\n");
        writeFile(dir.path() + "/ui/main_window.cpp",
                  "#include \"ui/panels/p.h\"\n#include <QWidget>\n");
        QCOMPARE(violations(dir.path()), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestLayering)
#include "test_layering.moc"
