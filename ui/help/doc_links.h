// SPDX-License-Identifier: GPL-3.0-or-later
// How the application names places in its own documentation (docs/, shipped as resources under
// qrc:/docs/): a heading's slug, as GitHub makes it, and references such as
// `docs/properties.md#21-permutation-equivariance` written in a scenario's notes.
#pragma once

#include <QString>
#include <QUrl>

#include <functional>

namespace attnlab::ui {

/// GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores
/// kept), spaces turned into hyphens. "2.1 Permutation equivariance" →
/// "21-permutation-equivariance".
QString headingSlug(const QString& heading);

/// The resource URL of `target`, a document of docs/ with an optional slug
/// ("properties.md#21-permutation-equivariance", or with a leading "docs/").
QUrl docUrl(const QString& target);
/// The target a docUrl (or a link resolved against one) names: "properties.md#21-...".
QString docTarget(const QUrl& url);

/// `html` (already escaped) with every `docs/NAME.md` or `docs/NAME.md#SLUG` made a link whose
/// URL is docUrl's. The link reads `textFor(reference)` when that is not empty (a heading's
/// title), else the reference itself.
QString linkDocReferences(const QString& html,
                          const std::function<QString(const QString&)>& textFor = {});

} // namespace attnlab::ui
