// SPDX-License-Identifier: GPL-3.0-or-later
// Importing a checkpoint on a worker thread.
#include "ui/document/model_import.h"

#include "core/explore/explorer_input.h"
#include "core/io/hf_import.h"

#include <QDir>
#include <QMetaObject>

#include <numeric>

namespace attnlab::ui {

namespace {

/// The checkpoint's scenario on `text` (else the default tokens), and the text tokenised.
std::pair<Scenario, std::optional<std::string>>
importWithTokens(const std::filesystem::path& directory, std::optional<std::string> text) {
    ImportRequest request{directory, text, {}};
    if (!text) {
        request.ids.resize(ModelImport::kDefaultIds);
        std::iota(request.ids.begin(), request.ids.end(), 0LL);
    }
    Scenario s = importScenario(request);
    if (!text && s.model.checkpoint && s.model.checkpoint->tokenizer) {
        text = ModelImport::kDefaultText;
        s.tokens = checkpointText(*s.model.checkpoint, *text);
    }
    validateExplorerInput(s, {});
    return {std::move(s), text};
}

} // namespace

ModelImport::ModelImport(QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(1);
}

ModelImport::~ModelImport() {
    ++generation_;
    pool_.waitForDone();
}

void ModelImport::start(const QString& directory, const std::optional<QString>& text) {
    const quint64 generation = ++generation_;
    busy_ = true;
    emit started(directory);
    const QString absolute = QDir(directory).absolutePath();
    std::optional<std::string> utf8;
    if (text) utf8 = text->toStdString();
    pool_.start([this, generation, absolute, utf8] {
        std::optional<Scenario> scenario;
        QString text, message;
        try {
            auto [imported, sentence] = importWithTokens(absolute.toStdString(), utf8);
            scenario = std::move(imported);
            if (sentence) text = QString::fromStdString(*sentence);
        } catch (const std::exception& e) {
            message = QString("Could not open the model in %1: %2").arg(absolute, e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, generation, scenario = std::move(scenario), text, message] {
                if (generation != generation_) return;
                busy_ = false;
                if (scenario)
                    emit imported(*scenario, text);
                else
                    emit failed(message);
            },
            Qt::QueuedConnection);
    });
}

} // namespace attnlab::ui
