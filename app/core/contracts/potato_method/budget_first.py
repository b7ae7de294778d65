"""``budget_first`` as Potato 2.12.1 evaluates it: what a budget of human labels would buy.

The other kinds start from a target and ask how many labels it takes; this one starts
from the budget (``human_labels``, or ``human_usd`` at ``reward_per_label_usd`` a label)
and projects, from the dev labels alone, the best guarantee the budget can be expected
to buy. It is a projection, not a test: it reads no cert outcome, spends no look and is
``met`` as soon as there are enough dev labels to project from (``potato-engine.md`` §4,
``contracts/budget_first.py``).

For each error target on a fixed grid it walks the dev items from the most confident
down and keeps the deepest prefix (at least 5 items, never cutting between equal
confidences) whose error, taken at a deliberately optimistic Wilson bound (level 0.6),
could be certified with the cert labels the budget adds. The level those future tests
would run at is the *next* look's, since the projection is about a test not yet made.
It also says how narrow a prevalence interval the budget would give for the first label.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.contracts.potato_method.view import MethodContract, MethodResult, MethodView
from app.core.contracts.statistics.distributions import binom_cdf, norm_ppf

ERROR_TARGETS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3)
"""The error targets the frontier is drawn for."""
DEV_NEEDED = 20
"""Dev labels with a machine answer below which nothing is projected."""
SHORTEST_PREFIX = 5
"""A prefix of fewer dev items says too little about its error to project from."""
WILSON_LEVEL = 0.6
"""Optimistic on purpose: the projection asks what *could* be certified."""
GROWTH = 1.25
"""How fast the search for a cert sample size steps up, as Potato's planner does."""
SEARCH_CAP = 1_000_000


def _level(delta: float, look: int) -> float:
    """The level of look ``look``: ``delta · 6 / (π² k²)``, Potato's ``look_alpha``."""
    k = max(1, int(look))
    return delta * 6.0 / (math.pi ** 2 * k * k)


def _budget(contract: MethodContract) -> int:
    """Human labels the budget pays for; a dollar budget without a reward buys none."""
    labels = contract.params.get("human_labels")
    if labels is not None:
        return int(labels)
    usd = contract.params.get("human_usd")
    reward = float(contract.params.get("reward_per_label_usd") or 0)
    if usd is not None and reward > 0:
        return int(float(usd) / reward)
    return 0


def _wilson_upper(errors: int, n: int, level: float) -> float:
    """One-sided Wilson score upper bound on an error rate seen as ``errors`` in ``n``."""
    if n <= 0:
        return 1.0
    z = norm_ppf(level)
    rate = errors / n
    shrink = 1 + z * z / n
    middle = rate + z * z / (2 * n)
    spread = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))
    return min(1.0, (middle + spread) / shrink)


def _sizes(target: float, alpha: float) -> npt.NDArray[np.int64]:
    """The cert sample sizes the search tries for ``target``: from where even zero
    errors could pass, ``(1 − target)^n ≤ alpha``, growing by a quarter a step up to
    :data:`SEARCH_CAP` (so an answer is one of these points, not the exact minimum)."""
    n = max(1, math.ceil(math.log(alpha) / math.log(1.0 - target)))
    sizes: list[int] = []
    while n <= SEARCH_CAP:
        sizes.append(n)
        n = int(n * GROWTH) + 1
    return np.asarray(sizes, dtype=np.int64)


def _cert_sizes(rates: npt.NDArray[np.float64], target: float,
                alpha: float) -> list[int | None]:
    """Per error rate, the first size of :func:`_sizes` at which a labeller with that
    true rate would certify ``target`` at ``alpha``: the binomial test passes on
    ``round(rate · n)`` errors. ``None`` for a rate not below the target (no sample
    certifies a labeller worse than the target) or when no size up to the cap does.

    All rates and sizes are evaluated at once; the result is the same as stepping
    through the sizes one by one and stopping at the first that passes.
    """
    sizes = _sizes(target, alpha)
    out: list[int | None] = [None] * len(rates)
    below = np.flatnonzero(rates < target)
    if below.size == 0 or sizes.size == 0:
        return out
    # np.rint rounds half to even, as Python's round does.
    errors = np.rint(rates[below, None] * sizes[None, :])
    passes = np.asarray(binom_cdf(errors, sizes[None, :], target)) <= alpha
    for row, index in enumerate(below):
        hits = np.flatnonzero(passes[row])
        if hits.size:
            out[int(index)] = int(sizes[hits[0]])
    return out


