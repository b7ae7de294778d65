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
    taus = [(item, item_tau(pair_taus(by, order))[0]) for item, by in rows.items()]
    return sorted(taus, key=lambda t: (t[1] is None, t[1] if t[1] is not None else 0.0,
                                       t[0]))


def options_of(orders: Mapping[str, Ranking], declared: Sequence[str]) -> list[str]:
    """Every option of the item: the scheme's declared ones first, then others as seen."""
    seen = [o for order in orders.values() for o in order]
    return [*declared, *(o for o in dict.fromkeys(seen) if o not in declared)]
