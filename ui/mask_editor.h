// Editing one layer's attention mask: a kind with its parameters, cells painted by click/drag,
// and/or/not combinations, the rows left with no key, a block view at a tile size and a mask diff
// against the conventions popular libraries use. Sends the edited MaskSpec; computes nothing.
#pragma once

#include "mask.h"

#include <QWidget>

class MaskEditor : public QWidget {
    Q_OBJECT
public:
    explicit MaskEditor(QWidget* parent = nullptr);
    /// Shows `mask` for n tokens. Does not emit maskEdited.
    void setMask(const attnlab::MaskSpec& mask, int n);
    attnlab::MaskSpec mask() const;

signals:
    /// The user changed the mask (kind, parameter, painted cell, combination).
    void maskEdited(const attnlab::MaskSpec& mask);
};
