"""The dev half of Potato 2.12.1's ``selective_risk``: cells, thresholds, the dev choice.

``potato-engine.md`` §4 (``contracts/selective_risk.py:105-240``). The method decides
*what* to test from the dev labels alone, so that the cert labels are read only by the
tests (:mod:`.selective_risk` runs them). This module is that first pass:

- a **cell** is the items one tier answers (and, with ``per_class``, predicts one class
  for) among those the earlier tiers did not keep; which items an earlier tier keeps is
  its dev threshold, so a later cell is fixed before any cert label is read;
- a cell's **threshold grid** is its distinct dev confidences to 6 places, highest first,
  thinned to 200 evenly spaced entries, and a label is accepted when its confidence is at
  least the threshold;
- the dev error at a threshold is smoothed, ``(k + 0.5) / (n + 1)``, and thresholds that
  accept fewer than 5 dev labels say nothing;
- the **last tier** starts its cert search at the most conservative threshold whose dev
  error is at most half the target and whose expected cert count has 1.5 times the
  fewest labels that could pass; **earlier tiers** take the most liberal threshold
  whose projected labels, with the same 1.5 margin, fit the expected cert count;
- alongside, the cheapest threshold that could ever be chosen is kept for the
  projection of labels still needed, and the lowest raw dev error on the last tier for
  the "under the target but not under half of it" note.

Every comparison is written in the same arithmetic order as Potato's, so boundary cases
(an expected cert count exactly at the margin) fall the same way.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from app.core.contracts.potato_method.risk_stats import labels_to_certify
from app.core.contracts.potato_method.view import CalibrationItem, MethodView, TierAnswer

#: Headroom an earlier tier's projected labels must leave in the expected cert count:
#: a threshold chosen at the edge fails its one test about half the time.
DEV_MARGIN = 1.5
#: The last tier starts where the expected cert count is this many times the fewest
#: labels that could pass; its search moves to more liberal thresholds by itself.
START_MARGIN = 1.5
#: Largest threshold grid; longer ones are thinned evenly.
GRID_SIZE = 200
#: Thresholds accepting fewer dev labels than this are not considered.
MIN_DEV_ACCEPTED = 5
#: Dev labels a threshold needs before its raw error counts for the "closest" note.
CLOSEST_MIN_LABELS = 30
#: The note a cell gets when its cert items were drawn with unequal probabilities.
UNEQUAL_PI_NOTE = ("inclusion probabilities vary within this cell; "
                   "the binomial test needs a uniform sample")

Route = dict[int, dict[str, float | None]]
"""tier position → class (``"*"`` without per_class) → the threshold that keeps items."""


def cell_key(answer: TierAnswer, per_class: bool, class_of: Callable[[Any], str]) -> str:
    """The class an answer is grouped under (``"*"`` when classes are not separated)."""
    return class_of(answer.value) if per_class else "*"


def _answer(tiers: Sequence[TierAnswer | None], position: int) -> TierAnswer | None:
    return tiers[position] if position < len(tiers) else None


def kept_earlier(tiers: Sequence[TierAnswer | None], position: int, route: Route,
                 per_class: bool, class_of: Callable[[Any], str]) -> bool:
    """Whether a tier before ``position`` keeps the item (it never reaches ``position``).

    An earlier tier keeps an item it answered with confidence at or above its routing
    threshold for that answer's class; abstentions pass the item on.
    """
    for j in range(position):
        answer = _answer(tiers, j)
        if answer is None or not answer.answered:
            continue
        threshold = route.get(j, {}).get(cell_key(answer, per_class, class_of))
        if threshold is not None and answer.confidence >= threshold:
            return True
    return False


class CellCounts:
    """Errors and accepted labels of one cell at any threshold, from one sort.

    Accepted at a threshold means confidence at least the threshold, so the accepted
    labels are a prefix of the cell sorted by descending confidence, and the errors
    among them are a prefix sum.
    """

    def __init__(self, answers: Sequence[tuple[TierAnswer, bool]]) -> None:
        ordered = sorted(answers, key=lambda pair: -pair[0].confidence)
        self._descending = [-a.confidence for a, _ in ordered]
        self._errors = [0]
        for _, wrong in ordered:
            self._errors.append(self._errors[-1] + int(wrong))
        self.size = len(ordered)

    def at(self, threshold: float) -> tuple[int, int]:
        """``(errors, accepted)`` among labels with confidence ≥ ``threshold``."""
        accepted = bisect_right(self._descending, -threshold)
        return self._errors[accepted], accepted

    def grid(self) -> list[float]:
        """The cell's distinct confidences to 6 places, descending, thinned to 200."""
        values = sorted({round(float(-c), 6) for c in self._descending}, reverse=True)
        if len(values) > GRID_SIZE:
            step = len(values) / GRID_SIZE
            values = [values[int(i * step)] for i in range(GRID_SIZE)]
        return values


def cell_members(items: Sequence[CalibrationItem], position: int, label: str,
                 route: Route, view: MethodView, per_class: bool
                 ) -> list[tuple[CalibrationItem, TierAnswer]]:
    """The items of tier ``position``'s cell (class ``label``) with that tier's answer:
    answered, not kept by an earlier tier, and (per class) predicted as ``label``."""
    out: list[tuple[CalibrationItem, TierAnswer]] = []
    for item in items:
        answer = _answer(item.tiers, position)
        if answer is None or not answer.answered:
            continue
        if kept_earlier(item.tiers, position, route, per_class, view.class_of):
            continue
        if per_class and cell_key(answer, True, view.class_of) != label:
            continue
        out.append((item, answer))
    return out


