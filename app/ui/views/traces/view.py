"""Agent traces: one trace's steps as rows, each annotator's label as a column.

Above the grid, the scheme's step-level α beside the α the same annotators reach on the
study's simpler categorical scheme (``SchemeResult.extra["categorical_reference"]``),
both chance-corrected and so on one scale; then this trace's own tally. The grid
(:func:`app.core.agreement.trace_grid.trace_grid`, pure) has a marker column, the step
number, the step text, the tool call, one column per annotator (in their palette colour)
and, when the project's labeling engine has predictions for this scheme, one column per
machine tier (the judge), in black italics.

Choices (the spec is silent):

- Which scheme: the context's scheme when it is a trace scheme, else the first trace
  scheme of the study (a combo switches and emits ``scheme_picked``).
- Which item: the context's item when this scheme has answers on it; otherwise the
  trace with the most disagreement (lowest item score, from
  :mod:`app.core.agreement.item_scores`), and the header says so.
- Cells are filled with a light tint ordered by the label's severity (good blue, partly
  good light red, bad deep red: :mod:`.severity`; other labels a categorical tint) with
  the label in dark text; process-reward labels read "+1", "−1", "0". A step labelled
  by two or more annotators with different labels gets a red "≠" and bold text.
- The judge's cell tooltip says how many annotators it agrees with; annotators' cell
  tooltips show the rest of their judgement (error type, severity, rationale).
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.agreement.item_scores import item_scores
from app.core.agreement.result import SchemeResult
from app.core.agreement.trace_grid import GridRow, TraceGrid, trace_grid
from app.core.errors import InputError
from app.core.formats.labeling.answers import to_answer
from app.core.model import TraceJudgement
from app.core.project import ProjectData
from app.ui.palette import DISAGREE_COLOR, JUDGE_COLOR, annotator_color
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.kinds import kinds_drawn_by
from app.ui.views.metric_text import fmt, small_sample_text
from app.ui.views.traces.severity import label_fills, legend_order

FIXED = ("", "#", "Step", "Tool call")
MARK, NUMBER, STEP, TOOL = range(len(FIXED))
DISAGREE_MARK = "≠"


def trace_schemes(project: ProjectData | None) -> list[str]:
    if project is None:
        return []
    drawn = kinds_drawn_by("traces")
    return [n for n, s in project.study.schemes.items() if s.kind in drawn]


def judge_labels(project: ProjectData, scheme: str, item: str
                 ) -> tuple[dict[str, TraceJudgement], list[str]]:
    """The machine tiers' judgements of ``item`` (and problems converting them)."""
    labels = project.labels
    if labels is None:
        return {}, []
    out: dict[str, TraceJudgement] = {}
    problems: list[str] = []
    for tier in labels.config.tier_names:
        prediction = labels.labeling.prediction(scheme, item, tier)
        if prediction is None:
            continue
        try:
            answer = to_answer(project.study.schemes[scheme], prediction.label)
        except InputError as exc:
            problems.append(f"{tier}: {exc}")
            continue
        if isinstance(answer, TraceJudgement):
            out[tier] = answer
    return out, problems


def label_text(label: str | None, annotation_type: str) -> str:
    if label is None:
        return ""
    if annotation_type == "process_reward":
        return {"1": "+1", "-1": "−1"}.get(label, label)
    return label.replace("_", " ")


