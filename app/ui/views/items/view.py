"""The items table: every scored item with its agreement, worst first.

Columns: item id, scheme, score (mean pair score), count difference (set kinds), the
number of pairs, the annotators who answered. Clicking a header sorts by that column
(numerically for numbers); selecting a row emits ``item_picked(item_id)`` and, when the
row's scheme is not the selected one, ``scheme_picked`` first, so the detail view below
opens on the right scheme. The per-item numbers come from
:mod:`app.core.agreement.item_scores` (pure, numpy); the model is
:class:`~app.ui.views.items.model.ItemsModel` (sorting in numpy, see there why).

Choices (the spec is silent):

- A scheme combo: "All schemes" (one row per scheme and item) or one scheme. It follows
  the context's scheme when that changes; choosing a scheme in it emits
  ``scheme_picked``.
- The annotator filter keeps the items that annotator answered and scores each over the
  pairs that include them (the column title says so): "where does this person disagree
  with the others". With machine raters (marked ⚙ in the filter) "All annotators"
  scores the people's pairs, the headline; a machine rater is scored over its pairs
  with everyone (the report's ``pooled`` partition).
- The initial order is by score, lowest (most disagreement) first; item ids sort
  naturally (3, 4, 13, 31).
- Columns that do not apply are hidden (issue 35): the count difference when every
  scheme shown has labels, not objects; the scheme when the rows are of one scheme.
- Per-item scores are computed once per project and annotator and kept while the same
  project is shown (item selections call ``show_context`` often; the table must not be
  rebuilt and lose its scroll position each time).
- With one categorical scheme chosen, its confusion matrix sits beside the table
  (:mod:`app.ui.views.items.confusion`); clicking a cell lists only that cell's items,
  a line above the table says which, and Clear (or the same cell) lists all again.
  Changing scheme, pair or annotator clears the filter.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.core.agreement.item_scores import ItemScores, all_item_scores
from app.core.project import ProjectData
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.items.confusion import ConfusionPanel
from app.ui.views.items.model import ANNOTATORS, COLUMNS, SCORE, ItemsModel
from app.ui.views.kinds import look_of

ALL = ""
"""The combo data of "All schemes" / "All annotators"."""


class ItemsView(View):
    name = "items"
    title = "Items"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self._project: ProjectData | None = None
        self._scores: dict[str, dict[str, ItemScores]] = {}
        self._shown_key: tuple[object, ...] | None = None
        self._syncing = False
        self._row_scheme: str | None = None
        """The scheme a row selection emitted: not followed back into the combo."""

        self.scheme_combo = QComboBox()
        self.scheme_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.annotator_combo = QComboBox()
        self.annotator_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.count_label = QLabel()
        self.model = ItemsModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        vertical = self.table.verticalHeader()
        vertical.setVisible(False)
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        header.setSortIndicator(SCORE, Qt.SortOrder.AscendingOrder)
        self.table.setSortingEnabled(True)
        for column, width in zip(range(ANNOTATORS), (200, 170, 150, 140, 80), strict=True):
            self.table.setColumnWidth(column, width)

        bar = QHBoxLayout()
        bar.addWidget(QLabel("Scheme:"))
        bar.addWidget(self.scheme_combo)
        bar.addSpacing(12)
        bar.addWidget(QLabel("Annotator:"))
        bar.addWidget(self.annotator_combo)
        bar.addStretch(1)
        bar.addWidget(self.count_label)
        self._only: tuple[str, ...] | None = None
        """The items of the picked confusion cell, or ``None`` (no filter)."""
        self.filter_label = QLabel()
        self.filter_label.setWordWrap(True)
        self.clear_button = QPushButton("Clear")
        self.clear_button.clicked.connect(self._clear_filter)
        filter_bar = QHBoxLayout()
        filter_bar.addWidget(self.filter_label, 1)
        filter_bar.addWidget(self.clear_button)
        self.filter_box = QWidget()
        self.filter_box.setLayout(filter_bar)
        filter_bar.setContentsMargins(0, 0, 0, 0)
        self.filter_box.setVisible(False)
        self.confusion = ConfusionPanel()
        self.confusion.cell_picked.connect(self._cell_picked)
        self.confusion.cleared.connect(self._clear_filter)
        self.confusion.setVisible(False)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.confusion)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(bar)
        layout.addWidget(self.filter_box)
        layout.addWidget(self.splitter, 1)

        self.scheme_combo.currentIndexChanged.connect(self._scheme_changed)
        self.annotator_combo.currentIndexChanged.connect(self._filters_changed)
        selection = self.table.selectionModel()
        selection.currentRowChanged.connect(self._row_changed)
        self.show_context(ViewContext())

    # ------------------------------------------------------------------ contract

    def show_context(self, context: ViewContext) -> None:
        previous = self._context
        self._context = context
        font = QFont(QApplication.font())
        font.setPointSizeF(font.pointSizeF() * context.font_scale)
        self.setFont(font)
        rows = max(18, int(QFontMetrics(font).height() * 1.5))
        self.table.verticalHeader().setDefaultSectionSize(rows)
        project_changed = context.project is not self._project
        names_changed = (context.anonymous, context.aliases) != (previous.anonymous,
                                                                 previous.aliases)
        self._syncing = True
        try:
            if project_changed:
                self._project = context.project
                self._scores = {}
                self._fill_combos()
            elif names_changed:
                self._fill_annotators()
            if (project_changed or context.scheme != previous.scheme) and context.scheme \
                    and context.scheme != self._row_scheme:
                self._set_combo(self.scheme_combo, context.scheme)
        finally:
            self._syncing = False
        self._refresh(force=project_changed or names_changed)
        self._select_item(context.item)

    # ------------------------------------------------------------------ combos

    def _fill_combos(self) -> None:
        self.scheme_combo.clear()
        self.scheme_combo.addItem("All schemes", ALL)
        project = self._project
        if project is not None:
            for name in self._scores_for(None):
                self.scheme_combo.addItem(name, name)
        self._fill_annotators()

    def _fill_annotators(self) -> None:
        current = self.annotator_combo.currentData()
        self.annotator_combo.clear()
        self.annotator_combo.addItem("All annotators", ALL)
        if self._project is not None:
            for name in self._project.study.annotators:
                self.annotator_combo.addItem(self._context.annotator_label(name), name)
        self._set_combo(self.annotator_combo, current or ALL)

    @staticmethod
    def _set_combo(combo: QComboBox, data: str) -> None:
        index = combo.findData(data)
        if index >= 0:
            combo.setCurrentIndex(index)

    def _scheme_changed(self) -> None:
        self._drop_filter()
        if self._syncing:
            return
        self._refresh()
        scheme = self.scheme_combo.currentData()
        self._row_scheme = None
        if scheme:
            self.scheme_picked.emit(str(scheme))

    def _filters_changed(self) -> None:
        self._drop_filter()
        if not self._syncing:
            self._refresh()

    def _drop_filter(self) -> None:
        """Forget the cell filter without refreshing (the caller refreshes)."""
        self._only = None
        self.filter_box.setVisible(False)

    # ------------------------------------------------------------------ table

    def _scores_for(self, annotator: str | None) -> dict[str, ItemScores]:
        key = annotator or ALL
        if key not in self._scores and self._project is not None:
            if annotator is None and self._project.item_scores:
                self._scores[key] = self._project.item_scores
            else:
                report = self._project.report  # a machine rater's pairs: in "pooled"
                if annotator is not None and annotator in self._project.study.origins:
                    report = report.partitions.get("pooled", report)
                self._scores[key] = all_item_scores(report, annotator)
        return self._scores.get(key, {})

    def _refresh(self, force: bool = False) -> None:
        scheme = str(self.scheme_combo.currentData() or ALL)
        annotator = str(self.annotator_combo.currentData() or ALL)
        key = (id(self._project), scheme, annotator)
        if key == self._shown_key and not force:
            return
        self._shown_key = key
        scores = self._scores_for(annotator or None)
        tables = [t for name, t in scores.items() if not scheme or name == scheme]
        self._show_confusion(scheme)
        if self._only is not None:
            tables = [t.only(self._only) for t in tables]
        label = self._context.annotator_label
        title = (f"Score (pairs with {label(annotator)})" if annotator else "Score")
        self.model.set_tables(tables, label, title)
        hidden = self.model.hidden_columns() if tables else set()
        for column in range(len(COLUMNS)):
            self.table.setColumnHidden(column, column in hidden)
        self._fit_columns()
        header = self.table.horizontalHeader()
        self.model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
        n = self.model.rowCount()
        items = len(set().union(*(t.items for t in tables)))
        self.count_label.setText(
            "No project is open." if self._project is None else
            f"{n:,} rows · {items:,} items" if not scheme else f"{n:,} items")
        if self._project is None:
            self.show_empty(NO_PROJECT)
        elif not self._scores_for(None):
            self.show_empty(no_scores_sentence(self._project))
        else:
            self.hide_empty()

    def _fit_columns(self, sample: int = 400) -> None:
        """Each column but the last as wide as its heading (with the sort arrow) and the
        widest of its first ``sample`` values, so the annotators' list, which stretches,
        keeps the rest: fixed widths cut "amara, bruno, chen, dilnoza" beside the
        confusion matrix at 1280×800 (issue 35). A sample, because a million rows
        cannot be measured on the GUI thread; a longer value further down is elided by
        the table, and its column can be widened by hand."""
        metrics = self.table.fontMetrics()
        header = self.table.horizontalHeader()
        style = header.style()
        arrow = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize)
        margin = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin)
        rows = min(self.model.rowCount(), sample)
        for column in range(ANNOTATORS):
            if self.table.isColumnHidden(column):
                continue
            title = str(self.model.headerData(column, Qt.Orientation.Horizontal))
            # Each distinct text measured once, read from the model without a Qt index
            # (1,600 indexes and measures were 26 ms of a 38 ms step at 10,000 items).
            texts = set(self.model.texts(column, rows))
            width = max([metrics.horizontalAdvance(title) + arrow + 2 * margin,
                         *(metrics.horizontalAdvance(t) + 12 for t in texts)])
            self.table.setColumnWidth(column, width + 8)

    # ------------------------------------------------------------------ confusion

    def _show_confusion(self, scheme: str) -> None:
        project = self._project
        result = project.report.schemes.get(scheme) if project is not None and scheme else None
        shown = self.confusion.show_scheme(result, self._context)
        if shown != self.confusion.isVisible():
            self.confusion.setVisible(shown)
            if shown:
                width = max(self.width(), 600)
                self.splitter.setSizes([width * 3 // 5, width * 2 // 5])

    def _cell_picked(self, items: tuple[str, ...], sentence: str) -> None:
        self._only = items
        self.filter_label.setText(f"Showing the {len(items):,} items of one cell: {sentence}.")
        self.filter_box.setVisible(True)
        self._refresh(force=True)

    def _clear_filter(self) -> None:
        if self._only is None:
            return
        self._only = None
        self.filter_box.setVisible(False)
        self._refresh(force=True)

    def _select_item(self, item: str | None) -> None:
        if item is None:
            return
        current = self.table.currentIndex()
        if current.isValid() and self.model.item_at(current.row()) == item:
            return
        row = self.model.row_of(item, self._context.scheme)
        if row is None:
            row = self.model.row_of(item)
        if row is None:
            return
        self._syncing = True
        try:
            self.table.selectionModel().setCurrentIndex(
                self.model.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows)
            self.table.scrollTo(self.model.index(row, 0))
        finally:
            self._syncing = False

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        scheme = self.model.scheme_at(current.row())
        if scheme != self._context.scheme and self.scheme_combo.currentData() == ALL:
            self._row_scheme = scheme
            self.scheme_picked.emit(scheme)
        self.item_picked.emit(self.model.item_at(current.row()))

    # ------------------------------------------------------------------ for tests

    def column_texts(self, column: int) -> list[str]:
        return [str(self.model.index(r, column).data())
                for r in range(self.model.rowCount())]

    @staticmethod
    def column_titles() -> tuple[str, ...]:
        return COLUMNS


def no_scores_sentence(project: ProjectData) -> str:
    """Why the list is empty. A study of rating schemes only (a bws study, numbers,
    rankings, matrices) is scored over the whole study as Potato 2.12.1 scores it, with
    no score per item: saying nobody answered an item twice was false there."""
    scored = [r for r in project.report.schemes.values() if r.n_items and r.kind]
    if not scored:
        return ("This project has no scored items: no item was answered by two annotators "
                "in a scheme Accord measures.")
    views = [(look_of(r.kind).detail or "overview").capitalize() for r in scored]
    where = ", ".join(f"{r.name} ({r.kind}: the {view} view)" for r, view in zip(scored, views,
                                                                               strict=True))
    return (f"No scores item by item: {where} — scored over the whole study, as Potato "
            "2.12.1 scores them; their answers item by item are in those views.")
