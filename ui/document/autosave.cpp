// SPDX-License-Identifier: GPL-3.0-or-later
// Periodic autosave of unsaved changes.
#include "ui/document/autosave.h"

#include "core/io/scenario_writer.h"
#include "ui/document/scenario_document.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>

namespace attnlab::ui {

Autosave::Autosave(ScenarioDocument* document, const QString& directory, int intervalMs,
                   QObject* parent)
    : QObject(parent), document_(document), directory_(directory) {
    connect(document_, &ScenarioDocument::changed, this, [this] { ++generation_; });
    connect(&timer_, &QTimer::timeout, this, &Autosave::saveNow);
    timer_.setInterval(intervalMs);
}

QString Autosave::defaultDirectory() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
}

QString Autosave::filePath() const {
    return QDir(directory_).filePath("autosave.json");
}

bool Autosave::hasRecovery() const {
    return QFile::exists(filePath());
}

bool Autosave::saveNow() {
    if (!document_->isModified()) {
        if (generation_ != savedGeneration_) discard(); // saved or undone back to the file
        savedGeneration_ = generation_;
        return false;
    }
    if (generation_ == savedGeneration_ && QFile::exists(filePath())) return false;
    try {
        QDir().mkpath(directory_);
        saveScenarioFile(document_->scenario(), filePath().toStdString());
    } catch (const std::exception& e) {
        emit document_->refused(QString("autosave failed: %1").arg(e.what()));
        return false;
    }
    savedGeneration_ = generation_;
    emit saved(filePath());
    return true;
}

void Autosave::discard() {
    QFile::remove(filePath());
}

} // namespace attnlab::ui