class TracesView(View):
    name = "traces"
    title = "Traces"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self._syncing = False
        self.scheme_combo = QComboBox()
        self.scheme_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.scheme_combo.currentIndexChanged.connect(self._scheme_chosen)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        self.item_line = QLabel()
        self.item_line.setTextFormat(Qt.TextFormat.RichText)
        self.item_line.setWordWrap(True)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        self.table.setStyleSheet("QTableWidget::item { padding: 3px 4px; }")
        self.table.verticalHeader().setVisible(False)
        # Rows follow the wrapped step text whenever the Step column's width changes.
        self.table.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Trace scheme:"))
        bar.addWidget(self.scheme_combo)
        bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(bar)
        layout.addWidget(self.summary)
        layout.addWidget(self.item_line)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.legend)
        self.grid: TraceGrid | None = None
        self.show_context(ViewContext())

    # ------------------------------------------------------------------ contract

    def show_context(self, context: ViewContext) -> None:
        self._context = context
        font = QFont(QApplication.font())
        font.setPointSizeF(font.pointSizeF() * context.font_scale)
        self.setFont(font)
        self.table.setFont(font)  # it has a style sheet, so it does not inherit it
        schemes = trace_schemes(context.project)
        scheme = context.scheme if context.scheme in schemes else (schemes[0] if schemes
                                                                   else None)
        self._syncing = True
        self.scheme_combo.clear()
        for name in schemes:
            self.scheme_combo.addItem(name, name)
        if scheme is not None:
            self.scheme_combo.setCurrentIndex(schemes.index(scheme))
        self.scheme_combo.setEnabled(len(schemes) > 1)
        self._syncing = False
        self._render(scheme)

    def _scheme_chosen(self) -> None:
        if self._syncing:
            return
        scheme = self.scheme_combo.currentData()
        if scheme:
            self._render(str(scheme))
            self.scheme_picked.emit(str(scheme))

    # ------------------------------------------------------------------ rendering

    def _render(self, scheme: str | None) -> None:
        project = self._context.project
        self.grid = None
        if project is None or scheme is None:
            self.show_empty(NO_PROJECT if project is None else
                            "This project has no agent-trace scheme to show.")
            self.summary.setText("")
            self.item_line.setText("")
            self.legend.setText("")
            self.table.clear()
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            return
        self.hide_empty()
        result = project.report.schemes[scheme]
        self.summary.setText(_summary(result.metrics, result.extra, result.undefined)
                             + _small_sample(result))
        item, picked_here = self._item_for(project, scheme)
        if item is None:
            self.item_line.setText("<i>No trace of this scheme was answered.</i>")
            self.table.setRowCount(0)
            return
        judges, problems = judge_labels(project, scheme, item)
        grid = trace_grid(project.study, project.study.schemes[scheme], item, judges)
        self.grid = grid
        note = (" <span style='color:#666'>(no item selected: the trace with the most "
                "disagreement)</span>" if picked_here else "")
        bad = "".join(f"<br><span style='color:#8A4B00'>judge label not shown: "
                      f"{escape(p)}</span>" for p in problems)
        self.item_line.setText(
            f"<b>{escape(item)}</b>{note}: {grid.n_disagreeing} of {grid.n_compared} "
            f"steps labelled by two or more annotators disagree{bad}")
        self._fill(grid, project.study.schemes[scheme].annotation_type)

    def _item_for(self, project: ProjectData, scheme: str) -> tuple[str | None, bool]:
        answered = project.study.answers_for(scheme)
        item = self._context.item
        if item is not None and item in answered:
            return item, False
        scores = item_scores(project.report.schemes[scheme])
        if scores is not None and len(scores):
            worst = min(range(len(scores)), key=lambda k: (scores.score[k], scores.items[k]))
            return scores.items[worst], True
        return (min(answered), True) if answered else (None, True)

    def _fill(self, grid: TraceGrid, annotation_type: str) -> None:
        ctx = self._context
        study_order = ctx.project.study.annotators if ctx.project else ()
        columns = [*FIXED, *(ctx.annotator_label(a) for a in grid.annotators),
                   *(f"{j} (machine)" for j in grid.judges)]
        self.table.clear()
        self.table.setColumnCount(len(columns))
        self.table.setRowCount(len(grid.rows))
        self.table.setHorizontalHeaderLabels(columns)
        for c in range(len(columns)):  # the header, under the table's style sheet,
            head = self.table.horizontalHeaderItem(c)  # does not follow font_scale
            if head is not None:
                head.setFont(self.font())
        for k, name in enumerate(grid.annotators):
            head = self.table.horizontalHeaderItem(len(FIXED) + k)
            if head is not None:
                head.setForeground(annotator_color(study_order.index(name)
                                                   if name in study_order else k))
                head.setToolTip(f"annotator {ctx.annotator_label(name)}")
        for k, judge in enumerate(grid.judges):
            head = self.table.horizontalHeaderItem(len(FIXED) + len(grid.annotators) + k)
            if head is not None:
                head.setForeground(JUDGE_COLOR)
                italic = QFont(self.font())
                italic.setItalic(True)
                head.setFont(italic)
                head.setToolTip(f"the labeling engine's {judge} tier (a machine judge)")
        bold = QFont(self.font())
        bold.setBold(True)
        for r, row in enumerate(grid.rows):
            self._fill_row(r, row, grid, annotation_type, bold)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(STEP, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(MARK, 28)
        self.table.setColumnWidth(NUMBER, 36)
        self.table.setColumnWidth(TOOL, 260)
        for c in range(len(FIXED), len(columns)):
            self.table.resizeColumnToContents(c)
            self.table.setColumnWidth(c, max(96, self.table.columnWidth(c) + 12))
        self.legend.setText(self._legend(grid, annotation_type))

    def _fill_row(self, r: int, row: GridRow, grid: TraceGrid, annotation_type: str,
                  bold: QFont) -> None:
        mark = QTableWidgetItem(DISAGREE_MARK if row.disagree else "")
        mark.setForeground(DISAGREE_COLOR)
        mark.setFont(bold)
        mark.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        if row.disagree:
            mark.setToolTip("annotators disagree on this step")
        self.table.setItem(r, MARK, mark)
        self.table.setItem(r, NUMBER, QTableWidgetItem(row.key if row.key.isdigit() else ""))
        text = QTableWidgetItem(row.text)
        if row.disagree:
            text.setFont(bold)
        self.table.setItem(r, STEP, text)
        tool = QTableWidgetItem(row.tool_call or "")
        mono = QFont("monospace")
        mono.setPointSizeF(self.font().pointSizeF())  # large type in presentation mode too
        tool.setFont(mono)
        self.table.setItem(r, TOOL, tool)
        humans = row.human_labels(grid.annotators)
        for c, column in enumerate((*grid.annotators, *grid.judges), start=len(FIXED)):
            label = row.labels.get(column)
            cell = QTableWidgetItem(label_text(label, annotation_type) if label else "–")
            cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            if label is None:
                cell.setForeground(QColor("#AAAAAA"))
                cell.setToolTip("not labelled")
            else:
                cell.setBackground(QBrush(label_fills(grid.label_order)[label]))
                cell.setForeground(QColor("#111111"))
                if row.disagree:
                    cell.setFont(bold)
                cell.setToolTip(self._cell_tip(column, label, row, humans, grid))
            self.table.setItem(r, c, cell)

    def _cell_tip(self, column: str, label: str, row: GridRow, humans: list[str],
                  grid: TraceGrid) -> str:
        if column in grid.judges:
            same = sum(1 for h in humans if h == label)
            return f"{column} (machine): {label}; agrees with {same} of {len(humans)} annotators"
        details = row.details.get(column, {})
        extra = "; ".join(f"{k}: {v}" for k, v in details.items())
        name = self._context.annotator_label(column)
        return f"{name}: {label}" + (f" ({extra})" if extra else "")

    def _legend(self, grid: TraceGrid, annotation_type: str) -> str:
        fills = label_fills(grid.label_order)
        swatches = " ".join(
            f"<span style='background:{fills[v].name()}'>&nbsp;"
            f"{escape(label_text(v, annotation_type))}&nbsp;</span>"
            for v in legend_order(grid.label_order))
        return (f"Labels: {swatches} &nbsp;·&nbsp; <b style='color:"
                f"{DISAGREE_COLOR.name()}'>{DISAGREE_MARK}</b> annotators disagree on the "
                "step &nbsp;·&nbsp; – not labelled")

    # ------------------------------------------------------------------ for tests

    def cell_text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text() if item is not None else ""

    def header_labels(self) -> list[str]:
        out = []
        for c in range(self.table.columnCount()):
            head = self.table.horizontalHeaderItem(c)
            out.append(head.text() if head is not None else "")
        return out


def _small_sample(result: SchemeResult) -> str:
    """The overview's small-sample warning, here too: α over 4 traces looks certain."""
    text = small_sample_text(result)
    return f"<br><span style='color:#8A4B00'>{escape(text)}</span>" if text else ""


def _summary(metrics: dict[str, float | int | None], extra: dict[str, object],
             undefined: dict[str, str]) -> str:
    own = metrics.get("alpha")
    own_text = (f"<b style='font-size:large'>{fmt('alpha', own)}</b>" if own is not None
                else f"<i>undefined</i> ({escape(undefined.get('alpha', ''))})")
    units = metrics.get("n_units")
    text = f"Step-level α {own_text} over {units} step units"
    ref = extra.get("categorical_reference")
    if isinstance(ref, dict):
        value = ref.get("alpha")
        ref_text = (f"<b style='font-size:large'>{fmt('alpha', value)}</b>"
                    if isinstance(value, float | int) else
                    f"<i>undefined</i> ({escape(str(ref.get('undefined', '')))})")
        text += (f" &nbsp;beside&nbsp; α {ref_text} on <b>{escape(str(ref.get('scheme')))}"
                 f"</b> ({escape(str(ref.get('kind')))}, {ref.get('n_items')} items, the "
                 "same annotators). Both are chance-corrected: they read on one scale.")
    else:
        text += ". The study has no simpler categorical scheme to read it against."
    return text
