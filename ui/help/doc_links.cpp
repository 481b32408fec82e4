// SPDX-License-Identifier: GPL-3.0-or-later
// Heading slugs and links into the shipped documentation.
#include "ui/help/doc_links.h"

#include <QRegularExpression>

namespace attnlab::ui {

QString headingSlug(const QString& heading) {
    QString slug;
    for (const QChar c : heading.trimmed().toLower()) {
        if (c.isLetterOrNumber() || c == '-' || c == '_')
            slug += c;
        else if (c == ' ')
            slug += '-';
    }
    return slug;
}

QUrl docUrl(const QString& target) {
    QString path = target;
    if (path.startsWith("docs/")) path.remove(0, 5);
    return QUrl("qrc:/docs/" + path);
}

QString docTarget(const QUrl& url) {
    return url.path().section('/', -1) + (url.hasFragment() ? "#" + url.fragment() : "");
}

QString linkDocReferences(const QString& html,
                          const std::function<QString(const QString&)>& textFor) {
    static const QRegularExpression reference(R"(docs/[A-Za-z0-9_-]+\.md(#[A-Za-z0-9_-]+)?)");
    QString linked;
    qsizetype from = 0;
    for (auto it = reference.globalMatch(html); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        linked += html.mid(from, m.capturedStart() - from);
        const QString text = textFor ? textFor(m.captured()) : QString();
        linked += QString("<a href=\"%1\">%2</a>")
                      .arg(docUrl(m.captured()).toString(),
                           text.isEmpty() ? m.captured() : text.toHtmlEscaped());
        from = m.capturedEnd();
    }
    return linked + html.mid(from);
}

} // namespace attnlab::ui
