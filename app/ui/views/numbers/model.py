"""What the numbers view plots, from a number scheme's answers (no Qt).

A ``continuous`` scheme's answers (item → annotator → number, as the study holds them and
:mod:`app.core.agreement.kinds.continuous` scores them), or a ``slider``'s (ordinal in
Accord, its stored positions numbers, scored by Potato as numbers); this module arranges
them: each annotator pair's shared items as (x, y), the Bland–Altman points and
lines of a pair, and each item's spread.

Where the spec is silent:

- Bland–Altman (Bland & Altman 1986): x the mean of the two answers, y the first minus
  the second; the bias is the mean difference and the limits of agreement bias ± 1.96·s,
  s the differences' sample standard deviation. With fewer than two shared items s is
  undefined, so the limits are ``None`` (the plot then says why) — never 0.
- An item's spread is max − min of its answers (the number a lead reads as "how far
  apart"); its standard deviation (ddof 1) is shown beside it, undefined with one answer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class PairPoints:
    a: str
    b: str
    items: tuple[str, ...]
    x: tuple[float, ...]
    y: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class BlandAltman:
    means: tuple[float, ...]
    diffs: tuple[float, ...]
    bias: float | None
    limits: tuple[float, float] | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class Spread:
    item: str
    n: int
    mean: float
    low: float
    high: float
    sd: float | None

    @property
    def spread(self) -> float:
        return self.high - self.low


def number_rows(details: Any) -> dict[str, dict[str, float]]:
    """The scheme's answers (item → annotator → number), or ``{}``."""
    if not isinstance(details, Mapping):
        return {}
    out: dict[str, dict[str, float]] = {}
    for item, by in details.items():
        if isinstance(by, Mapping):
            values = {str(a): n for a, v in by.items() if (n := _number(v)) is not None}
            if values:
                out[str(item)] = values
    return out


def _number(value: object) -> float | None:
    """A number, or a slider's stored position ("7"); anything else is no number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def pair_points(rows: Mapping[str, Mapping[str, float]], order: Sequence[str]
                ) -> list[PairPoints]:
    """Every annotator pair (in ``order``) with the items both answered, item-sorted."""
    present = [a for a in order if any(a in by for by in rows.values())]
    out = []
    for a, b in combinations(present, 2):
        items = tuple(sorted(i for i, by in rows.items() if a in by and b in by))
        out.append(PairPoints(a, b, items, tuple(rows[i][a] for i in items),
                              tuple(rows[i][b] for i in items)))
    return out


def bland_altman(x: Sequence[float], y: Sequence[float]) -> BlandAltman:
    means = tuple((p + q) / 2 for p, q in zip(x, y, strict=True))
    diffs = tuple(p - q for p, q in zip(x, y, strict=True))
    if not diffs:
        return BlandAltman((), (), None, None, "the two annotators share no item")
    bias = math.fsum(diffs) / len(diffs)
    if len(diffs) < 2:
        return BlandAltman(means, diffs, bias, None, "one shared item: the limits of "
                           "agreement need the spread of two or more differences")
    sd = math.sqrt(math.fsum((d - bias) ** 2 for d in diffs) / (len(diffs) - 1))
    return BlandAltman(means, diffs, bias, (bias - Z95 * sd, bias + Z95 * sd), None)


def spreads(rows: Mapping[str, Mapping[str, float]]) -> list[Spread]:
    """Each item's answers summarised, the widest spread first (then by item id)."""
    out = []
    for item, by in rows.items():
        values = list(by.values())
        mean = math.fsum(values) / len(values)
        sd = (math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))
              if len(values) > 1 else None)
        out.append(Spread(item, len(values), mean, min(values), max(values), sd))
    return sorted(out, key=lambda s: (-s.spread, s.item))
