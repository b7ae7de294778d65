"""The overview: every scheme's agreement at a glance, and who agrees with whom.

Left, one card per scheme (in a scroll area): the headline numbers with their intervals,
split into *chance-corrected* and *not chance-corrected* groups with those very words,
the coverage, every undefined number's reason as a sentence, the step-level α of a
trace beside the α of the study's simpler categorical scheme, and the notes (then Potato's
own numbers, ``potato_iaa``). Right, the annotator-pair matrix of the selected scheme as a
heatmap. Everything shown is read from ``SchemeResult`` (rule 5); nothing is computed here.

Choices (the spec is silent):

- Which metrics count as chance-corrected: α, κ, Fleiss' κ, detection and
  classification α, and the localization σ and KS, which compare within-item distances
  with the between-item (chance) distribution. Everything else (percent agreement,
  mean agreement, F1, IoU, Jaccard, distances, STAPLE rates) is listed as not
  chance-corrected.
- An undefined number shows the word "undefined" where the value would be, and its
  reason in a sentence under the numbers: never 0, 1 or a blank.
- The card's headline (in its title) is the scheme's one headline
  (``metric_text.headline_key``), the same the project tree shows; when the pair matrix
  cannot show it (detection α is not a pair number) its title says so.
- Fewer than 20 scored items: ⚠ beside every coefficient and interval and a sentence.
- The heatmap shows one pair metric at a time (a combo box): α when the scheme has it,
  else mean agreement. Blue is always more agreement and red less (palette.py); for the
  object-count difference (lower is better) the ramp is reversed and scaled to the largest
  difference. Negative coefficients sit at the red end and keep their sign in the cell text.
- Numbers and rankings offer r and τ only: MAE, RMSE and footrule are distances (in reports).
- Clicking a card selects its scheme: ``scheme_picked`` is emitted and the heatmap
  follows at once (the main window will send the same scheme back in the context).
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QMouseEvent, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.agreement.partitions import drawn
from app.core.agreement.result import SchemeResult
from app.report.agreement_vocabulary import card_line, raters_note
from app.ui.palette import annotator_color
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.kinds import no_pairs_reason, pair_reason
from app.ui.views.metric_text import (
    CORRECTED,
    PAIR_ORDER,
    SMALL_SAMPLE,
    UNCORRECTED,
    WARN,
    card_notes,
    coverage_text,
    fmt,
    headline,
    headline_key,
    interval_text,
    metric_label,
    reference_text,
    small_sample,
    small_sample_text,
    value_text,
)
from app.ui.views.overview.groups import metric_groups
from app.ui.views.overview.heatmap import CellState, HeatCell, PairHeatmap

CARD_STYLE = ("QFrame#card {background: palette(base); border: 1px solid #D6D6D6;"
              " border-radius: 6px;}")
SELECTED_STYLE = ("QFrame#card {background: palette(base); border: 2px solid #0072B2;"
                  " border-radius: 6px;}")


class _Card(QFrame):
    def __init__(self, scheme: str, on_click: object) -> None:
        super().__init__()
        self.scheme = scheme
        self._on_click = on_click
        self.setObjectName("card")
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        if callable(self._on_click):
            self._on_click(self.scheme)
        super().mousePressEvent(event)

    def texts(self) -> list[str]:
        """The plain text of every label on the card (what a reader sees)."""
        return [_plain(label.text()) for label in self.findChildren(QLabel)]


def _plain(html: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()


class OverviewView(View):
    name = "overview"
    title = "Overview"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self._built_key: tuple[object, ...] | None = None
        self._cards: dict[str, _Card] = {}
        self._selected: str | None = None

        self._header = QLabel(textFormat=Qt.TextFormat.RichText, wordWrap=True)

        self._cards_box = QWidget()
        self._cards_layout = QVBoxLayout(self._cards_box)
        self._cards_layout.setContentsMargins(4, 4, 4, 4)
        self._cards_layout.setSpacing(10)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._cards_box)
        scroll.setFrameShape(QFrame.Shape.NoFrame)

        self.pair_title = QLabel()
        self.pair_title.setTextFormat(Qt.TextFormat.RichText)
        self.pair_title.setWordWrap(True)
        self.metric_combo = QComboBox()
        self.metric_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.metric_combo.currentIndexChanged.connect(self._draw_pairs)
        self.heatmap = PairHeatmap()
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(8, 4, 4, 4)
        row = QHBoxLayout()
        row.addWidget(self.pair_title, 1)
        row.addWidget(self.metric_combo)
        rl.addLayout(row)
        # A short dock scrolls a readable matrix rather than squeezing it (issue 35).
        self.heatmap_scroll = QScrollArea(widgetResizable=True)
        self.heatmap_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.heatmap_scroll.setWidget(self.heatmap)
        rl.addWidget(self.heatmap_scroll, 1)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(scroll)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([720, 520])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self._header)
        layout.addWidget(splitter, 1)
        self.show_context(ViewContext())

    # ------------------------------------------------------------------ contract

    def show_context(self, context: ViewContext) -> None:
        self._context = context
        font = QFont(QApplication.font())
        font.setPointSizeF(font.pointSizeF() * context.font_scale)
        self.setFont(font)
        project = context.project
        key = (id(project), context.anonymous, context.font_scale,
               tuple(sorted(context.aliases.items())))
        if key != self._built_key:
            self._built_key = key
            self._build_cards()
        schemes = list(project.report.schemes) if project else []
        wanted = context.scheme
        if wanted not in schemes:
            wanted = next((s for s in schemes if wanted and s.startswith(f"{wanted}#")),
                          schemes[0] if schemes else None)
        self._select(wanted)

    # ------------------------------------------------------------------ for tests

    def card(self, scheme: str) -> _Card:
        return self._cards[scheme]

    @property
    def selected_scheme(self) -> str | None:
        return self._selected

    @property
    def header_text(self) -> str:
        return _plain(self._header.text())

    # ------------------------------------------------------------------ building

    def _build_cards(self) -> None:
        while self._cards_layout.count():
            item = self._cards_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self._cards = {}
        project = self._context.project
        if project is None:
            self._header.setText("")
            self._cards_layout.addStretch(1)
            self.show_empty(NO_PROJECT)
            return
        self.hide_empty()
        ctx = self._context
        study = project.study
        chips = " ".join(
            f'<span style="color:{annotator_color(i).name()}">●</span>&nbsp;'
            f"{escape(ctx.annotator_label(name))}" for i, name in enumerate(study.annotators))
        self._header.setText(
            f"<h3>{escape(project.path.name)}</h3>{len(study.items)} items · "
            + (f"{len(study.annotators)} annotators: {chips}"
               + (f"<br><span style='color:#444'>{escape(note)}</span>"
                  if (note := raters_note(project.report)) else "")
               if chips else
               "no annotator folder (the labels are in Potato's engine database)"
               if project.labels is not None and project.labels.potato is not None
               else "no annotators"))
        for name, result in project.report.schemes.items():
            card = self._make_card(result)
            for label in card.findChildren(QLabel):  # a style-sheeted card does not pass
                label.setFont(self.font())  # its parent's font on (font_scale)
            self._cards[name] = card
            self._cards_layout.addWidget(card)
        for note in project.report.notes:
            self._cards_layout.addWidget(
                _label(f"<i>{escape(self._context.anonymize_text(note))}</i>"))
        self._cards_layout.addStretch(1)

    def _make_card(self, result: SchemeResult) -> _Card:
        card = _Card(result.name, self._pick)
        card.setStyleSheet(CARD_STYLE)
        layout = QVBoxLayout(card)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(4)
        kind = result.kind or "no measure"
        layout.addWidget(_label(
            f"<h3>{escape(result.name)} <span style='color:#666;font-weight:normal'>"
            f"{escape(result.annotation_type)} · {escape(kind)}</span></h3>"
            f"{headline(result)}"))
        if result.not_computed is not None:
            layout.addWidget(_label(f"<i>{escape(result.not_computed)}</i>"))
            return card
        layout.addWidget(_label(coverage_text(result), "#444444"))
        partitions = card_line(self._context.project.report, result.name, lambda key:
                               metric_label(key, result.kind)) if self._context.project else ""
        if partitions:
            layout.addWidget(_label(escape(partitions), "#444444"))
        if small_sample(result):
            layout.addWidget(_label(escape(small_sample_text(result)), "#8A4B00"))
        groups = QVBoxLayout()  # stacked, so each table has the card's width: no wrapping
        groups.setSpacing(6)
        sections = metric_groups(result) or (("Chance-corrected", CORRECTED),
                                             ("Not chance-corrected", UNCORRECTED))
        for title, keys in sections:
            rows = [k for k in keys if k in result.metrics]
            if title == "Not chance-corrected":
                rows += [k for k in result.metrics if k not in CORRECTED
                         and k not in UNCORRECTED and k != "n_units"]
            if rows:
                groups.addWidget(_label(self._metric_table(result, title, rows),
                                        wrap=False), 1, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(groups)
        reference = reference_text(result)
        if reference:
            layout.addWidget(_label(reference))
        if result.undefined:
            lines = "".join(f"<li><b>{escape(metric_label(k, result.kind))}</b> is "
                            f"undefined: {escape(self._context.anonymize_text(why))}.</li>"
                            for k, why in result.undefined.items())
            layout.addWidget(_label(f"<span style='color:#8A4B00'>Undefined, and why:"
                                    f"</span><ul style='margin:0'>{lines}</ul>"))
        if said := card_notes(result):
            notes = "<br>".join(escape(self._context.anonymize_text(n)) for n in said)
            layout.addWidget(_label(f"<span style='color:#666'>{notes}</span>"))
        return card

    def _metric_table(self, result: SchemeResult, title: str, keys: list[str]) -> str:
        level = (result.extra.get("bootstrap") or {}).get("level")
        rows = []
        small = small_sample(result)
        for key in keys:
            shown = value_text(result, key)
            interval = interval_text(result.intervals.get(key), key, level, small=small)
            rows.append(f"<tr><td style='{NOWRAP}'>{escape(metric_label(key, result.kind))}"
                        f"</td><td align='right' style='{NOWRAP}'>&nbsp;&nbsp;{shown}</td>"
                        f"<td style='{NOWRAP};color:#666'>&nbsp;&nbsp;{interval}</td></tr>")
        return (f"<div style='color:#0072B2'><b>{title}</b></div>"
                f"<table cellspacing='0' cellpadding='1'>{''.join(rows)}</table>")

    # ------------------------------------------------------------------ selection

    def _pick(self, scheme: str) -> None:
        self._select(scheme)
        self.scheme_picked.emit(scheme)

    def _select(self, scheme: str | None) -> None:
        self._selected = scheme
        for name, card in self._cards.items():
            card.setStyleSheet(SELECTED_STYLE if name == scheme else CARD_STYLE)
        project = self._context.project
        result = drawn(project.report, scheme) if project and scheme else None
        keys = [k for k in PAIR_ORDER if result and any(k in p for p in result.pairs.values())]
        previous = self.metric_combo.currentData()
        self.metric_combo.blockSignals(True)
        self.metric_combo.clear()
        kind = result.kind if result else None
        for key in keys:  # a pair's own name where the kind has one (r, not a mean of r)
            self.metric_combo.addItem(metric_label(key, kind, pair=True), key)
        if previous in keys:
            self.metric_combo.setCurrentIndex(keys.index(previous))
        self.metric_combo.setVisible(bool(keys))
        self.metric_combo.blockSignals(False)
        self._draw_pairs()

    def _draw_pairs(self) -> None:
        project = self._context.project
        scheme = self._selected
        result = drawn(project.report, scheme) if project and scheme else None
        if result is None:
            self.pair_title.setText("<b>Annotator pairs</b>")
            self.heatmap.set_empty("No scheme to show.")
            return
        metric = self.metric_combo.currentData()
        everyone = ("<br><span style='color:#666'>People and machine raters (⚙): every "
                    "pair; the cards' numbers are over people only.</span>"
                    if project is not None and project.report.partitions else "")
        self.pair_title.setText(f"<b>Annotator pairs</b> · {escape(result.name)}"
                                f"{self._headline_note(result)}{everyone}")
        if not result.pairs or metric is None:
            why = no_pairs_reason(result) or "no two annotators answered the same item"
            self.heatmap.set_empty(f"No annotator-pair matrix: {why}.")
            return
        self._fill_heatmap(result, str(metric))

    @staticmethod
    def _headline_note(result: SchemeResult) -> str:
        """Why the matrix shows another number than the card's headline, if it does."""
        key = headline_key(result.metrics)
        if key is None or not result.pairs or any(key in p for p in result.pairs.values()):
            return ""
        return (f"<br><span style='color:#666'>{escape(metric_label(key, result.kind))}, "
                "the headline, is one number over all annotators together; per pair "
                "the matrix shows the numbers each pair has.</span>")

    def _fill_heatmap(self, result: SchemeResult, metric: str) -> None:
        assert self._context.project is not None
        ctx = self._context
        order = list(ctx.project.study.annotators) if ctx.project else []
        present = {a for key in result.pairs for a in key.split("|")}
        names = [a for a in order if a in present] + sorted(present - set(order))
        index = {a: i for i, a in enumerate(order)}
        values = [p.get(metric) for p in result.pairs.values()]
        reverse = metric == "mean_object_count_diff"
        top = max((float(v) for v in values if v is not None), default=0.0)
        label = metric_label(metric, result.kind, pair=True)
        cells: dict[tuple[int, int], HeatCell] = {}
        for key, entry in result.pairs.items():
            a, b = key.split("|")
            value = entry.get(metric)
            size = entry.get("n_units", entry.get("n_items"))
            unit = "step units" if "n_units" in entry else "items"
            who = f"{ctx.annotator_label(a)} – {ctx.annotator_label(b)}"
            if value is None:
                cell = HeatCell(CellState.UNDEFINED, f"undefined\nn={size}", 0.0,
                                f"{who}: {label} is undefined on the {size} {unit} they "
                                f"share ({ctx.anonymize_text(pair_reason(result, key, metric))})")
            else:
                v = float(value)
                shade = (1.0 - v / top if top > 0 else 1.0) if reverse else v
                few = isinstance(size, int) and size < SMALL_SAMPLE
                cell = HeatCell(CellState.VALUE,
                                f"{fmt(metric, v)}\nn={size}{' ' + WARN if few else ''}", shade,
                                f"{who}: {label} {fmt(metric, v)} over {size} {unit}"
                                + (f" (fewer than {SMALL_SAMPLE}: not reliable)" if few else ""))
            i, j = names.index(a), names.index(b)
            cells[(i, j)] = cells[(j, i)] = cell
        ends = (f"{top:.2f}", "0") if reverse else ("≤ 0", "1")
        colors = [annotator_color(index.get(n, k)) for k, n in enumerate(names)]
        self.heatmap.set_matrix([ctx.annotator_label(n) for n in names], colors, cells,
                                ends)


NOWRAP = "white-space:nowrap"
"""Qt's rich text ignores the ``nowrap`` attribute of a cell but honours this style."""


def _label(html: str, color: str | None = None, *, wrap: bool = True) -> QLabel:
    """A rich-text label; ``wrap=False`` for a table of unbreakable cells, which word
    wrapping cannot narrow but makes Qt lay out again for every width it tries (a third of
    a card's layout time)."""
    label = QLabel(html if color is None else f"<span style='color:{color}'>{html}</span>")
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(wrap)
    return label
