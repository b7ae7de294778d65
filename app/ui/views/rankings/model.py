"""What the rankings view draws for one item (no Qt), from the orders as the study holds
them (the ones the ranking kind scores): each annotator's order and, per annotator pair,
Kendall's τ and Spearman's footrule on the options both ranked, by the kind's own functions
(:mod:`app.core.agreement.ranking.metrics`), so the view shows the numbers the report
averaged.

Where the spec is silent: an item's τ is the mean over its annotator pairs whose τ is
defined (the report's mean runs over every such (pair, item)); with no defined pair the
item's τ is ``None`` and the first pair's sentence says why. The items list is sorted by
that τ, lowest (most disagreement) first, undefined last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from app.core.agreement.ranking.metrics import kendall_tau, spearman_footrule

Ranking = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PairTau:
    a: str
    b: str
    tau: float | None
    footrule: float | None
    reason: str | None


def ranking_rows(details: Any) -> dict[str, dict[str, Ranking]]:
    """The scheme's orders (item → annotator → options, best first), or ``{}``."""
    if not isinstance(details, Mapping):
        return {}
    return {str(item): {str(a): tuple(v) for a, v in by.items() if isinstance(v, tuple)}
            for item, by in details.items() if isinstance(by, Mapping)}


def pair_taus(orders: Mapping[str, Ranking], order: Sequence[str]) -> list[PairTau]:
    names = [a for a in order if a in orders]
    out = []
    for a, b in combinations(names, 2):
        tau, foot = kendall_tau(orders[a], orders[b]), spearman_footrule(orders[a], orders[b])
        out.append(PairTau(a, b, tau.value, foot.value, tau.reason))
    return out


def item_tau(pairs: Sequence[PairTau]) -> tuple[float | None, str | None]:
    defined = [p.tau for p in pairs if p.tau is not None]
    if defined:
        return sum(defined) / len(defined), None
    if not pairs:
        return None, "one annotator ranked this item: τ needs a pair"
    return None, pairs[0].reason


def items_by_tau(rows: Mapping[str, Mapping[str, Ranking]], order: Sequence[str]
                 ) -> list[tuple[str, float | None]]:
    taus = list(zip(rows, item_taus(rows, order), strict=True))
    return sorted(taus, key=lambda t: (t[1] is None, t[1] if t[1] is not None else 0.0,
                                       t[0]))


def item_taus(rows: Mapping[str, Mapping[str, Ranking]], order: Sequence[str],
              chunk: int = 2048) -> list[float | None]:
    """Every item's τ (as :func:`item_tau`), for all items at once in numpy.

    Why: the items list needs every item's τ, and the kind's function per pair and item
    took 270 ms of the GUI thread at 10,000 items × 3 annotators × 5 options. τ only
    needs the sign of each option pair's order in either ranking, which re-ranking
    within the shared options keeps, so each ranking becomes a row of positions over
    the scheme's options (−1: not ranked) and each pair's concordant-minus-discordant
    count is one sum over option pairs both ranked. An item where someone ranked an
    option twice goes through the kind's own function (which keeps the first place in
    one ranking and the last in the other)."""
    items = list(rows)
    names = [a for a in order if any(a in by for by in rows.values())]
    options = sorted({o for by in rows.values() for r in by.values() for o in r})
    where = {o: k for k, o in enumerate(options)}
    out: list[float | None] = [None] * len(items)
    slow = [i for i, item in enumerate(items)
            if any(len(set(r)) != len(r) for r in rows[item].values())]
    for i in slow:
        out[i] = item_tau(pair_taus(rows[items[i]], order))[0]
    skip = set(slow)
    fast = [i for i in range(len(items)) if i not in skip]
    for lo in range(0, len(fast), chunk):
        part = fast[lo:lo + chunk]
        pos = np.full((len(part), len(names), len(options)), -1, dtype=np.int64)
        cells: list[tuple[int, int, int, int]] = []  # (item, annotator, option, place)
        for row, i in enumerate(part):
            by = rows[items[i]]
            for col, name in enumerate(names):
                ranking = by.get(name)
                if ranking is not None:
                    cells.extend((row, col, where[o], k) for k, o in enumerate(ranking))
        if cells:
            r, c, o, k = np.asarray(cells, dtype=np.int64).T
            pos[r, c, o] = k
        total = np.zeros(len(part))
        count = np.zeros(len(part))
        for a, b in combinations(range(len(names)), 2):
            pa, pb = pos[:, a, :], pos[:, b, :]
            both = (pa >= 0) & (pb >= 0)
            n = both.sum(axis=1)
            sa = np.sign(pa[:, :, None] - pa[:, None, :])
            sb = np.sign(pb[:, :, None] - pb[:, None, :])
            pair = both[:, :, None] & both[:, None, :]
            score = (sa * sb * pair).sum(axis=(1, 2)) / 2
            ok = n >= 2
            total[ok] += score[ok] / (n[ok] * (n[ok] - 1) / 2)
            count[ok] += 1
        for row, i in enumerate(part):
            out[i] = float(total[row] / count[row]) if count[row] else None
    return out


def options_of(orders: Mapping[str, Ranking], declared: Sequence[str]) -> list[str]:
    """Every option of the item: the scheme's declared ones first, then others as seen."""
    seen = [o for order in orders.values() for o in order]
    return [*declared, *(o for o in dict.fromkeys(seen) if o not in declared)]
