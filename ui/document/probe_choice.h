// SPDX-License-Identifier: GPL-3.0-or-later
// What the user chose to probe (File > Probe Program…, or `attnlab --probe -- PROGRAM ARGS...`):
// the program and how to run it, the input (the token editor's values, or tokens drawn from a
// seed) and the intended mask (the mask editor's, a specification or a .npy file, or none). The
// settings of a probe are made from it and the document's current state each time it runs, so
// that an edit of the tokens or of that mask is probed.
#pragma once

#include "ui/document/probe_service.h"
#include "ui/document/scenario_document.h"

#include <QString>
#include <QStringList>

namespace attnlab::ui {

struct ProbeChoice {
    QStringList command; // the program, then its arguments
    bool persistent = true;
    int timeoutSeconds = 120;
    enum class Input { Tokens, Drawn };
    Input input = Input::Tokens;
    int tokens = 16, features = 8; // Drawn: n x d standard normals from `seed`
    qulonglong seed = 1;
    enum class Mask { Editor, None, Specification };
    Mask mask = Mask::Editor;
    int maskLayer = 0; // Editor: the layer whose mask
    QString maskSpec;  // Specification: causal, window:3, ... or a .npy file
};

/// The reports' name for the mask editor's mask of `layer`.
QString editorMaskText(int layer);

/// The probe `choice` asks for on `state`: the state's tokens when the input is the token
/// editor's, the mask of the chosen layer for as many tokens. Throws InputError when the model no
/// longer has that layer.
ProbeSettings probeSettings(const ProbeChoice& choice, const ExplorerState& state);

} // namespace attnlab::ui