def counts_of(members: Sequence[tuple[CalibrationItem, TierAnswer]],
              view: MethodView) -> CellCounts:
    """A cell's counts, an answer being wrong when ``view.correct`` says so."""
    return CellCounts([(answer, not view.correct(answer.value, item.truth))
                       for item, answer in members])


class Projection(NamedTuple):
    """The cheapest choosable threshold: cost in dev-scaled labels, the threshold, the
    accepted labels it needs, and the dev errors and labels it accepts."""

    cost: float
    threshold: float
    needed: int
    dev_errors: int
    dev_accepted: int


@dataclass
class CellPlan:
    """What the dev pass decided for one cell; ``info`` becomes ``metrics.cells[...]``."""

    position: int
    tier: str
    label: str
    info: dict[str, Any]
    grid: list[float]
    cert: CellCounts
    projection: Projection | None
    dev_threshold: float | None
    testable: bool


@dataclass
class DevPass:
    """The dev pass over every cell: the plans in order, the routing it fixes, and the
    two facts the infeasibility rule reads."""

    plans: list[CellPlan]
    route: Route
    any_feasible: bool
    any_answered: bool


class _Needs:
    """Projected labels per smoothed dev error, rounded to 3 places as Potato keys them
    (the rounded rate is also what the projection is computed from)."""

    def __init__(self, target: float, level: float) -> None:
        self._target, self._level = target, level
        self._known: dict[float, int | None] = {}

    def __call__(self, rate: float) -> int | None:
        key = round(rate, 3)
        if key not in self._known:
            self._known[key] = labels_to_certify(key, self._target, self._level)
        return self._known[key]


def _choose(dev: CellCounts, grid: list[float], ratio: float, last: bool, target: float,
            floor: float, needs: _Needs, n_dev_total: int
            ) -> tuple[float | None, float | None, Projection | None, float | None, bool]:
    """Walk one cell's grid from the most conservative threshold.

    Returns the dev threshold, its raw dev error, the projection, the lowest raw dev
    error of the last tier on ≥ 30 labels under the target, and whether any threshold
    has a smoothed error under the target. The last tier stops at its start, so what
    lies below it is never seen (neither by the projection nor by the note), as in
    Potato.
    """
    chosen: float | None = None
    chosen_error: float | None = None
    projection: Projection | None = None
    closest: float | None = None
    feasible = False
    for threshold in grid:
        errors, accepted = dev.at(threshold)
        if accepted < MIN_DEV_ACCEPTED:
            continue
        smoothed = (errors + 0.5) / (accepted + 1)
        under = smoothed < target
        feasible = feasible or under
        # Only thresholds the rule below could ever choose count for the projection;
        # on the last tier that needs the raw dev error under half the target.
        if under and (not last or errors / accepted < target / 2):
            need = needs(smoothed)
            if need is not None:
                need = max(need, math.ceil(START_MARGIN * floor)) if last \
                    else math.ceil(need * DEV_MARGIN)
                share = accepted / max(1, n_dev_total)
                cost = need / share
                if projection is None or cost < projection.cost:
                    projection = Projection(cost, threshold, need, errors, accepted)
        if last and accepted >= CLOSEST_MIN_LABELS and under \
                and (closest is None or errors / accepted < closest):
            closest = errors / accepted
        if last:
            if smoothed <= target / 2 and accepted * ratio >= START_MARGIN * floor:
                chosen, chosen_error = threshold, errors / accepted
                break
        else:
            need_here = needs(smoothed) if under else None
            if need_here is not None and need_here * DEV_MARGIN <= accepted * ratio:
                chosen, chosen_error = threshold, errors / accepted
    return chosen, chosen_error, projection, closest, feasible


def dev_pass(view: MethodView, classes: Sequence[str], per_class: bool, target: float,
             level: float, floor: float) -> DevPass:
    """Plan every cell, tier by tier (a tier's cells depend on earlier tiers' routing).

    ``level`` is the planning level (the look's level over every possible cell) and
    ``floor`` the fewest labels that could pass at it.
    """
    dev, cert = view.split("dev"), view.split("cert")
    needs = _Needs(target, level)
    route: Route = {}
    plans: list[CellPlan] = []
    any_feasible = any_answered = False
    for position, tier in enumerate(view.tiers):
        route[position] = {}
        last = position == len(view.tiers) - 1
        for label in classes:
            dcell = counts_of(cell_members(dev, position, label, route, view, per_class),
                              view)
            cert_members = cell_members(cert, position, label, route, view, per_class)
            ccell = counts_of(cert_members, view)
            ratio = (ccell.size / dcell.size) if dcell.size else 0.0
            grid = dcell.grid()
            chosen, chosen_error, projection, closest, feasible = _choose(
                dcell, grid, ratio, last, target, floor, needs, len(dev))
            any_feasible = any_feasible or feasible
            route[position][label] = chosen
            info: dict[str, Any] = {"n_dev": dcell.size, "n_cert": ccell.size,
                                    "lam_dev": chosen, "dev_error": chosen_error}
            if last and chosen is None and projection is None and closest is not None \
                    and closest >= target / 2:
                info["closest_dev_error"] = closest
            if dcell.size:
                errors_all, n_all = dcell.at(0.0)
                info["dev_error_all"] = errors_all / n_all if n_all else None
                any_answered = True
            pis = {round(item.pi, 12) for item, _ in cert_members if item.pi is not None}
            if len(pis) > 1:
                info["skipped"] = UNEQUAL_PI_NOTE
            testable = chosen is not None and ccell.size > 0 and len(pis) <= 1
            plans.append(CellPlan(position, tier, label, info, grid, ccell, projection,
                                  chosen, testable))
    return DevPass(plans, route, any_feasible, any_answered)
