"""Rankings: the annotators' orders of one item side by side, lines joining the same
option (:mod:`.canvas`), each pair's Kendall τ and footrule on the item, and the items
sorted by τ (lowest first).

For a ``ranking`` scheme: the scheme's metrics as the report has them (an undefined one
as its sentence); left the items with their τ (:mod:`.model`), right the selected
item's orders and its pairs. With no item selected (or one this scheme has no orders
for) the item with the lowest τ is shown (the list is :class:`~app.ui.views.spans.items.
ItemList`, built once per scheme result), and the heading says so. The orders are every
annotator's as the study holds them, machine raters' too (marked ⚙; the report's
``details`` hold people only, as it scores people and machines apart). Names go through
:meth:`ViewContext.annotator_label` (A, B, C in presentation mode).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.project import ProjectData
from app.ui.palette import label_color
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.kinds import schemes_drawn_by
from app.ui.views.numbers.view import metrics_text
from app.ui.views.rankings.canvas import RankingCanvas
from app.ui.views.rankings.model import (
    PairTau,
    Ranking,
    item_tau,
    items_by_tau,
    options_of,
    pair_taus,
    ranking_rows,
)
from app.ui.views.spans.items import ItemList


def ranking_schemes(project: ProjectData) -> list[str]:
    return schemes_drawn_by(project, "rankings")


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


class RankingsView(View):
    name = "rankings"
    title = "Rankings"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self.taus: list[PairTau] = []
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.scheme_combo = QComboBox()
        self.scheme_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.scheme_combo.activated.connect(self._on_scheme_chosen)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(QLabel("Scheme:"))
        top.addWidget(self.scheme_combo)
        self.metrics = QLabel()
        self.metrics.setWordWrap(True)
        self.metrics.setTextFormat(Qt.TextFormat.RichText)
        self.items = ItemList()
        self.items.setMinimumWidth(150)
        self.items.item_clicked.connect(self._on_item_clicked)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("<b>Items</b>, lowest τ first"))
        left_layout.addWidget(self.items, 1)
        self.canvas = RankingCanvas()
        self.pair_text = QLabel()
        self.pair_text.setWordWrap(True)
        self.pair_text.setTextFormat(Qt.TextFormat.RichText)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.pair_text)
        right_layout.addWidget(self.canvas, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 4)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.metrics)
        layout.addWidget(splitter, 1)
        self.show_context(self._context)

    def show_context(self, context: ViewContext) -> None:
        self._context = context
        self.scale_font(context)
        project = context.project
        schemes = ranking_schemes(project) if project is not None else []
        if project is None or not schemes:
            self.show_empty(NO_PROJECT if project is None else
                            "This project has no ranking scheme to show.")
            self.scheme_combo.clear()
            self.items.clear()
            self.taus = []
            self.canvas.set_orders({}, {}, {})
            return
        self.hide_empty()
        current = self.scheme_combo.currentText()
        scheme = context.scheme if context.scheme in schemes else (
            current if current in schemes else schemes[0])
        self.scheme_combo.blockSignals(True)
        self.scheme_combo.clear()
        self.scheme_combo.addItems(schemes)
        self.scheme_combo.setCurrentText(scheme)
        self.scheme_combo.blockSignals(False)
        result = project.report.schemes[scheme]
        study = project.study
        rows = ranking_rows(study.answers_for(scheme))  # machine raters too (⚙)
        self._fill_items(scheme, result, rows, study.annotators)
        order = self.items.ids()
        item = context.item if context.item in rows else (order[0] if order else None)
        self.items.select(item)
        note = (" (the item with the lowest τ: pick another on the left)"
                if item is not None and item != context.item else "")
        self.heading.setText(f"<b>{escape(scheme)}</b> · item <b>{escape(item or '—')}</b>"
                             f"{escape(note)}")
        self.metrics.setText(metrics_text(result, context))
        orders = {a: rows[item][a] for a in study.annotators
                  if item is not None and a in rows[item]}
        names = {a: context.annotator_label(a) for a in orders}
        declared = list(study.schemes[scheme].labels) if scheme in study.schemes else []
        options = options_of(orders, declared)
        self.canvas.set_orders(orders, names,
                               {o: label_color(i) for i, o in enumerate(options)})
        self.taus = pair_taus(orders, study.annotators)
        self.pair_text.setText(self._pairs_text(names))

    def _pairs_text(self, names: dict[str, str]) -> str:
        tau, why = item_tau(self.taus)
        lines = [f"This item: τ <b>{_fmt(tau)}</b> (mean over pairs)"
                 + (f" — undefined: {escape(why)}" if why else "")]
        for p in self.taus:
            text = (f"{escape(names[p.a])} – {escape(names[p.b])}: τ {_fmt(p.tau)}, "
                    f"footrule {_fmt(p.footrule)}")
            if p.reason:
                text += f" <span style='color:#8A4B00'>(τ undefined: {escape(p.reason)})</span>"
            lines.append(text)
        return "<br>".join(lines)

    def context_steps(self, context: ViewContext) -> list[Callable[[], object]]:
        """Two steps: the items list (every item's τ: 40-80 ms at 10,000 items of five
        options here), then the rest (the list is then kept)."""
        project = context.project
        schemes = ranking_schemes(project) if project is not None else []
        if project is None or not schemes:
            return [partial(self.show_context, context)]
        scheme = context.scheme if context.scheme in schemes else schemes[0]
        study = project.study

        def fill() -> None:
            self._fill_items(scheme, project.report.schemes[scheme],
                             ranking_rows(study.answers_for(scheme)), study.annotators)
        return [fill, partial(self.show_context, context)]

    def _fill_items(self, scheme: str, result: object, rows: dict[str, dict[str, Ranking]],
                    annotators: tuple[str, ...]) -> None:
        self.items.set_items(scheme, result, lambda: items_by_tau(rows, annotators),
                             lambda i, v: f"{i}  ·  τ {_fmt(v)}",
                             lambda v: v is not None and v < 1.0)

    def item_order(self) -> list[str]:
        return self.items.ids()

    def _on_item_clicked(self, item: str) -> None:
        self.user_chose_item(item)

    def _on_scheme_chosen(self, index: int) -> None:
        self.user_chose_scheme(self.scheme_combo.itemText(index), keep_item=False)
