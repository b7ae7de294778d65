"""Numbers: a number scheme's answers pair by pair (scatter with the identity line and
Bland–Altman), and each item's spread.

For a ``continuous`` scheme (``number``, ``vas``, confidence slider, pairwise scale) or a
``slider`` (ordinal in Accord; its Potato number block shown beside its ordinal α): the
scheme's metrics as the report has them (Potato's names; an undefined one as its
sentence), the two plots of :mod:`.plot` for every annotator pair or one, and a table of
the items, the widest spread first; picking an item there rings its points.

Choices where the spec is silent:

- "All pairs" is the default: every pair's points in its own colour, the Bland–Altman
  bias and limits pooled over all pairs' differences; picking one pair shows its own.
- The answers plotted are every annotator's, machine raters' too (marked ⚙), as the
  study holds them; the report scores people and machines apart (``partitions.py``), so
  its ``details`` hold people only. The view computes no metric.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
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

from app.core.agreement.result import SchemeResult
from app.core.project import ProjectData
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.kinds import numbers_drawn
from app.ui.views.metric_text import metric_label
from app.ui.views.numbers.model import PairPoints, number_rows, pair_points, spreads
from app.ui.views.numbers.plot import PairPlots

ALL_PAIRS = "all pairs"
COLUMNS = ("Item", "Spread", "SD", "Answers", "Mean", "Lowest", "Highest")


def number_schemes(project: ProjectData) -> list[str]:
    """The number schemes, and the sliders: Accord scores a slider as ordinal, Potato as
    a number (its block is the result's ``potato_iaa``), and its answers are numbers."""
    return [name for name, r in project.report.schemes.items() if numbers_drawn(r)]


def potato_block_text(result: SchemeResult) -> str:
    """A slider's Potato block (``potato_iaa``: Pearson r, MAE, RMSE, interval α, ICC),
    an undefined one as its sentence; ``''`` for a scheme without one."""
    block = result.extra.get("potato_iaa")
    if result.annotation_type != "slider" or not isinstance(block, dict):
        return ""
    reasons = block.get("undefined") or {}
    parts = []
    for key in ("pearson_r", "mae", "rmse", "alpha_interval", "icc_2_k"):
        if key not in block:
            continue
        label = escape(metric_label(key, "continuous"))
        value = block[key]
        parts.append(f"{label} <b>{float(value):.3f}</b>" if value is not None else
                     f"{label} <b>undefined</b> ({escape(str(reasons.get(key, 'no value')))})")
    return ("<br>Potato 2.12.1's numbers for this slider (its interval block): "
            + " · ".join(parts)) if parts else ""


def metrics_text(result: SchemeResult, context: ViewContext) -> str:
    """The scheme's metrics, Potato's names in words; an undefined one as its sentence."""
    parts, why = [], []
    for key, value in result.metrics.items():
        label = metric_label(key, result.kind)
        if value is None:
            parts.append(f"{escape(label)} <b>undefined</b>")
            reason = result.undefined.get(key, "no value")
            why.append(f"{escape(label)} is undefined: "
                       f"{escape(context.anonymize_text(reason))}.")
        else:
            parts.append(f"{escape(label)} <b>{float(value):.3f}</b>")
    text = " · ".join(parts)
    project = context.project
    if project is not None and project.study.origins:
        text = "The report (people; machine raters apart): " + text
    if why:
        text += "<br><span style='color:#8A4B00'>" + "<br>".join(why) + "</span>"
    return text


class NumbersView(View):
    name = "numbers"
    title = "Numbers"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self.pairs: list[PairPoints] = []
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.scheme_combo = QComboBox()
        self.scheme_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.scheme_combo.activated.connect(self._on_scheme_chosen)
        self.pair_combo = QComboBox()
        self.pair_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.pair_combo.activated.connect(lambda _i: self.show_context(self._context))
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(QLabel("Scheme:"))
        top.addWidget(self.scheme_combo)
        top.addWidget(QLabel("Pair:"))
        top.addWidget(self.pair_combo)
        self.metrics = QLabel()
        self.metrics.setWordWrap(True)
        self.metrics.setTextFormat(Qt.TextFormat.RichText)
        self.plots = PairPlots()
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.table.cellClicked.connect(self._on_row_clicked)
        right = self._right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(QLabel("<b>Items</b>, widest spread first"))
        right_layout.addWidget(self.table, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.plots)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.metrics)
        layout.addWidget(splitter, 1)
        self.show_context(self._context)

    def show_context(self, context: ViewContext) -> None:
        self._context = context
        self.scale_font(context)
        self.plots.set_font(self.font())
        project = context.project
        schemes = number_schemes(project) if project is not None else []
        if project is None or not schemes:
            self.show_empty(NO_PROJECT if project is None else
                            "This project has no number scheme (number, vas, confidence "
                            "slider, pairwise scale) to show.")
            self.scheme_combo.clear()
            self.pair_combo.clear()
            self.table.setRowCount(0)
            self.pairs = []
            self.plots.show_pairs([], {}, None)
            return
        self.hide_empty()
        current = self.scheme_combo.currentText()
        scheme = context.scheme if context.scheme in schemes else (
            current if current in schemes else schemes[0])
        _fill(self.scheme_combo, schemes, scheme)
        result = project.report.schemes[scheme]
        rows = number_rows(project.study.answers_for(scheme))  # machine raters too (⚙)
        names = {a: context.annotator_label(a) for a in project.study.annotators}
        every = pair_points(rows, project.study.annotators)
        labels = [f"{names[p.a]} – {names[p.b]}" for p in every]
        chosen = self.pair_combo.currentIndex() - 1
        if not 0 <= chosen < len(every) or self.pair_combo.count() != len(every) + 1:
            chosen = -1
        _fill(self.pair_combo, [ALL_PAIRS, *labels], None)
        self.pair_combo.setCurrentIndex(chosen + 1)
        self.pairs = every if chosen < 0 else [every[chosen]]
        item = context.item if context.item in rows else None
        self.heading.setText(f"<b>{escape(scheme)}</b> · {len(rows)} items with answers"
                             + (f" · item <b>{escape(item)}</b>" if item else ""))
        self.metrics.setText(metrics_text(result, context) + potato_block_text(result))
        self.plots.show_pairs(self.pairs, names, item)
        self._fill_table(rows, item)

    def _fill_table(self, rows: dict[str, dict[str, float]], item: str | None) -> None:
        found = spreads(rows)
        self.table.setRowCount(len(found))
        for r, s in enumerate(found):
            cells = (s.item, f"{s.spread:.3g}", "—" if s.sd is None else f"{s.sd:.3g}",
                     str(s.n), f"{s.mean:.3g}", f"{s.low:.3g}", f"{s.high:.3g}")
            for c, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                if c:
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, cell)
            if s.item == item:
                self.table.selectRow(r)
        self.table.resizeColumnsToContents()
        self.table.resizeRowsToContents()
        # the whole table in view beside the plots (the splitter gave it 150 px and cut
        # the spread column off): as wide as its columns, at most 40 % of the view
        wanted = (self.table.horizontalHeader().length() + 2 * self.table.frameWidth()
                  + self.table.verticalScrollBar().sizeHint().width() + 4)
        self._right.setMinimumWidth(min(wanted, int(self.width() * 0.4)))

    def _on_row_clicked(self, row: int, _column: int) -> None:
        cell = self.table.item(row, 0)
        if cell is not None:
            self.item_picked.emit(cell.text())
            self.show_context(self._context.with_(item=cell.text()))

    def _on_scheme_chosen(self, index: int) -> None:
        if self.scheme_combo.itemText(index):
            self.pair_combo.clear()  # the new scheme's pairs are listed afresh
        self.user_chose_scheme(self.scheme_combo.itemText(index))


def _fill(combo: QComboBox, entries: list[str], current: str | None) -> None:
    combo.blockSignals(True)
    combo.clear()
    combo.addItems(entries)
    if current is not None:
        combo.setCurrentText(current)
    combo.blockSignals(False)
