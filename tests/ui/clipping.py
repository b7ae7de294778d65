"""Find text a user cannot read whole: cut header sections, tree columns, combo boxes,
buttons and one-line labels narrower than their text, table cells that cut their text
or break a word, and the pair matrix's painted heads.

A lead saw "ount differen" in presentation mode, "agreement 0.3…" in the tree and a cut
scheme box. Each of those is a widget whose text needs more width than it was given;
this walks the visible widgets of a window and names every such one. Measured with the
widget's own font metrics and Qt's own padding where Qt adds it (header sort arrows and
margins, combo arrows, button margins), so it flags what a user would see cut, not
a pixel of rounding.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics, QFontMetricsF
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QHeaderView,
    QLabel,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionHeader,
    QTableView,
    QTreeWidget,
    QWidget,
)

from app.ui.views.overview.heatmap import PairHeatmap, column_head

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
        wraps = bool(header.defaultAlignment() & Qt.TextFlag.TextWordWrap)
        pieces = str(text).split() if wraps else str(text).splitlines()
        widest = max(metrics.horizontalAdvance(piece) for piece in pieces)
        needed = widest + 2 * margin + arrow
        if header.orientation() != Qt.Orientation.Horizontal:
            continue
        if needed > header.sectionSize(section) + SLACK:
            what = "a word of header section" if wraps else "header section"
            out.append(f"{what} {str(text)!r}: needs {needed}px, has "
                       f"{header.sectionSize(section)}px")
        elif wraps:  # wrapped at spaces: its lines must fit the header's height
            room = header.sectionSize(section) - 2 * margin - arrow
            tall = metrics.boundingRect(QRect(0, 0, max(room, 1), 100_000),
                                        int(Qt.TextFlag.TextWordWrap), str(text)).height()
            if tall > header.height() + SLACK:
                out.append(f"header section {str(text)!r}: wrapped, needs {tall}px of "
                           f"height, has {header.height()}px")
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


def _heatmap(heatmap: PairHeatmap) -> list[str]:
    """The pair matrix paints its heads: each column head as wrapped into its cell must
    keep every word whole (no "…") and fit the room above the grid; each row name must
    fit the left margin."""
    if not _visible(heatmap) or not heatmap.names:
        return []
    out = []
    left, top, cell, row = heatmap._grid()
    metrics = QFontMetricsF(heatmap.font())
    n = len(heatmap.names)
    if left + n * cell > heatmap.width() + SLACK or top + n * row > heatmap.height() + SLACK:
        out.append(f"heatmap column head {heatmap.names[0]!r} and its grid: "
                   f"{left + n * cell:.0f}×{top + n * row:.0f}px drawn in "
                   f"{heatmap.width()}×{heatmap.height()}px")
    for name in heatmap.names:
        head = column_head(name, metrics, cell - 4)
        lines = head.count("\n") + 1
        if "…" in head:
            out.append(f"heatmap column head {name!r}: drawn as {head!r} in {cell:.0f}px")
        elif lines * metrics.lineSpacing() > top - 4 + SLACK:
            out.append(f"heatmap column head {name!r}: {lines} lines in {top - 4:.0f}px")
        if metrics.horizontalAdvance(name) > left - metrics.height() - 8 + SLACK:
            out.append(f"heatmap row head {name!r}: wider than {left:.0f}px")
    return out


def _cells(view: QTableView) -> list[str]:
    """Table cells: a one-line cell must hold its text; a wrapping one must hold its
    widest word (else Qt breaks the word in two) and its lines in the row's height."""
    model = view.model()
    if model is None or not _visible(view):
        return []
    out = []
    metrics = view.fontMetrics()
    rows = min(model.rowCount(), 60)  # what a screen shows; a long table is the same
    for row in range(rows):
        if view.isRowHidden(row):
            continue
        for column in range(model.columnCount()):
            if view.isColumnHidden(column) or view.columnWidth(column) <= 0:
                continue
            index = model.index(row, column)
            text = index.data(Qt.ItemDataRole.DisplayRole)
            if not text:
                continue
            font = index.data(Qt.ItemDataRole.FontRole)
            fm = QFontMetrics(font) if isinstance(font, QFont) else metrics
            room = view.columnWidth(column) - 8
            text = str(text)
            if view.wordWrap():
                widest = max(fm.horizontalAdvance(word) for word in text.split())
                tall = fm.boundingRect(QRect(0, 0, max(room, 1), 100_000),
                                       int(Qt.TextFlag.TextWordWrap), text).height()
                if widest > room + SLACK:
                    out.append(f"cell {text!r}: a word needs {widest}px, has {room}px")
                elif tall > view.rowHeight(row) + SLACK:
                    out.append(f"cell {text!r}: needs {tall}px of height, has "
                               f"{view.rowHeight(row)}px")
            else:
                wide = max(fm.horizontalAdvance(line) for line in text.splitlines())
                if wide > room + SLACK:
                    out.append(f"cell {text!r}: needs {wide}px, has {room}px")
    return out


def clipped_texts(root: QWidget) -> list[str]:
    """Every visible text under ``root`` that is narrower than it needs, in words."""
    found: list[str] = []
    for heatmap in root.findChildren(PairHeatmap):
        found += _heatmap(heatmap)
    for table in root.findChildren(QTableView):
        found += _cells(table)
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
