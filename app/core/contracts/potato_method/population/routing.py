"""Where Potato's cascade stops for each item, for a whole population at once.

The rule is :func:`~app.core.contracts.potato_method.from_store.route_stop`'s, item by
item: walk the tiers in order; a tier with no answer ends the walk (the item's output is
the last tier that answered, and the route is incomplete); an abstention or error passes
the item on; an answer stops the walk when its tier's threshold for its cell (its class,
or ``*``) is met, or when the cell has no threshold and fewer than
:data:`MIN_DEV_TO_ESCALATE` dev labels; past the last tier the output is the last tier
that answered. Here each tier is one pass of numpy over the items still walking, and a
threshold is looked up once per distinct cell key among them
(``tests/core/test_potato_population.py`` checks it against ``route_stop`` on random
cascades).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from app.core.formats.potato.engine.answers import TierColumns

MIN_DEV_TO_ESCALATE = 30
"""Dev labels a tier needs before the route may pass its items on (Potato's rule)."""


def threshold(route: Mapping[str, Any], tier: str, key: str) -> float | None:
    """The routing threshold of ``tier`` for cell ``key`` (its ``*`` when it has none)."""
    cells = route.get(tier) or {}
    value = cells[key] if key in cells else cells.get("*")
    return None if value is None else float(value)


def _escalates(cells: Mapping[str, Any], tier: str, key: str) -> bool:
    """A cell without a threshold passes its items on only with enough dev labels."""
    n_dev = int((cells.get(f"{tier}:{key}") or {}).get("n_dev", 0) or 0)
    return n_dev >= MIN_DEV_TO_ESCALATE


def route_rows(tiers: Sequence[str], columns: Sequence[TierColumns | None], rows: np.ndarray,
               route: Mapping[str, Any], cells: Mapping[str, Any], per_class: bool
               ) -> tuple[np.ndarray, bool]:
    """Per item (a column of ``rows``, the item's row in each tier or ``-1``), the
    position of the tier its cascade stops at (``-1``: none), and whether every item's
    route is complete."""
    n = rows.shape[1] if rows.ndim == 2 else 0
    stop = np.full(n, -1, np.int64)
    last = np.full(n, -1, np.int64)
    walking = np.ones(n, bool)
    complete = True
    for j, tier in enumerate(tiers):
        row = rows[j]
        missing = walking & (row < 0)
        if missing.any():
            stop[missing] = last[missing]
            walking &= ~missing
            complete = False
        column = columns[j]
        if column is None or not walking.any():
            continue
        here = np.flatnonzero(walking)
        their_rows = row[here]
        answered = column.answered[their_rows]
        here, their_rows = here[answered], their_rows[answered]
        last[here] = j
        if per_class:
            keys = [str(column.values[r]) for r in their_rows.tolist()]
            codes = {key: code for code, key in enumerate(dict.fromkeys(keys))}
            coded = np.fromiter(map(codes.__getitem__, keys), np.int64, len(keys))
        else:
            codes, coded = {"*": 0}, np.zeros(len(here), np.int64)
        limits = np.full(len(codes), np.nan)
        always = np.zeros(len(codes), bool)
        for key, code in codes.items():
            found = threshold(route, tier, key)
            if found is None:
                always[code] = not _escalates(cells, tier, key)
            else:
                limits[code] = found
        confidence = column.confidence_array[their_rows]
        with np.errstate(invalid="ignore"):
            met = ~np.isnan(limits[coded]) & (confidence >= limits[coded])
        stops = always[coded] | met
        stop[here[stops]] = j
        walking[here[stops]] = False
    stop[walking] = last[walking]
    return stop, complete
