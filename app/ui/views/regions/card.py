"""The regions scheme's numbers under the distance plot, in three groups.

Why three groups: a lead read "KS" under "chance-corrected" and trusted it as a
coefficient; KS is the Kolmogorov–Smirnov distance between the within- and between-item
localization distances, a test statistic, not agreement beyond chance. So the card keeps
apart:

- **Chance-corrected**: detection α (found the same objects), classification α (gave
  the same label) and localization σ (placed them alike, against the between-item
  chance distances), the numbers here that are 0 at chance agreement. The set is
  :data:`~app.ui.views.metric_text.CORRECTED`, the overview's, so the two never
  disagree on what is corrected;
- **Localization**: KS (with its p-value) and the mean within- and between-item
  distances, read off the two distributions the plot above draws; not corrected;
- **Matching**: mean agreement, detection F1, mean IoU of matched objects and the
  object-count difference, with their bootstrap intervals; they measure overlap.

Each row is a grid of labels (name, value, interval); the value and the interval are
one-line labels, so an interval never wraps (the old card broke ``95% CI 0.396 – 0.529``
over three lines) and the card's minimum width keeps room for the widest; a metric's
name and a group's heading may wrap instead when room is short (presentation mode).
An undefined number reads "undefined" and its sentence is written under its group;
fewer than 20 scored items puts ⚠ beside the αs and the intervals, with the overview's
sentence (:func:`~app.ui.views.metric_text.small_sample_text`).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QScrollArea, QWidget

from app.core.agreement.result import SchemeResult
from app.ui.views.metric_text import (
    CORRECTED,
    WARN,
    fmt,
    interval_text,
    metric_label,
    small_sample,
    small_sample_text,
)

CHANCE_CORRECTED = tuple(
    key for key in ("detection_alpha", "classification_alpha", "sigma") if key in CORRECTED
)
LOCALIZATION = ("ks", "mean_within_distance", "mean_between_distance")
MATCHING = ("mean_agreement", "detection_f1", "mean_matched_iou", "mean_object_count_diff")
GROUPS = (
    ("Chance-corrected", "0 at chance agreement (σ: between-item chance)", CHANCE_CORRECTED),
    ("Localization", "within- vs. between-item distances d = (1 − GIoU) / 2; "
     "not chance-corrected", LOCALIZATION),
    ("Matching", "overlap of matched objects; not chance-corrected", MATCHING),
)
MIN_VISIBLE_HEIGHT = 100
"""Docked at 1280×800 the view is ~320 px tall: the card keeps this much and scrolls."""
HEAD_COLOR = "#0072B2"
TEXT_COLOR = "#202020"
NOTE_COLOR = "#666666"
UNDEFINED_COLOR = "#8A4B00"


def _tint(label: QLabel, color: str) -> None:
    """The label's text colour through its palette: a style sheet would stop it from
    inheriting the view's font, and presentation mode's larger text would skip it."""
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor(color))
    label.setPalette(palette)


def _one_line(text: str, color: str | None = None, align_right: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(False)
    if color:
        _tint(label, color)
    if align_right:
        label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return label


class _Name(QLabel):
    """A metric's name: one line when there is room, wrapped only when there is not.

    A word-wrapped ``QLabel`` asks for a narrow, squarish size, and the grid then wraps
    "Detection α (found the same objects)" over four lines beside plenty of space."""

    def _one_line_width(self) -> int:
        return self.fontMetrics().horizontalAdvance(self.text()) + 2 * self.margin() + 2

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(self._one_line_width(), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        # at most two lines: half the one-line width, or the longest word if wider
        words = max(
            (self.fontMetrics().horizontalAdvance(w) for w in self.text().split()), default=0
        )
        width = max(words + 2, self._one_line_width() // 2 + 8)
        return QSize(width, super().minimumSizeHint().height())


def _name(text: str) -> QLabel:
    label = _Name(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    _tint(label, TEXT_COLOR)
    return label


def _wrapped(text: str, color: str) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    _tint(label, color)
    return label


class NumbersCard(QWidget):
    """Three groups of name · value · interval rows (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(2, 4, 2, 2)
        self.grid.setHorizontalSpacing(10)
        self.grid.setVerticalSpacing(1)
        self.rows: dict[str, tuple[QLabel, QLabel, QLabel]] = {}
        """Metric key → its (name, value, interval) labels."""
        self.group_of: dict[str, str] = {}
        """Metric key → the title of the group it is listed under."""
        self.notes: list[QLabel] = []

    def _clear(self) -> None:
        while self.grid.count():
            child = self.grid.takeAt(0)
            widget = child.widget() if child is not None else None
            if widget is not None:
                widget.setParent(None)
                widget.deleteLater()
        self.rows, self.group_of, self.notes = {}, {}, []

    def show_result(
        self, result: SchemeResult | None, anonymize: Callable[[str], str] = str
    ) -> None:
        self._clear()
        if result is None:
            return
        row = 0
        small = small_sample(result)
        if small:
            row = self._note(row, escape(small_sample_text(result)), UNDEFINED_COLOR)
        level = (result.extra.get("bootstrap") or {}).get("level")
        for title, hint, keys in GROUPS:
            present = [k for k in keys if k in result.metrics]
            if not present:
                continue
            threshold = result.extra.get("threshold")
            if title == "Matching" and isinstance(threshold, int | float):
                hint = f"objects matched at IoU ≥ {threshold:g}; not chance-corrected"
            head = _wrapped(
                f"<b>{title}</b> <span style='color:{NOTE_COLOR}'>· {escape(hint)}</span>",
                HEAD_COLOR,
            )
            self.grid.addWidget(head, row, 0, 1, 4)
            row += 1
            reasons = []
            for key in present:
                value = result.metrics[key]
                warn = small and title == "Chance-corrected" and value is not None
                shown = (
                    "<i>undefined</i>"
                    if value is None
                    else f"<b>{fmt(key, value)}</b>" + (f" {WARN}" if warn else "")
                )
                interval = escape(interval_text(result.intervals.get(key), key, level, small=small))
                if key == "ks" and value is not None and "ks_pvalue" in result.extra:
                    interval = f"p = {float(result.extra['ks_pvalue']):.2g}"
                labels = (
                    _name(metric_label(key, result.kind)),
                    _one_line(shown, UNDEFINED_COLOR if value is None else None, True),
                    _one_line(interval, NOTE_COLOR),
                )
                for column, label in enumerate(labels):
                    self.grid.addWidget(label, row, column)
                self.rows[key] = labels
                self.group_of[key] = title
                row += 1
                if value is None:
                    why = anonymize(result.undefined.get(key, "no reason given"))
                    reasons.append(
                        f"{escape(metric_label(key, result.kind))} is undefined: {escape(why)}."
                    )
            if reasons:
                row = self._note(row, "<br>".join(reasons), UNDEFINED_COLOR)
            if title == "Localization":
                row = self._note(row, escape(baseline_text(result)), NOTE_COLOR)
        # Spare width goes to an empty fourth column; short of width, the wrapped names
        # give first (their minimum is a word), never the one-line values and intervals.
        self.grid.setColumnStretch(3, 1)

    def _note(self, row: int, html: str, color: str) -> int:
        if not html:
            return row
        label = _wrapped(html, color)
        self.grid.addWidget(label, row, 0, 1, 4)
        self.notes.append(label)
        return row + 1

    def text(self) -> str:
        """Everything the card shows, as plain lines (for tests and the clipboard)."""
        lines = []
        for key, (name, value, interval) in self.rows.items():
            lines.append(f"[{self.group_of[key]}] {name.text()} {value.text()} {interval.text()}")
        lines += [n.text() for n in self.notes]
        return "\n".join(lines)


def baseline_text(result: SchemeResult) -> str:
    """How the between-item (chance) sample was drawn, in one sentence ('' if unknown)."""
    baseline = result.extra.get("chance_baseline")
    if not isinstance(baseline, dict):
        return ""
    if baseline.get("all_between_item_pairs"):
        return "Between-item sample: every between-item pair."
    return (
        f"Between-item sample: {baseline.get('n_pairs', 0):,} random between-item "
        f"pairs, seed {baseline.get('seed')}."
    )


class CardScroll(QScrollArea):
    """The card in a vertical scroll area that asks for the card's whole height.

    Why: a plain ``QScrollArea`` asks for at most 24 lines and can be squeezed to
    nothing; beside a plot that takes any height it is given, the card then vanished in
    the docked window. This one asks for the card's full height (the plot gets what is
    left) and never less than :data:`MIN_VISIBLE_HEIGHT` (or the card, if shorter).
    """

    def __init__(self, card: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidget(card)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        card.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        # The card's rows are shown (and its layout redone) after show_result returns;
        # tell the view's layout then, or it keeps the empty card's height.
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        card = self.widget()
        hint = card.sizeHint() if card is not None else QSize(0, 0)
        return QSize(hint.width() + self.verticalScrollBar().sizeHint().width(), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        card = self.widget()
        width = card.minimumSizeHint().width() if card is not None else 0
        return QSize(
            width + self.verticalScrollBar().sizeHint().width(),
            min(self.sizeHint().height(), MIN_VISIBLE_HEIGHT),
        )
