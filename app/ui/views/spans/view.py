"""Spans: an item's text with each annotator's spans on a lane of their own, and the
items sorted by disagreement.

For a span scheme (``spans`` kind: ``span``, ``error_span``, ``extractive_qa``…): left,
the scored items, most disagreement first (1 − partial F1, the order of
:meth:`~app.core.agreement.spans.metrics.SpanMetrics.items_by_disagreement`), each with
its partial F1; right, the selected item's numbers (exact and partial F1, token κ,
char α, γ: the report's per-item values, an undefined one as its sentence) and the text
with one lane per annotator (:mod:`.canvas`), each span marked matched, label mismatch
or unmatched from γ's best alignment (:mod:`.model`).

Choices where the spec is silent:

- With no item selected (or one the scheme did not score) the item with the most
  disagreement is shown, and the heading says so.
- Lanes are in the study's annotator order; names go through
  :meth:`ViewContext.annotator_label` (A, B, C in presentation mode). Where machine
  raters are declared the view draws the ``pooled`` partition
  (:func:`~app.core.agreement.partitions.drawn`): their lanes beside the people's,
  marked ⚙, and the item's numbers over everyone, which the line says.
- Everything drawn is read from the report (the worker thread scored it); the view
  computes no metric.
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
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.agreement.partitions import drawn
from app.core.project import ProjectData
from app.ui.palette import annotator_color, label_color
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.kinds import schemes_drawn_by
from app.ui.views.spans.canvas import MISMATCH_COLOR, UNMATCHED_COLOR, SpanCanvas
from app.ui.views.spans.items import ItemList
from app.ui.views.spans.model import ItemSpans, item_spans, items_by_disagreement

ITEM_METRICS = (("span_f1_exact", "exact F1"), ("span_f1_partial", "partial F1"),
                ("token_level_kappa", "token κ"), ("char_alpha", "char α"),
                ("gamma_mathet", "γ"))


def span_schemes(project: ProjectData) -> list[str]:
    return schemes_drawn_by(project, "spans")


def item_text(project: ProjectData, item: str, scheme: str) -> str:
    """The item's text as the span kind scored it (Potato's ``Item.get_text``)."""
    from app.core.agreement.spans.reading import potato_text

    found = project.study.items.get(item)
    if found is None:
        return ""
    if isinstance(found.text, str):
        return found.text
    config = project.study.schemes[scheme].config if scheme in project.study.schemes else {}
    text = potato_text(found.record, config.get("text_key"))
    return text if isinstance(text, str) else ""


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


class SpansView(View):
    name = "spans"
    title = "Spans"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self.shown: ItemSpans | None = None
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.scheme_combo = QComboBox()
        self.scheme_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.scheme_combo.activated.connect(self._on_scheme_chosen)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(QLabel("Scheme:"))
        top.addWidget(self.scheme_combo)

        self.items = ItemList()
        self._ordered: tuple[object, list[tuple[str, float | None]]] | None = None
        """The items' order computed a turn before the list is filled (its details)."""
        self.items.setMinimumWidth(150)
        self.items.item_clicked.connect(self._on_item_clicked)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("<b>Items</b>, most disagreement first"))
        left_layout.addWidget(self.items, 1)

        self.numbers = QLabel()
        self.numbers.setWordWrap(True)
        self.numbers.setTextFormat(Qt.TextFormat.RichText)
        self.canvas = SpanCanvas()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.canvas)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.numbers)
        right_layout.addWidget(scroll, 1)
        right_layout.addWidget(self.legend)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 4)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self.show_context(self._context)

    def show_context(self, context: ViewContext) -> None:
        self._context = context
        self.scale_font(context)
        text_font = self.font()  # the text is what the lead reads: a size larger
        text_font.setPointSizeF(text_font.pointSizeF() * 1.3)
        self.canvas.setFont(text_font)
        project = context.project
        schemes = span_schemes(project) if project is not None else []
        if project is None or not schemes:
            self.show_empty(NO_PROJECT if project is None else
                            "This project has no span scheme to show.")
            self.items.clear()
            self.scheme_combo.clear()
            self.shown = None
            self.canvas.set_item(None, {}, {}, {})
            return
        self.hide_empty()
        scheme = context.scheme if context.scheme in schemes else (
            self.scheme_combo.currentText() if self.scheme_combo.currentText() in schemes
            else schemes[0])
        self.scheme_combo.blockSignals(True)
        self.scheme_combo.clear()
        self.scheme_combo.addItems(schemes)
        self.scheme_combo.setCurrentText(scheme)
        self.scheme_combo.blockSignals(False)
        result = drawn(project.report, scheme) or project.report.schemes[scheme]
        self._fill_items(scheme, result.details)
        scored = self.items.ids()
        item = context.item if context.item in self.items._rows else (
            scored[0] if scored else None)
        self.items.select(item)
        note = ""
        if item is not None and item != context.item:
            note = " (the item with the most disagreement: pick another on the left)"
        self.heading.setText(f"<b>{escape(scheme)}</b> · item <b>{escape(item or '—')}</b>"
                             f"{escape(note)}")
        if result.not_computed is not None or item is None:
            self.shown = None
            why = result.not_computed or "no item of this scheme was scored: " + "; ".join(
                result.undefined.values())
            self.numbers.setText(f"<i>{escape(context.anonymize_text(why))}</i>")
            self.canvas.set_item(None, {}, {}, {})
            self.legend.setText("")
            return
        shown = item_spans(result.details, item, item_text(project, item, scheme))
        self.shown = shown
        if shown is None:
            self.numbers.setText("<i>this item was not scored</i>")
            self.canvas.set_item(None, {}, {}, {})
            return
        everyone = " (everyone, machine raters included)" if project.study.origins else ""
        self.numbers.setText(self._numbers_text(shown).replace(
            "This item:", f"This item{everyone}:", 1))
        study = project.study
        lanes = [a for a in study.annotators if a in shown.lanes]
        names = {a: context.annotator_label(a) for a in lanes}
        colors = {a: annotator_color(study.annotators.index(a)) for a in lanes}
        labels = self._labels(project, scheme, shown)
        self.canvas.set_item(shown, names, colors,
                             {lab: label_color(i) for i, lab in enumerate(labels)})
        self.legend.setText(self._legend_text(labels))

    @staticmethod
    def _labels(project: ProjectData, scheme: str, shown: ItemSpans) -> list[str]:
        declared = list(project.study.schemes[scheme].labels) if (
            scheme in project.study.schemes) else []
        seen = [s.label for spans in shown.lanes.values() for s in spans]
        return declared + [lab for lab in dict.fromkeys(seen) if lab not in declared]

    def _numbers_text(self, shown: ItemSpans) -> str:
        parts = []
        reasons = []
        for key, label in ITEM_METRICS:
            value = shown.values.get(key)
            parts.append(f"{label} <b>{_fmt(value)}</b>")
            if value is None:
                why = shown.gamma_reason if key == "gamma_mathet" else None
                reasons.append(f"{label} is undefined on this item"
                               + (f": {why}" if why else
                                  ": every annotator gave every character the same tag, "
                                  "so there is no chance disagreement to correct for."))
        text = "This item: " + " · ".join(parts)
        if reasons:
            text += ("<br><span style='color:#8A4B00'>"
                     + "<br>".join(escape(r) for r in reasons) + "</span>")
        return text

    @staticmethod
    def _legend_text(labels: list[str]) -> str:
        keys = " ".join(f"<span style='background:{label_color(i).name()}'>&nbsp;&nbsp;"
                        f"</span>&nbsp;{escape(lab)}" for i, lab in enumerate(labels))
        return (f"{keys}<br><span style='color:#555'>Filled: matched (aligned with another "
                f"annotator's span of the same label) · <span style='color:"
                f"{MISMATCH_COLOR.name()}'>hatched, orange border: label mismatch</span>"
                f" · <span style='color:{UNMATCHED_COLOR.name()}'>dashed red outline: "
                "unmatched</span> (γ's best alignment)</span>")

    def context_steps(self, context: ViewContext) -> list[Callable[[], object]]:
        """Three steps: the order of the scheme's items (6-8 ms at 10,000 documents), the
        items list (6 ms), then the rest (the list is then kept: same scheme, same
        result); the list in one step was 20 ms, 27 ms on a busy machine."""
        project = context.project
        schemes = span_schemes(project) if project is not None else []
        if project is None or not schemes:
            return [partial(self.show_context, context)]
        scheme = context.scheme if context.scheme in schemes else schemes[0]
        details = (drawn(project.report, scheme) or project.report.schemes[scheme]).details
        return [partial(self._order_items, scheme, details),
                partial(self._fill_items, scheme, details),
                partial(self.show_context, context)]

    def _order_items(self, scheme: str, details: object) -> None:
        if not self.items.shows(scheme, details):
            self._ordered = (details, items_by_disagreement(details))

    def _fill_items(self, scheme: str, details: object) -> None:
        ordered, self._ordered = self._ordered, None
        self.items.set_items(scheme, details, lambda: ordered[1] if ordered is not None
                             and ordered[0] is details else items_by_disagreement(details),
                             lambda i, v: f"{i}  ·  partial F1 {_fmt(v)}",
                             lambda v: v is not None and v < 1.0)

    def item_order(self) -> list[str]:
        return self.items.ids()

    def _on_item_clicked(self, item: str) -> None:
        self.user_chose_item(item)

    def _on_scheme_chosen(self, index: int) -> None:
        self.user_chose_scheme(self.scheme_combo.itemText(index), keep_item=False)
