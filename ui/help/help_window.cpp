// SPDX-License-Identifier: GPL-3.0-or-later
// The help window: Markdown from qrc:/docs/ in a QTextBrowser, headings found by their slugs.
#include "ui/help/help_window.h"

#include "ui/help/doc_links.h"

#include <QAbstractTextDocumentLayout>
#include <QAction>
#include <QDesktopServices>
#include <QFile>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QImage>
#include <QLineEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFragment>
#include <QTextList>
#include <QTimer>
#include <QToolBar>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>

namespace attnlab::ui {

namespace {

// The documents, in the order a reader meets them.
const char* const kDocuments[] = {"user-guide.md", "properties.md", "scenario-format.md", "cli.md"};

struct Heading {
    int level;
    QString title, slug;
};

// The headings of a shipped document, parsed once: the documents are resources and never
// change. Empty for a document that is not shipped.
const QList<Heading>& headingsOf(const QString& document) {
    static QHash<QString, QList<Heading>> parsed;
    auto it = parsed.constFind(document);
    if (it != parsed.constEnd()) return *it;
    QList<Heading> headings;
    QFile file(":/docs/" + document);
    if (file.open(QIODevice::ReadOnly)) {
        QTextDocument doc;
        doc.setMarkdown(QString::fromUtf8(file.readAll()));
        for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
            if (const int level = b.blockFormat().headingLevel(); level > 0)
                headings.push_back({level, b.text(), headingSlug(b.text())});
    }
    return *parsed.insert(document, headings);
}

// The heading `target` names, or nullptr (also for a target without a slug).
const Heading* headingOf(const QString& target) {
    const QUrl url = docUrl(target);
    for (const Heading& h : headingsOf(url.path().section('/', -1)))
        if (url.hasFragment() && h.slug == url.fragment()) return &h;
    return nullptr;
}

// The block of the shown document's heading with this slug, or an invalid block.
QTextBlock headingBlock(const QTextDocument& doc, const QString& slug) {
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
        if (b.blockFormat().headingLevel() > 0 && headingSlug(b.text()) == slug) return b;
    return {};
}

} // namespace

HelpWindow::HelpWindow(QWidget* parent)
    : QWidget(parent, Qt::Window), browser_(new QTextBrowser), contents_(new QTreeWidget),
      find_(new QLineEdit) {
    setWindowTitle("AttnLab Help");
    setObjectName("HelpWindow");
    resize(1100, 760);
    browser_->setOpenLinks(false);
    browser_->viewport()->installEventFilter(this);
    connect(browser_, &QTextBrowser::anchorClicked, this, [this](const QUrl& link) {
        const QUrl url = browser_->source().resolved(link);
        if (url.scheme() == "qrc")
            go(url, true);
        else
            QDesktopServices::openUrl(url);
    });

    contents_->setHeaderHidden(true);
    for (const char* name : kDocuments) {
        QTreeWidgetItem* top = nullptr;
        QTreeWidgetItem* section = nullptr;
        for (const Heading& h : headingsOf(name)) {
            if (h.level > 3 || (h.level > 1 && !top)) continue;
            const QString target = QString(name) + (h.level == 1 ? "" : "#" + h.slug);
            QTreeWidgetItem* item = nullptr;
            if (h.level == 1) {
                if (top) continue; // one title per document
                item = top = new QTreeWidgetItem(contents_, {h.title});
            } else {
                item = new QTreeWidgetItem(h.level == 3 && section ? section : top, {h.title});
                if (h.level == 2) section = item;
            }
            item->setData(0, Qt::UserRole, target);
        }
    }
    connect(contents_, &QTreeWidget::itemActivated, this,
            [this](QTreeWidgetItem* item) { open(item->data(0, Qt::UserRole).toString()); });
    connect(contents_, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem* item) { open(item->data(0, Qt::UserRole).toString()); });

    auto* tools = new QToolBar;
    tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    back_ = tools->addAction(style()->standardIcon(QStyle::SP_ArrowBack), "Back", this, [this] {
        if (backStack_.isEmpty()) return;
        forwardStack_.push_back(current_);
        go(backStack_.takeLast(), false);
    });
    back_->setShortcut(QKeySequence::Back);
    forward_ =
        tools->addAction(style()->standardIcon(QStyle::SP_ArrowForward), "Forward", this, [this] {
            if (forwardStack_.isEmpty()) return;
            backStack_.push_back(current_);
            go(forwardStack_.takeLast(), false);
        });
    forward_->setShortcut(QKeySequence::Forward);
    tools->addAction(style()->standardIcon(QStyle::SP_DirHomeIcon), "User guide", this,
                     [this] { open(kDocuments[0]); });
    tools->addSeparator();
    find_->setPlaceholderText("Find in page (Enter: next)");
    find_->setClearButtonEnabled(true);
    find_->setMaximumWidth(320);
    connect(find_, &QLineEdit::returnPressed, this, &HelpWindow::findNext);
    tools->addWidget(find_);
    auto* findAction = new QAction(this);
    findAction->setShortcut(QKeySequence::Find);
    connect(findAction, &QAction::triggered, this, [this] {
        find_->setFocus();
        find_->selectAll();
    });
    addAction(findAction);

