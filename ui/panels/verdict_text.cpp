// SPDX-License-Identifier: GPL-3.0-or-later
// A report in the verdict panel's words.
#include "ui/panels/verdict_text.h"

#include "core/checks/check_registry.h"
#include "core/checks/report_prose.h"
#include "ui/help/doc_links.h"
#include "ui/help/property_guide.h"

#include <QStringList>

using attnlab::Verdict;

namespace attnlab::ui {

namespace {

QString htmlEscaped(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}

/// Links to the guide's subsection on `name` (how to read it in the window) and to its section of
/// the mathematics, those that exist.
QString documentationLinks(const QString& name) {
    QStringList links;
    const QString shown = displayName(name).toHtmlEscaped();
    if (const QString guide = guideTarget(name); !guide.isEmpty())
        links << QString("<a href=\"%1\">How to read %2 in the window: the user guide</a>")
                     .arg(docUrl(guide).toString(), shown);
    if (const QString maths = mathematicsTarget(name); !maths.isEmpty())
        links << QString("<a href=\"%1\">What %2 means: properties.md §%3</a>")
                     .arg(docUrl(maths).toString(), shown,
                          QString::fromStdString(attnlab::propertySection(name.toStdString())));
    return links.isEmpty() ? QString() : "<p>" + links.join("<br>") + "</p>";
}

/// What was checked and the witness in words: two sentences and a table of the other values.
QString proseHtml(const attnlab::ReportProse& prose, const QString& witnessTitle, bool witness) {
    QString html;
    if (!prose.checked.empty()) html += "<p><b>checked</b> " + htmlEscaped(prose.checked) + "</p>";
    if (!witness) return html;
    html += "<p><b>" + witnessTitle + "</b> " + htmlEscaped(prose.witness) + "</p>";
    if (prose.table.empty()) return html;
    html += "<table cellspacing=\"0\" cellpadding=\"2\">";
    for (const auto& [label, value] : prose.table)
        html += "<tr><td>" + htmlEscaped(label) + "</td><td>" + htmlEscaped(value) + "</td></tr>";
    return html + "</table>";
}

} // namespace

QString valueText(const attnlab::ReportNumber& v) {
    if (v.isFloat()) return QString::number(v.toDouble(), 'g', 4);
    return QString::fromStdString(v.text());
}

QString verdictLabel(Verdict v) {
    const char* symbol = v == Verdict::Holds ? "✓" : v == Verdict::Fails ? "✗" : "–";
    return QString("%1 %2").arg(symbol, attnlab::verdictName(v));
}

QColor verdictColour(Verdict v) {
    switch (v) {
    case Verdict::Holds:
        return QColor(33, 102, 172);
    case Verdict::Fails:
        return QColor(204, 85, 0);
    case Verdict::NotApplicable:
        break;
    }
    return QColor(128, 128, 128);
}

QString displayName(const QString& name) {
    return QString::fromStdString(attnlab::propertyDisplayName(name.toStdString()));
}

QString unreportedDetailsHtml(const QString& name, const QString& state, const QString& error) {
    if (state == kComputing) return "<i>computing…</i>";
    const QString why = state == "not run"
                            ? "It sweeps every token, which inputs this large do not do on each "
                              "edit: press Run all to run it."
                        : state == "cancelled"
                            ? "Its check was stopped before it finished: press Run all to run it."
                            : error.toHtmlEscaped();
    return QString("<h3>%1 — %2</h3><p>%3</p>")
        .arg(name.toHtmlEscaped(), state.toHtmlEscaped(), why);
}

QString reportDetailsHtml(const attnlab::PropertyReport& r, bool shrunk, bool showJson) {
    QString html = QString("<h3>%1 — <span style='color:%2'>%3</span></h3><p>%4</p>")
                       .arg(displayName(QString::fromStdString(r.name)).toHtmlEscaped(),
                            verdictColour(r.verdict).name(), verdictLabel(r.verdict),
                            htmlEscaped(r.explanation));
    if (r.verdict != Verdict::NotApplicable)
        html +=
            QString("<p><b>max deviation</b> %1, <b>tolerance</b> %2 (%3)<br><small>%4</small></p>")
                .arg(valueText(r.maxDeviation).toHtmlEscaped(),
                     valueText(r.tolerance).toHtmlEscaped(), r.exact ? "exact" : "float",
                     htmlEscaped(r.toleranceRule));
    const bool useShrunk = shrunk && r.shrunkWitness;
    html +=
        proseHtml(attnlab::describeReport(r, useShrunk), useShrunk ? "smallest witness" : "witness",
                  (useShrunk ? r.shrunkWitness : r.witness).has_value());
    // The JSON `check --json` writes, one click away and selectable (or copied whole).
    html += QString("<p><a href=\"%1\">%2 the JSON</a> · <a href=\"%3\">copy it</a></p>")
                .arg(kShowJsonLink, showJson ? "Hide" : "Show", kCopyJsonLink);
    if (showJson)
        html += "<pre style=\"white-space: pre-wrap\">" +
                htmlEscaped(attnlab::reportJson(r).dump(1)) + "</pre>";
    return html + documentationLinks(QString::fromStdString(r.name));
}

} // namespace attnlab::ui
