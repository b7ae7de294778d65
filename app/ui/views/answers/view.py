"""The answers view: every annotator's answer on an item, side by side.

For the selected item, a table with one column per categorical scheme (nominal,
ordinal, multilabel) and one row per annotator who answered the item, in study order;
in a labelling project the machine tiers' predictions follow as rows marked ⚙ (with
their confidence), and the last row is the humans' majority, or why there is none, in
words. The item's text (or its media files' names) is shown above. What is shown is
computed by :func:`app.ui.views.answers.table.answer_table` from what the project job
already read; nothing is parsed here.

Marks (colour-blind safe: a symbol and a colour, never a colour alone): an answer that
differs from the majority is "≠ label" in :data:`~app.ui.palette.DISAGREE_COLOR` on a
light red tint; "—" in grey is "not answered"; an item without a majority marks nothing.

Choices where the spec is silent:

- With no item selected the item with the most disagreement is shown (the lowest item
  score of a categorical scheme, from the scores the project job computed;
  :func:`~app.ui.views.answers.table.most_disagreement_item`), and the header says it
  was chosen by default; a selected item without any categorical answer
  or prediction is a sentence, never an empty table (the same wording as the set views).
- Presentation mode shows annotators as A, B, C (:meth:`ViewContext.annotator_label`);
  machine tiers are not people and keep their names.
- A machine rater (an annotator whose user state declares a machine ``origin``) has its
  row after the people's, marked "⚙ name (machine)" as in every view, tinted as a tier,
  and is compared with the people's majority, never counted in it.
"""

from __future__ import annotations

from html import escape as _escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.project import ProjectData
from app.ui.palette import DISAGREE_COLOR
from app.ui.views.answers.table import (
    NOT_ANSWERED,
    AnswerTable,
    Cell,
    CellState,
    answer_table,
    categorical_schemes,
    first_answered_item,
    scored_disagreement_item,
)
from app.ui.views.base import NO_PROJECT, View, ViewContext


def escape(text: str) -> str:
    return _escape(text, quote=False)

WHAT = "categorical"
DISAGREE_MARK = "≠"
MACHINE_MARK = "⚙"
MAJORITY_ROW = "Majority (people)"
TEXT_LIMIT = 700
"""Characters of the item's text shown above the table (the rest is elided)."""
DISAGREE_FILL = QColor("#F8DCD8")
MACHINE_FILL = QColor("#EEF2F7")
MAJORITY_FILL = QColor("#F3F3F3")
MISSING_TEXT = QColor("#8A8A8A")
STATE_ROLE = Qt.ItemDataRole.UserRole + 1
KEY = (f"<span style='color:{DISAGREE_COLOR.name()}'><b>{DISAGREE_MARK}</b> differs from "
       "the majority</span> &nbsp;·&nbsp; <span style='color:#8A8A8A'>"
       f"{NOT_ANSWERED}</span> not answered &nbsp;·&nbsp; {MACHINE_MARK} machine rater "
       "or tier (a tier with its confidence; neither counted in the majority)")


def item_text(project: ProjectData, item: str) -> str:
    """The item's text, or its media files' names, as HTML (elided when long)."""
    record = project.study.items.get(item)
    if record is None:
        return ""
    text = record.text
    if text is None:
        value = record.record.get("text")
        text = value if isinstance(value, str) else None
    if text:
        short = text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT].rstrip() + "…"
        return escape(short).replace("\n", "<br>")
    if record.media:
        names = ", ".join(escape(path.name) for path in record.media.values())
        return f"<span style='color:#555'>Media:</span> {names}"
    return "<span style='color:#777'>This item has no text.</span>"


def scheme_note(project: ProjectData, scheme: str) -> str:
    """The second line of a column's heading: the kind, and the labels or the scale."""
    info = project.study.schemes[scheme]
    if info.kind is not None and info.scale:
        return f"{info.kind} · {info.scale[0]}–{info.scale[-1]}"
    n = len(info.labels)
    return f"{info.kind} · {n} label{'s' if n != 1 else ''}" if n else str(info.kind)


