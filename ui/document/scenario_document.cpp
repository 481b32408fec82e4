// SPDX-License-Identifier: GPL-3.0-or-later
// Undoable scenario state.
#include "ui/document/scenario_document.h"

#include "core/explore/explorer_input.h"
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"
#include "core/io/scenario_writer.h"

#include <QUndoCommand>

namespace attnlab::ui {

/// One accepted edit. Consecutive edits of the same non-empty field merge: the step then
/// leads from the first one's state to the last one's, and vanishes when they are equal.
class StateCommand : public QUndoCommand {
public:
    StateCommand(ScenarioDocument* doc, std::shared_ptr<const ExplorerState> before,
                 std::shared_ptr<const ExplorerState> after, const QString& what,
                 const QString& field)
        : QUndoCommand(what), doc_(doc), before_(std::move(before)), after_(std::move(after)),
          field_(field) {}
    void undo() override { doc_->setCurrent(before_); }
    void redo() override { doc_->setCurrent(after_); }
    int id() const override { return field_.isEmpty() ? -1 : kFieldEdit; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = static_cast<const StateCommand*>(other);
        if (next->field_ != field_) return false;
        after_ = next->after_;
        setText(next->text());
        setObsolete(*after_ == *before_);
        return true;
    }

private:
    static constexpr int kFieldEdit = 1;
    ScenarioDocument* doc_;
    std::shared_ptr<const ExplorerState> before_, after_;
    QString field_;
};

ScenarioDocument::ScenarioDocument(QObject* parent) : QObject(parent) {
    state_ = std::make_shared<const ExplorerState>(
        ExplorerState{loadScenario(std::string("builtin:") + kDefaultPreset), {}});
    saved_ = std::make_shared<const Scenario>(state_->scenario);
}

bool ScenarioDocument::edit(ExplorerState next, const QString& what, const QString& field) {
    next.transform = fittedToTokens(std::move(next.transform), next.scenario); // m follows n
    if (next == *state_) return true;
    try {
        validateExplorerInput(next.scenario, next.transform);
    } catch (const std::exception& e) {
        emit refused(QString::fromStdString(e.what()));
        return false;
    }
    undo_.push(new StateCommand(
        this, state_, std::make_shared<const ExplorerState>(std::move(next)), what, field));
    return true;
}

bool ScenarioDocument::editScenario(Scenario next, const QString& what, const QString& field) {
    return edit({std::move(next), state_->transform}, what, field);
}

void ScenarioDocument::reset(const Scenario& scenario, const QString& filePath, bool modified) {
    undo_.clear();
    state_ = std::make_shared<const ExplorerState>(ExplorerState{scenario, {}});
    if (filePath_ != filePath) {
        filePath_ = filePath;
        emit filePathChanged(filePath_);
    }
    // An autosave restored is not what is on disk.
    saved_ = modified ? nullptr : std::make_shared<const Scenario>(state_->scenario);
    emit replaced();
    emit changed();
}

bool ScenarioDocument::open(const QString& source) {
    try {
        const Scenario s = loadScenario(source.toStdString());
        validateExplorerInput(s, {});
        reset(s, source.startsWith("builtin:") ? QString() : source);
        return true;
    } catch (const std::exception& e) {
        emit refused(QString::fromStdString(e.what()));
        return false;
    }
}

bool ScenarioDocument::saveAs(const QString& path) {
    try {
        saveScenarioFile(state_->scenario, path.toStdString());
    } catch (const std::exception& e) {
        emit refused(QString::fromStdString(e.what()));
        return false;
    }
    saved_ = std::make_shared<const Scenario>(state_->scenario);
    if (filePath_ != path) {
        filePath_ = path;
        emit filePathChanged(filePath_);
    }
    return true;
}

void ScenarioDocument::setCurrent(std::shared_ptr<const ExplorerState> state) {
    state_ = std::move(state);
    emit changed();
}

} // namespace attnlab::ui
