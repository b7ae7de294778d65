"""``selective_risk``'s coverage over a :class:`PopulationTable`, tier by tier in numpy.

The rule is :func:`~app.core.contracts.potato_method.selective_risk.coverage`'s, item by
item: the first tier that answered with confidence at its routing threshold for the
item's cell takes the item, and accepts it when the certified threshold allows (else
the item goes to people); an item no tier takes goes to people. Here each tier is one
pass over the items no earlier tier took, and the thresholds are looked up once per
distinct cell key (``tests/core/test_potato_population.py`` compares with the per-item
walk).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from app.core.contracts.potato_method.population.table import PopulationTable


def coverage_counts(table: PopulationTable, tiers: tuple[str, ...],
                    acceptance: Mapping[str, Mapping[str, float | None]],
                    route: Mapping[int, Mapping[str, float | None]], per_class: bool,
                    class_of: Callable[[Any], str]) -> tuple[dict[str, int], int]:
    """(accepted per tier, items to people)."""
    n = len(table)
    by_tier = dict.fromkeys(tiers, 0)
    walking = np.ones(n, bool)
    to_people = 0
    for position, tier in enumerate(tiers):
        column = table.tiers[position] if position < len(table.tiers) else None
        if column is None:
            continue
        rows = table.rows[position]
        here = np.flatnonzero(walking & (rows >= 0))
        their_rows = rows[here]
        answered = column.answered[their_rows]
        here, their_rows = here[answered], their_rows[answered]
        if per_class:
            keys = [class_of(column.values[r]) for r in their_rows.tolist()]
            codes = {key: code for code, key in enumerate(dict.fromkeys(keys))}
            coded = np.fromiter(map(codes.__getitem__, keys), np.int64, len(keys))
        else:  # one key for all: no list of a million "*" to code (one long C call each)
            codes = {"*": 0} if len(here) else {}
            coded = np.zeros(len(here), np.int64)
        keep = _limits(codes, route.get(position, {}))
        accept = _limits(codes, acceptance.get(tier, {}))
        confidence = column.confidence_array[their_rows]
        with np.errstate(invalid="ignore"):
            taken = ~np.isnan(keep[coded]) & (confidence >= keep[coded])
            accepted = taken & ~np.isnan(accept[coded]) & (confidence >= accept[coded])
        by_tier[tier] += int(accepted.sum())
        to_people += int(taken.sum() - accepted.sum())
        walking[here[taken]] = False
    return by_tier, to_people + int(walking.sum())


def _limits(codes: Mapping[str, int], cells: Mapping[str, float | None]) -> np.ndarray:
    """Each code's threshold (NaN: none, which neither takes nor accepts)."""
    out = np.full(len(codes), np.nan)
    for key, code in codes.items():
        value = cells.get(key)
        if value is not None:
            out[code] = float(value)
    return out
