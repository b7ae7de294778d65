"""Find text a user cannot read whole: cut header sections, tree columns, combo boxes,
buttons and one-line labels narrower than their text.

A lead saw "ount differen" in presentation mode, "agreement 0.3…" in the tree and a cut
scheme box. Each of those is a widget whose text needs more width than it was given;
this walks the visible widgets of a window and names every such one. Measured with the
widget's own font metrics and Qt's own padding where Qt adds it (header sort arrows and
margins, combo arrows, button margins), so it flags what a user would see cut, not
a pixel of rounding.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QHeaderView,
    QLabel,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionHeader,
    QTreeWidget,
    QWidget,
)

SLACK = 2
"""Pixels of rounding allowed before a text counts as cut."""


def _visible(widget: QWidget) -> bool:
    """Shown (a tabbed-away dock's widgets are not) and not collapsed to nothing."""
    return widget.isVisible() and widget.width() > 1


def _header(header: QHeaderView) -> list[str]:
    out = []
    model = header.model()
    if model is None or not _visible(header):
        return out
    metrics = header.fontMetrics()
    for section in range(header.count()):
        if header.isSectionHidden(section) or header.sectionSize(section) <= 0:
            continue
        text = model.headerData(section, header.orientation(), Qt.ItemDataRole.DisplayRole)
        if not text:
            continue
        option = QStyleOptionHeader()
        header.initStyleOption(option)
        margin = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, option, header)
        arrow = (header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize, option, header)
                 if header.isSortIndicatorShown() and header.sortIndicatorSection() == section
                 else 0)
        widest = max(metrics.horizontalAdvance(line) for line in str(text).splitlines())
        needed = widest + 2 * margin + arrow
        if header.orientation() == Qt.Orientation.Horizontal \
                and needed > header.sectionSize(section) + SLACK:
            out.append(f"header section {str(text)!r}: needs {needed}px, has "
                       f"{header.sectionSize(section)}px")
    return out


def _tree(tree: QTreeWidget) -> list[str]:
    out = []
    if not _visible(tree):
        return out
    metrics = tree.fontMetrics()
    for row in range(tree.topLevelItemCount()):
        node = tree.topLevelItem(row)
        for column in range(tree.columnCount()):
            text = node.text(column)
            if not text or tree.isColumnHidden(column):
                continue
            indent = tree.indentation() if column == 0 else 0
            needed = metrics.horizontalAdvance(text) + indent + 8
            if needed > tree.columnWidth(column) + SLACK:
                out.append(f"tree column {column} {text!r}: needs {needed}px, has "
                           f"{tree.columnWidth(column)}px")
    return out


def _combo(combo: QComboBox) -> list[str]:
    if not _visible(combo) or not combo.currentText():
        return []
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                         QStyle.SubControl.SC_ComboBoxEditField, combo)
    needed = combo.fontMetrics().horizontalAdvance(combo.currentText())
    if needed > field.width() + SLACK:
        return [f"combo box {combo.currentText()!r}: needs {needed}px, has {field.width()}px"]
    return []


def _button(button: QAbstractButton) -> list[str]:
    if not _visible(button) or not button.text():
        return []
    needed = button.fontMetrics().horizontalAdvance(button.text().replace("&", ""))
    if needed > button.width() - 4 + SLACK:
        return [f"button {button.text()!r}: needs {needed}px, has {button.width()}px"]
    return []


def _label(label: QLabel) -> list[str]:
    if not _visible(label) or label.wordWrap() or not label.text():
        return []
    if label.textFormat() == Qt.TextFormat.RichText or "<" in label.text():
        hint = label.sizeHint().width()  # the laid-out document's width
    else:
        hint = label.fontMetrics().horizontalAdvance(label.text()) + 2 * label.margin()
    if hint > label.width() + SLACK:
        text = label.text() if len(label.text()) < 60 else label.text()[:57] + "…"
        return [f"label {text!r}: needs {hint}px, has {label.width()}px"]
    return []


def clipped_texts(root: QWidget) -> list[str]:
    """Every visible text under ``root`` that is narrower than it needs, in words."""
    found: list[str] = []
    for header in root.findChildren(QHeaderView):
        found += _header(header)
    for tree in root.findChildren(QTreeWidget):
        found += _tree(tree)
    for combo in root.findChildren(QComboBox):
        found += _combo(combo)
    for button in root.findChildren(QAbstractButton):
        found += _button(button)
    for label in root.findChildren(QLabel):
        found += _label(label)
    return found
