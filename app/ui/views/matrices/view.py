"""Matrices: a matrix scheme's rows × metrics, coloured like the overview; picking a row
shows its answers.

For a ``matrix`` scheme (``multirate``, ``constant_sum``, ``soft_label``,
``semantic_differential``, ``range_slider``, ``bws``): the top table holds each row's
block at the scheme's scale and the pooled block (:mod:`.model`), Potato's metric names
in words in the header; an undefined cell reads "undefined" on the overview's undefined
grey, its sentence in the tooltip and, for the picked row, under the table. Picking a
row fills the lower table: items × annotators, each value as stored (a scale label or a
number), names through :meth:`ViewContext.annotator_label` (A, B, C in presentation mode).
With no row picked, the first row is shown.
"""

from __future__ import annotations

import textwrap
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.project import ProjectData
from app.ui.palette import UNDEFINED_COLOR, heat_fill
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.kinds import schemes_drawn_by
from app.ui.views.matrices.model import (
    MatrixTable,
    matrix_table,
    member_text,
    row_answers,
    shade,
)
from app.ui.views.metric_text import metric_label


def matrix_schemes(project: ProjectData) -> list[str]:
    return schemes_drawn_by(project, "matrices")


def _table() -> QTableWidget:
    table = QTableWidget(0, 0)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    return table


