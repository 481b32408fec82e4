// SPDX-License-Identifier: GPL-3.0-or-later
// The scenario being explored and the transformation applied to it, with undo/redo of every edit
// (consecutive edits of one field, such as the steps of a spin box, are one step), the file it
// came from and whether it has unsaved changes. Widgets read it and send whole new states;
// validation (core/explore/explorer_input.h) happens before a state is accepted, so a refused
// edit changes nothing.
#pragma once

#include "core/model/scenario.h"
#include "core/spec/transform.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <memory>

namespace attnlab::ui {

struct ExplorerState {
    Scenario scenario;
    Transform transform;
    /// Also compares the backend, which Scenario's == leaves out (it is not part of the file).
    bool operator==(const ExplorerState& o) const {
        return scenario == o.scenario && scenario.backend == o.scenario.backend &&
               transform == o.transform;
    }
};

class ScenarioDocument : public QObject {
    Q_OBJECT
public:
    explicit ScenarioDocument(QObject* parent = nullptr);

    const ExplorerState& state() const { return *state_; }
    /// The current state itself, immutable: the undo history and the worker share it, so an
    /// edit copies the scenario (and its rational tokens) once.
    std::shared_ptr<const ExplorerState> sharedState() const { return state_; }
    const Scenario& scenario() const { return state_->scenario; }
    const Transform& transform() const { return state_->transform; }

    /// Fits `next`'s transformation to its tokens (a decode step's m follows n down), validates
    /// it and, when it differs, makes it current as one undoable step called
    /// `what`. Returns false and emits `refused` with the reason when it is invalid. `field`
    /// names the control the edit came from: consecutive edits of one field (a spin box stepped
    /// or dragged) merge into one undo step; an empty field never merges.
    bool edit(ExplorerState next, const QString& what, const QString& field = QString());
    bool editScenario(Scenario next, const QString& what, const QString& field = QString());

    /// Replaces everything (open, preset, new): clears the undo history.
    void reset(const Scenario& scenario, const QString& filePath, bool modified = false);
    /// Reads a scenario file or "builtin:NAME"; on error emits `refused` and keeps the state.
    bool open(const QString& source);
    /// Writes atomically; on error emits `refused` and returns false.
    bool saveAs(const QString& path);

    QString filePath() const { return filePath_; }
    /// Whether the scenario differs from the one last opened or saved (a transformation is not
    /// part of the file, so changing it alone modifies nothing); a restored autosave is.
    bool isModified() const { return !saved_ || !(state_->scenario == *saved_); }
    QUndoStack* undoStack() { return &undo_; }

signals:
    /// The state changed (edit, undo, redo, open).
    void changed();
    /// The scenario was replaced rather than edited (open, new, preset, import, restore): just
    /// before the `changed` that shows it.
    void replaced();
    /// An edit or a file was refused; the message says what is wrong.
    void refused(const QString& message);
    void filePathChanged(const QString& path);

private:
    friend class StateCommand;
    void setCurrent(std::shared_ptr<const ExplorerState> state);

    std::shared_ptr<const ExplorerState> state_;
    QString filePath_;
    std::shared_ptr<const Scenario> saved_; // as last opened or saved; null: never saved
    QUndoStack undo_;
};

} // namespace attnlab::ui