    auto* splitter = new QSplitter;
    splitter->addWidget(contents_);
    splitter->addWidget(browser_);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({300, 800});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tools);
    layout->addWidget(splitter, 1);
    updateButtons();
}

bool HelpWindow::hasTarget(const QString& target) {
    const QUrl url = docUrl(target);
    return url.hasFragment() ? headingOf(target) != nullptr
                             : QFile::exists(":/docs/" + url.path().section('/', -1));
}

QString HelpWindow::headingTitle(const QString& target) {
    const Heading* h = headingOf(target);
    return h ? h->title : QString();
}

QString HelpWindow::sectionTarget(const QString& document, const QString& number) {
    for (const Heading& h : headingsOf(document))
        if (h.title.startsWith(number + " ")) return document + "#" + h.slug;
    return {};
}

bool HelpWindow::open(const QString& target) {
    return go(docUrl(target), true);
}

QString HelpWindow::currentDocument() const {
    return current_.path().section('/', -1);
}

bool HelpWindow::go(const QUrl& url, bool remember) {
    if (!hasTarget(docTarget(url))) return false;
    if (remember && current_.isValid() && url != current_) {
        backStack_.push_back(current_);
        forwardStack_.clear();
    }
    const QUrl page = url.adjusted(QUrl::RemoveFragment);
    if (browser_->source() != page) {
        browser_->setSource(page, QTextDocument::MarkdownResource);
        fitImages();
    }
    current_ = url;
    heading_ = url.fragment();
    const QTextBlock block = headingBlock(*browser_->document(), heading_);
    browser_->setTextCursor(QTextCursor(block.isValid() ? block : browser_->document()->begin()));
    scrollToHeading();
    showInContents();
    updateButtons();
    return true;
}

// The contents entry of what is shown, selected and made visible.
void HelpWindow::showInContents() {
    const QString target = docTarget(current_);
    for (QTreeWidgetItemIterator it(contents_); *it; ++it)
        if ((*it)->data(0, Qt::UserRole).toString() == target) {
            contents_->setCurrentItem(*it);
            contents_->scrollToItem(*it);
            return;
        }
}

// The heading at the top of the page (the text above it may have been laid out again since).
void HelpWindow::scrollToHeading() {
    const QTextBlock block = headingBlock(*browser_->document(), heading_);
    scrolledTo_ = block.isValid()
                      ? int(browser_->document()->documentLayout()->blockBoundingRect(block).top())
                      : 0;
    browser_->verticalScrollBar()->setValue(scrolledTo_);
    scrolledTo_ = browser_->verticalScrollBar()->value();
}

bool HelpWindow::eventFilter(QObject* watched, QEvent* event) {
    if (watched == browser_->viewport() && event->type() == QEvent::Resize) {
        // Re-fit the images and keep the heading in view, unless the reader has scrolled away.
        const bool atHeading = browser_->verticalScrollBar()->value() == scrolledTo_;
        fitImages();
        if (atHeading) QTimer::singleShot(0, this, [this] { scrollToHeading(); });
    }
    return QWidget::eventFilter(watched, event);
}

// Screenshots are wider than the page: each image is drawn at most as wide as the text beside
// it (again whenever the page changes width).
void HelpWindow::fitImages() {
    QTextDocument* doc = browser_->document();
    const qreal page = browser_->viewport()->width() - 2 * doc->documentMargin() - 8;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
        const QTextBlockFormat block = b.blockFormat();
        const int indent = block.indent() + (b.textList() ? b.textList()->format().indent() : 0);
        const qreal widest = qMax(240.0, page - block.leftMargin() - indent * doc->indentWidth());
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (!fragment.charFormat().isImageFormat()) continue;
            QTextImageFormat image = fragment.charFormat().toImageFormat();
            const QSize natural = imageSize(image.name());
            const qreal width = qMin<qreal>(natural.width(), widest);
            if (natural.isEmpty() || qFuzzyCompare(image.width(), width)) continue;
            image.setWidth(width);
            image.setHeight(width * natural.height() / natural.width());
            QTextCursor cursor(doc);
            cursor.setPosition(fragment.position());
            cursor.setPosition(fragment.position() + fragment.length(), QTextCursor::KeepAnchor);
            cursor.setCharFormat(image);
        }
    }
}

// An image's own size in pixels, decoded once.
QSize HelpWindow::imageSize(const QString& name) {
    const QUrl url = browser_->source().resolved(QUrl(name));
    if (auto it = imageSizes_.constFind(url); it != imageSizes_.constEnd()) return *it;
    const QVariant data = browser_->loadResource(QTextDocument::ImageResource, url);
    const QSize size = data.typeId() == QMetaType::QImage
                           ? data.value<QImage>().size()
                           : QImage::fromData(data.toByteArray()).size();
    imageSizes_.insert(url, size);
    return size;
}

void HelpWindow::findNext() {
    const QString text = find_->text();
    if (text.isEmpty() || browser_->find(text)) return;
    browser_->moveCursor(QTextCursor::Start); // wrap around once
    browser_->find(text);
}

void HelpWindow::updateButtons() {
    back_->setEnabled(!backStack_.isEmpty());
    forward_->setEnabled(!forwardStack_.isEmpty());
}

} // namespace attnlab::ui