class MatricesView(View):
    name = "matrices"
    title = "Matrices"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self.shown: MatrixTable | None = None
        self.row = ""
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.scheme_combo = QComboBox()
        self.scheme_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.scheme_combo.activated.connect(self._on_scheme_chosen)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(QLabel("Scheme:"))
        top.addWidget(self.scheme_combo)
        self.table = _table()
        self.table.cellClicked.connect(self._on_row_clicked)
        self.why = QLabel()
        self.why.setWordWrap(True)
        self.answers_title = QLabel()
        self.answers = _table()
        self.answers.cellClicked.connect(self._on_answer_clicked)
        upper = QWidget()
        upper_layout = QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        upper_layout.addWidget(self.table, 1)
        upper_layout.addWidget(self.why)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.answers_title)
        lower_layout.addWidget(self.answers, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(upper)
        splitter.addWidget(lower)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self.show_context(self._context)

    def show_context(self, context: ViewContext) -> None:
        self._context = context
        self.scale_font(context)
        project = context.project
        schemes = matrix_schemes(project) if project is not None else []
        if project is None or not schemes:
            self.show_empty(NO_PROJECT if project is None else
                            "This project has no matrix scheme (multirate, constant_sum, "
                            "soft_label, semantic_differential, range_slider, bws) to show.")
            self.scheme_combo.clear()
            self.table.setRowCount(0)
            self.answers.setRowCount(0)
            self.shown = None
            return
        self.hide_empty()
        current = self.scheme_combo.currentText()
        scheme = context.scheme if context.scheme in schemes else (
            current if current in schemes else schemes[0])
        if scheme != current:
            self.row = ""
        self.scheme_combo.blockSignals(True)
        self.scheme_combo.clear()
        self.scheme_combo.addItems(schemes)
        self.scheme_combo.setCurrentText(scheme)
        self.scheme_combo.blockSignals(False)
        result = project.report.schemes[scheme]
        shown = self.shown = matrix_table(result.details)
        if shown is None:
            self.heading.setText(f"<b>{escape(scheme)}</b>")
            reasons = "; ".join(result.undefined.values()) or "nothing was scored"
            self.why.setText(escape(context.anonymize_text(reasons)))
            self.table.setRowCount(0)
            self.answers.setRowCount(0)
            return
        self.heading.setText(f"<b>{escape(scheme)}</b> · {len(shown.rows) - 1} rows at the "
                             f"{escape(shown.scale)} scale, and the pooled block")
        if self.row not in shown.rows:
            self.row = shown.rows[0]
        self._fill_metrics(shown, result.kind)
        self._fill_answers(project, scheme, context.item)

    def _fill_metrics(self, shown: MatrixTable, kind: str | None) -> None:
        table = self.table
        table.clear()
        table.setColumnCount(len(shown.metrics) + 1)
        table.setRowCount(len(shown.rows))
        heads = ["items"] + [textwrap.fill(metric_label(k, kind), 16) for k in shown.metrics]
        table.setHorizontalHeaderLabels(heads)
        table.setVerticalHeaderLabels(list(shown.rows))
        for r, name in enumerate(shown.rows):
            count = QTableWidgetItem(str(shown.n_items[name]))
            count.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, 0, count)
            for c, key in enumerate(shown.metrics, start=1):
                cell = shown.cells[(name, key)]
                item = QTableWidgetItem("undefined" if cell.value is None
                                        else f"{cell.value:.3f}")
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                      | Qt.AlignmentFlag.AlignVCenter)
                if cell.value is None:
                    item.setBackground(QBrush(QColor(UNDEFINED_COLOR)))
                    item.setForeground(QBrush(QColor("#555555")))
                    item.setToolTip(self._context.anonymize_text(cell.reason or ""))
                else:
                    item.setData(Qt.ItemDataRole.UserRole, cell.value)
                    level = shade(key, cell.value)
                    if level is not None:
                        item.setBackground(QBrush(heat_fill(level)))
                table.setItem(r, c, item)
        # the picked row is marked in its header, not selected: a selection would paint
        # over the row's colours
        table.clearSelection()
        table.setVerticalHeaderLabels([f"▶ {n}" if n == self.row else n for n in shown.rows])
        undefined = [(key, shown.cells[(self.row, key)].reason) for key in shown.metrics
                     if shown.cells[(self.row, key)].value is None]
        self.why.setText("<br>".join(
            f"<span style='color:#8A4B00'><b>{escape(self.row)}</b>: "
            f"{escape(metric_label(k, kind))} is undefined: "
            f"{escape(self._context.anonymize_text(why or ''))}.</span>"
            for k, why in undefined))

    def _fill_answers(self, project: ProjectData, scheme: str, item: str | None) -> None:
        study = project.study
        answered = row_answers(study.answers_for(scheme), self.row, study.annotators)
        names = [a for a in study.annotators if any(a in v for _, v in answered)]
        self.answers_title.setText(f"<b>{escape(self.row)}</b>: each annotator's answer, "
                                   f"item by item ({len(answered)} items)")
        table = self.answers
        table.clear()
        table.setColumnCount(len(names))
        table.setRowCount(len(answered))
        table.setHorizontalHeaderLabels([self._context.annotator_label(a) for a in names])
        table.setVerticalHeaderLabels([i for i, _ in answered])
        for r, (it, values) in enumerate(answered):
            distinct = len(set(values.values()))
            found = study.items.get(it)
            head = table.verticalHeaderItem(r)
            if found is not None and found.text and head is not None:
                head.setToolTip(found.text)  # a bws tuple's text: its lettered options
            for c, a in enumerate(names):
                cell = QTableWidgetItem(values.get(a, "—"))
                if found is not None and a in values:
                    cell.setToolTip(member_text(found.record, values[a]) or "")
                cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if distinct > 1 and a in values:
                    cell.setForeground(QBrush(QColor("#8A4B00")))
                table.setItem(r, c, cell)
            if it == item:
                table.selectRow(r)

    def _on_row_clicked(self, row: int, _column: int) -> None:
        if self.shown is not None and 0 <= row < len(self.shown.rows):
            self.row = self.shown.rows[row]
            self.show_context(self._context)

    def _on_answer_clicked(self, row: int, _column: int) -> None:
        head = self.answers.verticalHeaderItem(row)
        if head is not None:
            self.item_picked.emit(head.text())
            self.show_context(self._context.with_(item=head.text()))

    def _on_scheme_chosen(self, index: int) -> None:
        self.user_chose_scheme(self.scheme_combo.itemText(index))
