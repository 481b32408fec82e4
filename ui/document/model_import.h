// SPDX-License-Identifier: GPL-3.0-or-later
// File → Open model: a Hugging Face checkpoint directory imported off the GUI thread (reading
// config.json and the embedding, and validating the model, can take seconds for a large one).
// The tokens are the given text, else a default sentence when the checkpoint has a tokenizer,
// else the ids 0..7. The window is told the scenario or the problem; nothing changes meanwhile.
#pragma once

#include "core/model/scenario.h"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <optional>

namespace attnlab::ui {

class ModelImport : public QObject {
    Q_OBJECT
public:
    /// Tokens of a checkpoint with a tokenizer when no text is given.
    static constexpr const char* kDefaultText = "The quick brown fox jumps over the lazy dog";
    /// Token ids of a checkpoint without a tokenizer: 0..kDefaultIds-1.
    static constexpr int kDefaultIds = 8;

    explicit ModelImport(QObject* parent = nullptr);
    ~ModelImport() override;

    /// Starts importing `directory`, tokenising `text` when given; a running import is
    /// superseded (its result dropped).
    void start(const QString& directory, const std::optional<QString>& text = std::nullopt);
    bool isBusy() const { return busy_; }

signals:
    void started(const QString& directory);
    /// `text`: the sentence the tokens are (empty when they are the default ids).
    void imported(const attnlab::Scenario& scenario, const QString& text);
    /// The message names the directory and the problem.
    void failed(const QString& message);

private:
    QThreadPool pool_;
    quint64 generation_ = 0;
    bool busy_ = false;
};

} // namespace attnlab::ui
