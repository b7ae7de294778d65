"""The time ruler's ticks: where they go and what they say, pure (tested without Qt).

ELAN's ruler: labelled major ticks at a round step (1, 2 or 5 times a power of ten up to
20 s, then 30 s and whole minutes) that keeps labels at least ``min_px`` apart at the
current zoom, and unlabelled minor ticks between them (5 or 4 per major step). Labels
are seconds with as many decimals as the step needs ("1.5 s" only where 0.5 s steps
are drawn), and m:ss once the view spans more than two minutes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

STEPS = (1.0, 2.0, 5.0)
"""The mantissas of a major step."""
MINUTE_PARTS = {30.0: 3, 60.0: 4, 120.0: 4, 300.0: 5, 600.0: 5, 900.0: 3, 1800.0: 3, 3600.0: 4}
"""Past 20 s, steps that fall on half or whole minutes, and their minor ticks per step."""
MIN_PX = 70.0
"""Labelled ticks are at least this far apart on screen."""


@dataclass(frozen=True, slots=True)
class Ticks:
    step: float
    major: np.ndarray
    minor: np.ndarray
    minor_step: float
    minutes: bool
    """Labels as m:ss (the view spans more than two minutes)."""
    labels: tuple[str, ...]


def major_step(span: float, px: float, min_px: float = MIN_PX) -> float:
    """The smallest round step whose ticks are at least ``min_px`` apart when ``span``
    seconds take ``px`` pixels."""
    if span <= 0 or px <= 0:
        return 1.0
    least = span * min_px / px
    if least > 20.0:
        return next((s for s in MINUTE_PARTS if s >= least), 3600.0 * math.ceil(least / 3600.0))
    power = 10.0 ** math.floor(math.log10(least))
    for mantissa in (*STEPS, 10.0):
        if mantissa * power >= least * (1 - 1e-9):
            return mantissa * power
    return 10.0 * power  # pragma: no cover (10 × power always passes)


def format_time(t: float, step: float, minutes: bool) -> str:
    """A tick's label at ``step`` precision."""
    if minutes:
        whole = round(t)
        return f"{whole // 60}:{whole % 60:02d}"
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
    return f"{t:.{decimals}f} s"


def ticks(start: float, end: float, px: float, min_px: float = MIN_PX) -> Ticks:
    """Major and minor ticks inside ``[start, end]`` drawn over ``px`` pixels."""
    step = major_step(end - start, px, min_px)
    first = math.ceil(start / step - 1e-9)
    last = math.floor(end / step + 1e-9)
    major = np.arange(first, last + 1, dtype=np.float64) * step
    mantissa = step / 10.0 ** math.floor(math.log10(step) + 1e-9)
    parts = MINUTE_PARTS.get(step, 4 if step >= 60 or round(mantissa) == 2 else 5)
    minor_step = step / parts
    k0 = math.ceil(start / minor_step - 1e-9)
    k1 = math.floor(end / minor_step + 1e-9)
    ks = np.arange(k0, k1 + 1)
    minor = ks[ks % parts != 0].astype(np.float64) * minor_step
    minutes = end - start > 120.0
    labels = tuple(format_time(t, step, minutes) for t in major)
    return Ticks(step, major, minor, minor_step, minutes, labels)