def _frontier(scored: list[tuple[float, bool]], cert_total: int,
              alpha: float) -> list[dict[str, Any]]:
    """Per error target, the deepest certifiable confidence prefix of the dev items."""
    n_dev = len(scored)
    # The prefixes that may end a rule: at least SHORTEST_PREFIX deep, and never
    # between two equal confidences.
    depths: list[int] = []
    bounds: list[float] = []
    errors = 0
    for depth, (confidence, right) in enumerate(scored, start=1):
        errors += 0 if right else 1
        ties_next = depth < n_dev and scored[depth][0] == confidence
        if depth >= SHORTEST_PREFIX and not ties_next:
            depths.append(depth)
            bounds.append(_wilson_upper(errors, depth, WILSON_LEVEL))
    rates = np.asarray(bounds, dtype=np.float64)
    out: list[dict[str, Any]] = []
    for target in ERROR_TARGETS:
        best: dict[str, Any] = {"error": target, "coverage": 0.0, "threshold": None}
        for depth, needed in zip(depths, _cert_sizes(rates, target, alpha), strict=True):
            share = depth / n_dev
            if needed is not None and needed <= cert_total * share:
                best = {"error": target, "coverage": share,
                        "threshold": scored[depth - 1][0]}
        out.append(best)
    return out


def evaluate_budget_first(contract: MethodContract, view: MethodView, look: int = 1, *,
                          dev_fraction: float = 0.5) -> MethodResult:
    """Potato's verdict for a ``budget_first`` contract.

    ``dev_fraction`` is the project's ``humans.dev_fraction`` (Potato's engine hands it
    to the contract; 0.5 when it does not): the share of the budget that would go to
    dev, so ``1 − dev_fraction`` of it adds cert labels.
    """
    result = MethodResult(state="insufficient", look=look, ran=False)
    budget = _budget(contract)
    scored = [(c.output.confidence, view.correct(c.output.value, c.truth))
              for c in view.split("dev") if c.output is not None and c.output.answered]
    result.metrics["budget_labels"] = budget
    result.metrics["n_dev"] = len(scored)
    if len(scored) < DEV_NEEDED:
        result.notes.append(f"Needs at least {DEV_NEEDED} dev labels with a machine "
                            "answer to project from.")
        result.projection = {"more_calibration_labels": 2 * (DEV_NEEDED - len(scored))}
        return result
    scored.sort(key=lambda pair: -pair[0])
    cert_total = view.n_cert + int(budget * (1.0 - float(dev_fraction)))
    alpha = _level(contract.delta, max(1, look) + 1)
    frontier = _frontier(scored, cert_total, alpha)
    result.metrics["frontier"] = frontier
    result.metrics["cert_labels_after_budget"] = cert_total
    # The interval of a prevalence narrows like 1/sqrt(n) with the labels added; the
    # numerator counts every calibration item, the denominator those with a pi.
    with_pi = sum(1 for c in view.calibration if c.pi)
    if with_pi:
        first = (sum(1 for c in view.calibration if c.truth == view.labels[0]) / with_pi
                 if view.labels else 0.5)
        result.metrics["prevalence_halfwidth_after_budget"] = 1.645 * math.sqrt(
            max(first * (1 - first), 0.01) / (with_pi + budget))
    result.state = "met"
    pick = max(frontier, key=lambda f: (f["coverage"] > 0, -f["error"]))
    reach = (f"an error target of {pick['error']:.0%} could be certified on about "
             f"{pick['coverage']:.0%} of the corpus." if pick["coverage"] > 0 else
             "no error target on the grid could be certified.")
    result.statement = (f"With {budget} more human labels, the dev labels so far project "
                        f"that {reach}")
    return result
