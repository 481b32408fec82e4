// SPDX-License-Identifier: GPL-3.0-or-later
// Asking before an export replaces files that exist: one question for one file or a batch.
#pragma once

#include <QStringList>

class QWidget;

namespace attnlab::ui {

/// The paths of `paths` that name existing files.
QStringList existingFiles(const QStringList& paths);

/// True when none of `paths` exists, or when the user agrees (a question over `parent` naming
/// the existing files) to replace those that do; false when the user declines.
bool confirmOverwrite(QWidget* parent, const QStringList& paths);

} // namespace attnlab::ui
