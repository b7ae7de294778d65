"""The level a contract's test spends at each look: how testing again stays honest.

:func:`look_level` splits a contract's error budget over repeated looks,
``(1 − confidence) · 6 / (π² k²)`` for look k; the levels sum to the whole budget
because Σ 1/k² = π²/6, so testing again as labels arrive never inflates confidence
(``contracts.md``, Looks). Where a look is *spent* (recorded) is the ledger,
:meth:`app.core.contracts.ledger.chain.Ledger.append_look`; what the next one costs, in
words, is :mod:`app.core.contracts.look_cost`.
"""

from __future__ import annotations

import math

from app.core.contracts.statistics.checks import _count, _probability


def look_level(look: int, confidence: float) -> float:
    """The share of the error budget spent by look ``look`` (1-based).

    ``(1 − confidence) · 6 / (π² k²)``. Since Σ_k 1/k² = π²/6 the levels of all
    possible looks add up to ``1 − confidence``, so a contract tested again and again
    as labels arrive keeps its overall error probability (a union bound over looks);
    the first look gets 6/π² ≈ 61% of the budget.

    Parameters
    ----------
    look : int
        The look number, 1 for the first test.
    confidence : float
        The contract's confidence, in (0, 1).
    """
    k = _count(look, "look")
    if k < 1:
        raise ValueError(f"looks are numbered from 1, got {k}")
    c = _probability(confidence, "confidence")
    return (1.0 - c) * 6.0 / (math.pi ** 2 * k * k)
