// SPDX-License-Identifier: GPL-3.0-or-later
// A probe's settings from the user's choice and the document (probe_choice.h).
#include "ui/document/probe_choice.h"

#include "core/base/error.h"
#include "core/spec/mask.h"

namespace attnlab::ui {

QString editorMaskText(int layer) {
    return QString("the mask editor's mask (layer %1)").arg(layer);
}

ProbeSettings probeSettings(const ProbeChoice& choice, const ExplorerState& state) {
    ProbeSettings settings;
    for (const QString& word : choice.command)
        settings.command.argv.push_back(word.toStdString());
    settings.persistent = choice.persistent;
    settings.timeout = std::chrono::seconds(choice.timeoutSeconds);
    ProbeRequest& request = settings.request;
    const Scenario& scenario = state.scenario;
    if (choice.input == ProbeChoice::Input::Tokens) {
        request.input = scenario.tokens.materialize<double>();
    } else {
        request.tokens = choice.tokens;
        request.features = choice.features;
        request.seed = choice.seed;
    }
    if (choice.mask == ProbeChoice::Mask::Specification) {
        request.mask = choice.maskSpec.trimmed().toStdString();
        if (request.mask.empty()) throw InputError("the probe's mask specification is empty");
    } else if (choice.mask == ProbeChoice::Mask::Editor) {
        const auto& layers = scenario.model.layers;
        if (choice.maskLayer < 0 || choice.maskLayer >= int(layers.size()))
            throw InputError(editorMaskText(choice.maskLayer).toStdString() +
                             ": the model has no such layer now");
        const int n = request.input ? int(request.input->rows()) : request.tokens;
        request.maskMatrix = buildMask(layers[std::size_t(choice.maskLayer)].mask, n);
        request.maskMatrixText = editorMaskText(choice.maskLayer).toStdString();
    }
    return settings;
}

} // namespace attnlab::ui
