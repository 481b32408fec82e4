// SPDX-License-Identifier: GPL-3.0-or-later
// The overwrite question.
#include "ui/views/overwrite_prompt.h"

#include <QFileInfo>
#include <QMessageBox>

namespace attnlab::ui {

QStringList existingFiles(const QStringList& paths) {
    QStringList existing;
    for (const QString& path : paths)
        if (QFileInfo::exists(path)) existing << path;
    return existing;
}

bool confirmOverwrite(QWidget* parent, const QStringList& paths) {
    const QStringList existing = existingFiles(paths);
    if (existing.isEmpty()) return true;
    constexpr qsizetype kNamed = 5;
    QStringList names;
    for (const QString& path : existing.first(std::min(kNamed, existing.size())))
        names << QFileInfo(path).fileName();
    if (existing.size() > kNamed) names << QString("and %1 more").arg(existing.size() - kNamed);
    const QString question =
        existing.size() == 1
            ? QString("%1 exists already. Replace it?").arg(existing.front())
            : QString("%1 files exist already in %2:\n%3\n\nReplace them?")
                  .arg(existing.size())
                  .arg(QFileInfo(existing.front()).absolutePath(), names.join("\n"));
    return QMessageBox::question(parent, "Replace files?", question,
                                 QMessageBox::Yes | QMessageBox::No,
                                 QMessageBox::No) == QMessageBox::Yes;
}

} // namespace attnlab::ui
