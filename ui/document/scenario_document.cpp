// Undoable scenario state.
#include "ui/document/scenario_document.h"

#include "core/base/error.h"
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"
#include "core/io/scenario_writer.h"
#include "core/model/model.h"

#include <QUndoCommand>

namespace {

/// Throws InputError when the state cannot be computed: the scenario's own validation, the
/// precision against the model, and the transformation against n and d.
void validateState(const ExplorerState& s) {
    s.scenario.validate();
    attnlab::checkPrecision(s.scenario.model, s.scenario.precision);
    attnlab::Model<double>(s.scenario.model, s.scenario.d());
    const attnlab::Transform& t = s.transform;
    if (t.kind == attnlab::Transform::Kind::Perturbation &&
        (t.token >= s.scenario.n() || t.feature >= s.scenario.d()))
        throw attnlab::InputError("transform", "the perturbed entry [" + std::to_string(t.token) +
                                                   "][" + std::to_string(t.feature) +
                                                   "] is outside the tokens");
}

} // namespace

class StateCommand : public QUndoCommand {
public:
    StateCommand(ScenarioDocument* doc, std::shared_ptr<const ExplorerState> before,
                 std::shared_ptr<const ExplorerState> after, const QString& what)
        : QUndoCommand(what), doc_(doc), before_(std::move(before)), after_(std::move(after)) {}
    void undo() override { doc_->setCurrent(before_); }
    void redo() override { doc_->setCurrent(after_); }

private:
    ScenarioDocument* doc_;
    std::shared_ptr<const ExplorerState> before_, after_;
};

ScenarioDocument::ScenarioDocument(QObject* parent) : QObject(parent) {
    state_ = std::make_shared<const ExplorerState>(ExplorerState{
        attnlab::loadScenario(std::string("builtin:") + attnlab::kDefaultPreset), {}});
}

bool ScenarioDocument::edit(ExplorerState next, const QString& what) {
    if (next == *state_) return true;
    try {
        validateState(next);
    } catch (const std::exception& e) {
        emit refused(QString::fromStdString(e.what()));
        return false;
    }
    undo_.push(new StateCommand(this, state_,
                                std::make_shared<const ExplorerState>(std::move(next)), what));
    return true;
}

bool ScenarioDocument::editScenario(attnlab::Scenario next, const QString& what) {
    return edit({std::move(next), state_->transform}, what);
}

void ScenarioDocument::reset(const attnlab::Scenario& scenario, const QString& filePath,
                             bool modified) {
    undo_.clear();
    state_ = std::make_shared<const ExplorerState>(ExplorerState{scenario, {}});
    if (filePath_ != filePath) {
        filePath_ = filePath;
        emit filePathChanged(filePath_);
    }
    if (modified) undo_.resetClean(); // an autosave restored: not what is on disk
    emit changed();
}

bool ScenarioDocument::open(const QString& source) {
    try {
        const attnlab::Scenario s = attnlab::loadScenario(source.toStdString());
        validateState({s, {}});
        reset(s, source.startsWith("builtin:") ? QString() : source);
        return true;
    } catch (const std::exception& e) {
        emit refused(QString::fromStdString(e.what()));
        return false;
    }
}

bool ScenarioDocument::saveAs(const QString& path) {
    try {
        attnlab::saveScenarioFile(state_->scenario, path.toStdString());
    } catch (const std::exception& e) {
        emit refused(QString::fromStdString(e.what()));
        return false;
    }
    undo_.setClean();
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
