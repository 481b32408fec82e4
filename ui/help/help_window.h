// SPDX-License-Identifier: GPL-3.0-or-later
// The user guide inside the application: the Markdown documents of docs/ (shipped as resources)
// in a window of their own, with their headings as a table of contents, back and forward, and
// find in page. Opened from the Help menu, with F1, and from links in a scenario's notes.
#pragma once

#include <QHash>
#include <QSize>
#include <QUrl>
#include <QWidget>

class QLineEdit;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

namespace attnlab::ui {

class HelpWindow : public QWidget {
    Q_OBJECT
public:
    explicit HelpWindow(QWidget* parent = nullptr);

    /// Shows `target`, a document of docs/ with an optional heading slug
    /// ("properties.md#21-permutation-equivariance"), scrolled to that heading; false (and
    /// nothing changes) when there is no such document or heading.
    bool open(const QString& target);
    /// Whether `target` names a shipped document and, when it has a slug, one of its headings.
    static bool hasTarget(const QString& target);
    /// The title of the heading `target` names ("2.1 Permutation equivariance"), or "".
    static QString headingTitle(const QString& target);
    /// The target of the heading numbered `number` ("2.3 Locality ...") in `document`, or "".
    static QString sectionTarget(const QString& document, const QString& number);

    /// The document shown ("properties.md") and the heading it was opened at ("" for the top).
    QString currentDocument() const;
    QString currentHeading() const { return heading_; }
    QTextBrowser* browser() const { return browser_; }
    QTreeWidget* contents() const { return contents_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    bool go(const QUrl& url, bool remember);
    void scrollToHeading();
    void showInContents();
    void fitImages();
    QSize imageSize(const QString& name);
    void findNext();
    void updateButtons();

    QTextBrowser* browser_;
    QTreeWidget* contents_;
    QLineEdit* find_;
    QAction* back_;
    QAction* forward_;
    QList<QUrl> backStack_, forwardStack_;
    QUrl current_;
    QString heading_;
    int scrolledTo_ = 0; // where scrollToHeading left the page
    QHash<QUrl, QSize> imageSizes_;
};

} // namespace attnlab::ui
