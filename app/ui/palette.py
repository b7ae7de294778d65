"""One palette for every view, so an annotator has the same colour everywhere.

Why one module: the overview heatmap, the items table, the timeline, the 3D cuboids
and the traces grid all colour the same annotators and labels; if each view picked its
own colours, "annotator B is orange" would be true in one dock and false in the next.

Choices (the spec is silent on colours):

- Annotators: the Okabe-Ito palette (colour-blind safe, Okabe & Ito 2008) without its
  black, by the annotator's index in ``study.annotators`` (sorted names), cycling past
  seven annotators. Black is kept for the machine judge (:data:`JUDGE_COLOR`).
- Labels: Tableau 10 (also readable for the common colour-vision deficiencies), by the
  label's index in the scheme's label list, cycling past ten. :func:`label_fill` gives
  a light tint of the same hue for cell backgrounds, so dark text stays readable.
- Contract states (Potato's five): green met, red violated, amber insufficient, purple
  infeasible, slate stale, chosen to read as traffic lights but distinct in hue *and* lightness.
- Agreement scales (the heatmap, the items table's score): ColorBrewer's RdBu, which
  ColorBrewer lists as colour-blind safe, from red at 0 (low agreement reads as bad),
  through a near-white middle, to blue at 1. An earlier light-yellow → dark-blue ramp
  made the worst items pale green and the best dark blue, so nothing looked wrong.
  :func:`heat_text_color` picks white text on the two dark ends. :func:`heat_fill` is a
  lighter tint of the same colour for table cells under dark text. Undefined cells are
  never coloured as a value; they use :data:`UNDEFINED_COLOR` (light grey) with a hatch
  drawn by the widget.

The API (``annotator_color``, ``label_color``, ``label_fill``, ``STATE_COLORS``,
``heat_color``, ``heat_text_color``, ``JUDGE_COLOR``, ``UNDEFINED_COLOR``) is stable:
other views import it.
"""

from __future__ import annotations

import math
from itertools import pairwise

from PySide6.QtGui import QColor

__all__ = [
    "ANNOTATOR_HEX",
    "DISAGREE_COLOR",
    "JUDGE_COLOR",
    "LABEL_HEX",
    "STATE_COLORS",
    "UNDEFINED_COLOR",
    "annotator_color",
    "heat_color",
    "heat_fill",
    "heat_text_color",
    "label_color",
    "label_fill",
    "state_color",
]

ANNOTATOR_HEX: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#D55E00",  # vermillion
    "#F0E442",  # yellow
)
"""Okabe-Ito without black, most distinct first."""

LABEL_HEX: tuple[str, ...] = (
    "#4E79A7", "#F28E2B", "#E15759", "#76B7B2", "#59A14F",
    "#EDC948", "#B07AA1", "#FF9DA7", "#9C755F", "#BAB0AC",
)
"""Tableau 10."""

JUDGE_COLOR = QColor("#222222")
"""The machine judge (or any model prediction column)."""

UNDEFINED_COLOR = QColor("#E4E4E4")
"""Background of an undefined value: never a value's colour."""

DISAGREE_COLOR = QColor("#C0392B")
"""Marker for a disagreeing item or step."""

STATE_COLORS: dict[str, QColor] = {
    "insufficient": QColor("#E0A100"),
    "met": QColor("#2E8B57"),
    "violated": QColor("#C0392B"),  # clearly worse, or a breached audit
    "infeasible": QColor("#7B4FA0"),
    "stale": QColor("#5D6D7E"),     # recorded under another cascade
    "unknown": QColor("#9E9E9E"),   # anything else (never a state Accord reports)
}
"""Potato 2.12.1's five states (``contracts.md``, "Agreeing with Potato 2.12.1")."""

# ColorBrewer RdBu (5 classes, reversed so blue is high): value in [0, 1] -> colour.
_HEAT_STOPS: tuple[tuple[float, tuple[int, int, int]], ...] = (
    (0.0, (202, 0, 32)),
    (0.25, (244, 165, 130)),
    (0.5, (247, 247, 247)),
    (0.75, (146, 197, 222)),
    (1.0, (5, 113, 176)),
)


def annotator_color(index: int) -> QColor:
    """The colour of the annotator at ``index`` in ``study.annotators`` (cycles)."""
    return QColor(ANNOTATOR_HEX[index % len(ANNOTATOR_HEX)])


def label_color(index: int) -> QColor:
    """The colour of the label at ``index`` in the scheme's label list (cycles)."""
    return QColor(LABEL_HEX[index % len(LABEL_HEX)])


def label_fill(index: int, strength: float = 0.35) -> QColor:
    """A light tint of :func:`label_color` for backgrounds under dark text."""
    base = label_color(index)
    s = min(max(strength, 0.0), 1.0)
    return QColor(
        round(255 + (base.red() - 255) * s),
        round(255 + (base.green() - 255) * s),
        round(255 + (base.blue() - 255) * s),
    )


def state_color(state: str) -> QColor:
    """The badge colour of a contract state; unknown states are grey."""
    return QColor(STATE_COLORS.get(state, STATE_COLORS["unknown"]))


def heat_color(value: float) -> QColor:
    """The heatmap colour of ``value`` in [0, 1] (clipped); NaN gives UNDEFINED_COLOR."""
    if math.isnan(value):
        return QColor(UNDEFINED_COLOR)
    v = min(max(float(value), 0.0), 1.0)
    for (x0, c0), (x1, c1) in pairwise(_HEAT_STOPS):
        if v <= x1:
            t = 0.0 if x1 == x0 else (v - x0) / (x1 - x0)
            return QColor(*(round(a + (b - a) * t) for a, b in zip(c0, c1, strict=True)))
    return QColor(*_HEAT_STOPS[-1][1])


def heat_fill(value: float, strength: float = 0.6) -> QColor:
    """A lighter tint of :func:`heat_color` (mixed with white) for table cells under dark text."""
    base = heat_color(value)
    s = min(max(strength, 0.0), 1.0)
    return QColor(*(round(255 + (c - 255) * s) for c in (base.red(), base.green(), base.blue())))


def heat_text_color(value: float) -> QColor:
    """Black or white, whichever reads on :func:`heat_color` of ``value``."""
    bg = heat_color(value)
    luminance = 0.2126 * bg.redF() + 0.7152 * bg.greenF() + 0.0722 * bg.blueF()
    return QColor("#FFFFFF") if luminance < 0.45 else QColor("#111111")
