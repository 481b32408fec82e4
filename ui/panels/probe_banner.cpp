// SPDX-License-Identifier: GPL-3.0-or-later
// The probing line above the verdicts (probe_banner.h).
#include "ui/panels/probe_banner.h"

#include "core/probe/program_runner.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace attnlab::ui {

namespace {

/// The command as one line, quoted where a word needs it (ProgramCommand::display); `shorten`:
/// the arguments that name files by the files' names (the program, an interpreter, as given).
QString commandLine(const QStringList& command, bool shorten) {
    ProgramCommand c;
    for (int i = 0; i < command.size(); ++i) {
        const QFileInfo file(command[i]);
        const bool named = shorten && i > 0 && command[i].contains('/') && file.isFile();
        c.argv.push_back((named ? file.fileName() : command[i]).toStdString());
    }
    return QString::fromStdString(c.display());
}

} // namespace

ProbeBanner::ProbeBanner(QWidget* parent)
    : QFrame(parent), label_(new QLabel), stop_(new QPushButton("Stop probing")) {
    setObjectName("probeBanner");
    setStyleSheet("#probeBanner { background: #dbe9f6; border: 1px solid #2166ac; }"
                  " QLabel { color: #0b2e59; }");
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stop_->setToolTip("End probe mode (the program is stopped) and show the model's own checks "
                      "again");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(label_, 1);
    layout->addWidget(stop_, 0, Qt::AlignVCenter);
    connect(stop_, &QPushButton::clicked, this, &ProbeBanner::stopRequested);
}

void ProbeBanner::setCommand(const QStringList& command) {
    command_ = commandLine(command, true);
    setToolTip(commandLine(command, false));
    refresh();
}

void ProbeBanner::setStatus(const QString& status) {
    status_ = status;
    refresh();
}

QString ProbeBanner::text() const {
    return QString("Probing: %1 — %2").arg(command_, status_);
}

void ProbeBanner::refresh() {
    label_->setText(
        QString("<b>Probing:</b> %1 — %2").arg(command_.toHtmlEscaped(), status_.toHtmlEscaped()));
}

} // namespace attnlab::ui