class AnswersView(View):
    name = "answers"
    title = "Answers"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setObjectName("itemText")
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setStyleSheet("QLabel#itemText { background: #FAFAF7; border: 1px solid "
                                "#DDDDD5; border-radius: 6px; padding: 10px; }")
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setFrameShape(QFrame.Shape.NoFrame)
        self.table.setShowGrid(True)
        self.table.setStyleSheet("QTableWidget { gridline-color: #DDDDDD; }")
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setDefaultAlignment(
            Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.key = QLabel(KEY)
        self.key.setWordWrap(True)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.answers: AnswerTable | None = None
        # In a scroll area: the table is as tall as its rows, and a short dock scrolls
        # it rather than taking that height from the views above (at 1280×800 a table
        # of six raters squeezed the overview's pair matrix past reading; issue 35).
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(8)
        layout.addWidget(self.header)
        layout.addWidget(self.text)
        layout.addWidget(self.table)
        layout.addWidget(self.key)
        layout.addWidget(self.message, 1)
        layout.addStretch(0)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll_area)
        self.show_context(ViewContext())

    # ----------------------------------------------------------------- contract

    def show_context(self, context: ViewContext) -> None:
        self.scale_font(context)
        # A widget with a style sheet (the text box, the table) does not inherit its
        # parent's font: each gets the scaled one, so presentation mode enlarges every
        # cell, heading and line, not only the bold ones (issue 35).
        for widget in (self.header, self.text, self.table, self.table.horizontalHeader(),
                       self.table.verticalHeader(), self.key, self.message):
            widget.setFont(self.font())
        self.table.clear()
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self.answers = None
        project = context.project
        if project is None:
            return self._empty("Answers", NO_PROJECT)
        if not categorical_schemes(project):
            return self._empty("Answers", f"This project has no {WHAT} scheme to show.")
        item, by_default = context.item, ""
        if item is None:
            item = scored_disagreement_item(project)
            by_default = "the item with the most disagreement"
            if item is None:
                item, by_default = (first_answered_item(project), "the first item with an "
                                    "answer; no item has two labels to compare")
            if item is None:
                return self._empty("Answers", f"Nobody answered a {WHAT} scheme yet.")
        answers = answer_table(project, item)
        if not answers.rows:
            return self._empty(f"Item {escape(item)}",
                               f"Item {item} has no answers in a {WHAT} scheme.")
        self.answers = answers
        self.hide_empty()
        self.message.hide()
        for widget in (self.text, self.table, self.key):
            widget.show()
        self.header.setText(self._header(answers, by_default))
        self.text.setText(item_text(project, item))
        self._fill(answers, context)

    # ------------------------------------------------------------------ drawing

    def _empty(self, header: str, sentence: str) -> None:
        self.header.setText(f"<b>{header}</b>")
        self.message.setText(sentence)
        for widget in (self.text, self.table, self.key, self.message):
            widget.hide()
        self.show_empty(sentence)

    def _header(self, answers: AnswerTable, by_default: str) -> str:
        people = sum(not r.machine for r in answers.rows)
        raters = sum(r.rater for r in answers.rows)
        machines = len(answers.rows) - people - raters
        parts = [f"{people} annotator{'s' if people != 1 else ''}"]
        if raters:
            parts.append(f"{raters} machine rater{'s' if raters != 1 else ''}")
        if machines:
            parts.append(f"{machines} machine tier{'s' if machines != 1 else ''}")
        disagree = sum(c.state is CellState.DISAGREES for r in answers.rows for c in r.cells)
        ties = [escape(s) for s, m in zip(answers.schemes, answers.majorities, strict=True)
                if m.choices]
        if disagree:
            parts.append(("1 answer differs" if disagree == 1 else
                          f"{disagree} answers differ") + " from the majority")
        elif any(m.answer is not None for m in answers.majorities):
            parts.append("every answer agrees with the majority")
        elif not ties:
            parts.append("no majority to compare with")
        if ties:  # who chose what is in the last row
            parts.append(f"no majority on {', '.join(ties)} (a tie)")
        note = (f" <span style='color:#666'>(no item selected: {by_default})</span>"
                if by_default else "")
        return f"<b>Item {escape(answers.item)}</b>{note} &nbsp;·&nbsp; " + " · ".join(parts)

    def _fill(self, answers: AnswerTable, context: ViewContext) -> None:
        table = self.table
        schemes = answers.schemes
        project = context.project
        assert project is not None
        table.setColumnCount(len(schemes))
        table.setRowCount(len(answers.rows) + 1)
        for col, scheme in enumerate(schemes):
            head = QTableWidgetItem(f"{scheme}\n{scheme_note(project, scheme)}")
            description = project.study.schemes[scheme].config.get("description")
            if isinstance(description, str):
                head.setToolTip(description)
            head.setFont(self.font())  # header items keep the application's font otherwise
            table.setHorizontalHeaderItem(col, head)
        bold = QFont(self.font())
        bold.setBold(True)
        for row, entry in enumerate(answers.rows):
            label = (f"{MACHINE_MARK} {entry.name} (machine)"
                     if entry.machine and not entry.rater
                     else context.annotator_label(entry.name))  # a rater: marked there
            head = QTableWidgetItem(label)
            head.setFont(self.font())
            if entry.machine:
                head.setBackground(QBrush(MACHINE_FILL))
                what = "machine rater" if entry.rater else "machine tier"
                head.setToolTip(f"{what} {entry.name}: not counted in the majority")
            table.setVerticalHeaderItem(row, head)
            for col, cell in enumerate(entry.cells):
                table.setItem(row, col, self._cell_item(cell, entry.machine, bold))
        last = len(answers.rows)
        majority_head = QTableWidgetItem(MAJORITY_ROW)
        majority_head.setFont(bold)
        table.setVerticalHeaderItem(last, majority_head)
        for col, major in enumerate(answers.majorities):
            text = (f"{major.text}  ·  {major.support} of {major.n} agree"
                    if major.answer is not None else major.describe(context.annotator_label))
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            item.setBackground(QBrush(MAJORITY_FILL))
            if major.answer is not None:
                item.setFont(bold)
            else:
                item.setForeground(QBrush(QColor("#555555")))
            item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            table.setItem(last, col, item)
        height = round(self.fontMetrics().height() * 2.2)
        table.verticalHeader().setDefaultSectionSize(height)
        header_height = round(self.fontMetrics().height() * self._header_lines(answers, context))
        table.horizontalHeader().setFixedHeight(header_height)
        # A tie's "who chose what", or a long label set in large type, may need more
        # than one line: rows wrap and grow to fit, so no word is cut off (issue 35).
        table.setWordWrap(True)
        total = header_height + 2
        for row in range(last + 1):
            table.resizeRowToContents(row)
            table.setRowHeight(row, max(height, table.rowHeight(row)))
            total += table.rowHeight(row)
        table.setFixedHeight(total)

    def _header_lines(self, answers: AnswerTable, context: ViewContext) -> float:
        """The column headings' height in lines: two (the scheme, then its kind and
        labels), or three when a heading is wider than its column would be at this
        width, which the header then wraps at a space (in large type, six columns at
        1280 px cut "multilabel · 4 labels" short)."""
        project = context.project
        assert project is not None
        metrics = self.fontMetrics()
        rows = [MAJORITY_ROW, *(r.name for r in answers.rows)]
        side = max(metrics.horizontalAdvance(t) for t in rows) + 24
        column = (max(self.width(), 320) - side - 24) / max(len(answers.schemes), 1)
        widest = max((metrics.horizontalAdvance(line) + 12 for scheme in answers.schemes
                      for line in (scheme, scheme_note(project, scheme))), default=0)
        return 2.8 if widest <= column else 3.9

    def _cell_item(self, cell: Cell, machine: bool, bold: QFont) -> QTableWidgetItem:
        text = cell.text
        if cell.confidence is not None:
            text = f"{text}  · {cell.confidence:.2f}"
        if cell.state is CellState.DISAGREES:
            text = f"{DISAGREE_MARK} {text}"
        item = QTableWidgetItem(text)
        item.setData(STATE_ROLE, str(cell.state))
        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        if machine:
            item.setBackground(QBrush(MACHINE_FILL))
        if cell.state is CellState.DISAGREES:
            item.setBackground(QBrush(DISAGREE_FILL))
            item.setForeground(QBrush(DISAGREE_COLOR))
            item.setFont(bold)
            item.setToolTip("differs from the majority")
        elif cell.state is CellState.MISSING:
            item.setForeground(QBrush(MISSING_TEXT))
            item.setToolTip("not answered")
        elif cell.state is CellState.UNJUDGED:
            item.setToolTip("no majority to compare with")
        return item

    # ------------------------------------------------------------- for tests

    def row_labels(self) -> list[str]:
        return [self._header_text(r) for r in range(self.table.rowCount())]

    def _header_text(self, row: int) -> str:
        head = self.table.verticalHeaderItem(row)
        return head.text() if head is not None else ""

    def column_schemes(self) -> list[str]:
        return [] if self.answers is None else list(self.answers.schemes)

    def cell_text(self, row: int, col: int) -> str:
        item = self.table.item(row, col)
        return item.text() if item is not None else ""

    def cell_state(self, row: int, col: int) -> str:
        item = self.table.item(row, col)
        value = item.data(STATE_ROLE) if item is not None else None
        return str(value) if value is not None else ""
