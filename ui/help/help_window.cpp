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

QString markdownOf(const QString& document) {
    QFile file(":/docs/" + document);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// The block of the heading with this slug, or an invalid block.
QTextBlock headingBlock(const QTextDocument& doc, const QString& slug) {
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
        if (b.blockFormat().headingLevel() > 0 && headingSlug(b.text()) == slug) return b;
    return {};
}

QString documentName(const QUrl& url) {
    return url.path().section('/', -1);
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
        QTextDocument doc;
        doc.setMarkdown(markdownOf(name));
        QTreeWidgetItem* top = nullptr;
        QTreeWidgetItem* section = nullptr;
        for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
            const int level = b.blockFormat().headingLevel();
            if (level < 1 || level > 3) continue;
            const QString target = QString(name) + (level == 1 ? "" : "#" + headingSlug(b.text()));
            if (level == 1 && !top) {
                top = new QTreeWidgetItem(contents_, {b.text()});
                top->setData(0, Qt::UserRole, target);
                continue;
            }
            if (!top) continue;
            QTreeWidgetItem* parentItem = level == 3 && section ? section : top;
            auto* item = new QTreeWidgetItem(parentItem, {b.text()});
            item->setData(0, Qt::UserRole, target);
            if (level == 2) section = item;
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
    const QString markdown = markdownOf(documentName(url));
    if (markdown.isEmpty()) return false;
    if (!url.hasFragment()) return true;
    QTextDocument doc;
    doc.setMarkdown(markdown);
    return headingBlock(doc, url.fragment()).isValid();
}

QString HelpWindow::headingTitle(const QString& target) {
    const QUrl url = docUrl(target);
    QTextDocument doc;
    doc.setMarkdown(markdownOf(documentName(url)));
    return headingBlock(doc, url.fragment()).text();
}

QString HelpWindow::sectionTarget(const QString& document, const QString& number) {
    static QHash<QString, QString> found; // the documents are resources: they never change
    const QString key = document + "§" + number;
    if (auto it = found.constFind(key); it != found.constEnd()) return *it;
    QString& target = found[key];
    QTextDocument doc;
    doc.setMarkdown(markdownOf(document));
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
        if (b.blockFormat().headingLevel() > 0 && b.text().startsWith(number + " ")) {
            target = document + "#" + headingSlug(b.text());
            break;
        }
    return target;
}

bool HelpWindow::open(const QString& target) {
    return go(docUrl(target), true);
}

QString HelpWindow::currentDocument() const {
    return documentName(current_);
}

bool HelpWindow::go(const QUrl& url, bool remember) {
    if (!hasTarget(url.path().section('/', -1) + (url.hasFragment() ? "#" + url.fragment() : "")))
        return false;
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
    const QString target = currentDocument() + (heading_.isEmpty() ? "" : "#" + heading_);
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
