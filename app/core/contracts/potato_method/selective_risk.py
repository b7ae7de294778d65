"""Potato 2.12.1's ``selective_risk``: the cert tests, the projection, the verdict.

The guarantee (``potato-engine.md`` §4): with probability at least the contract's
confidence, at most ``error`` of the labels accepted under the certified rule are wrong.
The rule is a confidence threshold per cascade tier (per predicted class with
``per_class``); an item goes to the first tier whose threshold keeps it, and to people
after the last.

Why the pieces are as they are:

- **Two passes.** The dev labels alone choose what to test
  (:mod:`.selective_risk_plan`), so the cells later tiers see, and the set of cells
  tested, do not depend on the cert labels. Planning assumes every tier × class cell is
  tested (``alpha / (T · classes)``); the tests then split the look's level only over
  the cells dev made testable, which is valid because dev alone fixed that number.
- **One test per earlier tier, a fixed sequence on the last.** An earlier tier's
  threshold also decides what later tiers see, so it is tested once. The last tier
  routes nothing onward and tests its dev start, then each more liberal grid threshold
  at the same level, stopping at the first failure (Learn-then-Test fixed sequence: no
  correction is needed along the sequence).
- **A failed tier accepts nothing**, and its items go to people rather than to the next
  tier, so the next tier's tested population is unchanged.
- **A failed test is ``insufficient``**, never ``violated``: it carries a projection of
  the cert labels that would let the cheapest cell pass. ``infeasible`` is reserved for
  ≥ 30 dev labels on which no threshold reaches a smoothed error under the target.

Whether a machine label is right is the view's ``correct``; a loss family's tolerance is
applied when the view is built, not here. Only the first 40 tests of a cell are kept in
``metrics``, as Potato stores them, so the two records compare entry for entry; a longer
sequence is kept whole in ``accord["tests"]`` (``contracts.md``: every test is kept), so
the certified threshold's own test is never lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.core.contracts.potato_method.population.coverage import coverage_counts
from app.core.contracts.potato_method.population.table import PopulationTable
from app.core.contracts.potato_method.risk_stats import (
    exact_interval,
    fewest_certifying,
    labels_to_certify,
    risk_p_value,
)
from app.core.contracts.potato_method.selective_risk_plan import (
    CellPlan,
    Route,
    cell_key,
    dev_pass,
)
from app.core.contracts.potato_method.view import MethodContract, MethodResult, MethodView
from app.core.contracts.statistics.looks import look_level

#: Tests stored per cell (Potato keeps the first 40 of a fixed sequence).
STORED_TESTS = 40
#: Dev labels below which "no threshold is under the target" is not yet infeasible.
INFEASIBLE_MIN_DEV = 30
#: Dev share of calibration requests when the engine does not say (Potato's default).
DEFAULT_DEV_FRACTION = 0.5
#: Potato's words on the projection (part of its record, compared as written).
PROJECTION_NOTE = ("Projected from the error rate the labels so far show, for the cell "
                   "that is cheapest to certify.")

Acceptance = dict[str, dict[str, float | None]]


def evaluate_selective_risk(contract: MethodContract, view: MethodView, look: int = 1, *,
                            dev_fraction: float = DEFAULT_DEV_FRACTION) -> MethodResult:
    """The contract's result at ``look``, as Potato 2.12.1's ``SelectiveRisk`` gives it.

    ``contract.params`` holds ``error`` (required) and ``per_class`` (default false);
    ``dev_fraction`` is the engine's ``humans.dev_fraction``, read only to turn the cert
    labels still needed into calibration requests.
    """
    target = float(contract.params["error"])
    per_class = bool(contract.params.get("per_class", False))
    result = MethodResult(state="insufficient", look=look)
    if not view.tiers:
        result.notes.append("The cascade has no machine tiers.")
        result.ran = False
        return result
    classes: Sequence[str] = list(view.labels) if per_class else ["*"]
    if not classes:  # per class with a schema of no labels (issue 16: a ZeroDivisionError)
        result.notes.append("The schema has no labels to test per class.")
        result.ran = False
        return result
    look_alpha = look_level(max(1, int(look)), contract.confidence)
    plan_level = look_alpha / (len(view.tiers) * len(classes))
    planned = dev_pass(view, classes, per_class, target, plan_level,
                       fewest_certifying(target, plan_level))

    tested = sum(1 for plan in planned.plans if plan.testable)
    # No cell was ready on dev: the cert labels were never read and no look is spent.
    result.ran = tested > 0
    alpha = look_alpha / max(1, tested)
    result.alpha = alpha
    cells: dict[str, dict[str, Any]] = {}
    for tier in view.tiers:
        result.acceptance[tier] = {}
    every: dict[str, list[dict[str, Any]]] = {}
    for plan in planned.plans:
        certified = _test_cell(plan, len(view.tiers), target, alpha, every)
        result.acceptance[plan.tier][plan.label] = certified
        plan.info["certified"] = certified
        if plan.position == len(view.tiers) - 1 and certified is not None:
            # The last tier may certify below its dev start; routing nothing onward, it
            # keeps what it accepts.
            planned.route[plan.position][plan.label] = certified
        if certified is None:
            _project_cell(plan, target, alpha)
        cells[f"{plan.tier}:{plan.label}"] = plan.info

    result.metrics["cells"] = cells
    if every:
        result.accord["tests"] = every
    result.metrics["tested_cells"] = tested
    result.metrics["route"] = {view.tiers[t]: r for t, r in planned.route.items()}
    result.metrics.update(coverage(view, result.acceptance, planned.route, per_class))
    needs = [c["more_cert_labels"] for c in cells.values()
             if c.get("more_cert_labels") is not None]
    if needs:
        # The cheapest cell, not the dearest: one certified cell already takes work off
        # people.
        cheapest = min(needs)
        result.projection = {
            "more_cert_labels": cheapest,
            "more_calibration_labels": int(cheapest / max(1e-9, 1 - dev_fraction)) + 1,
            "note": PROJECTION_NOTE,
        }
    _verdict(result, cells, planned.any_feasible, planned.any_answered,
             len(view.split("dev")), bool(needs), target)
    _statement(result, contract, view, per_class, target, look)
    return result


def _test_cell(plan: CellPlan, n_tiers: int, target: float, alpha: float,
               every: dict[str, list[dict[str, Any]]]) -> float | None:
    """Run a testable cell's tests on cert; the threshold certified, or ``None``. A
    sequence longer than Potato stores goes whole into ``every`` under the cell's key."""
    if not plan.testable or plan.dev_threshold is None:
        return None
    if plan.position < n_tiers - 1:
        sequence = [plan.dev_threshold]
    else:
        sequence = plan.grid[plan.grid.index(plan.dev_threshold):]
    certified: float | None = None
    tests: list[dict[str, Any]] = []
    for threshold in sequence:
        errors, accepted = plan.cert.at(threshold)
        p = risk_p_value(errors, accepted, target)
        tests.append({"threshold": threshold, "n": accepted, "errors": errors, "p": p})
        if p > alpha:
            break
        certified = threshold
    plan.info["tests"] = tests[:STORED_TESTS]
    if len(tests) > STORED_TESTS:
        every[f"{plan.tier}:{plan.label}"] = tests
    if certified is not None:
        errors, accepted = plan.cert.at(certified)
        plan.info.update(n_accepted_cert=accepted, errors_cert=errors,
                         error_interval=exact_interval(errors, accepted, 1 - 2 * alpha))
    return certified


def _project_cell(plan: CellPlan, target: float, alpha: float) -> None:
    """Cert labels an uncertified cell still needs, into ``info["more_cert_labels"]``.

    From the cheapest choosable dev threshold. When cert already holds as many labels as
    that asked for and the test still failed, cert saw more errors than dev: the count
    alone would keep saying "a few more", so the projection is redone from the error rate
    dev and cert show together, and when that rate is at the target it says so instead.
    """
    if plan.projection is None:
        return
    cost, threshold, needed, dev_errors, dev_accepted = plan.projection
    cert_errors, have = plan.cert.at(threshold)
    share = needed / cost if cost else 0
    if plan.testable and have >= needed:
        pooled = (dev_errors + cert_errors + 0.5) / (dev_accepted + have + 1)
        again = labels_to_certify(round(pooled, 3), target, alpha)
        if again is None:
            plan.info["projection_note"] = (
                f"held-out error {cert_errors}/{have} at this threshold puts the "
                "rate at the target; more labels are unlikely to certify it")
            share = 0
        else:
            needed = max(again, have + 1)
    if share > 0:
        plan.info["more_cert_labels"] = max(1, int((needed - have) / share) + 1)


def _verdict(result: MethodResult, cells: Mapping[str, Mapping[str, Any]],
             any_feasible: bool, any_answered: bool, n_dev: int, projected: bool,
             target: float) -> None:
    """``met`` if any cell certified; ``infeasible`` when enough dev labels show no
    threshold under the target; otherwise ``insufficient`` (with the half-target note
    when dev is under the target but never under half of it, so nothing was tested)."""
    if any(v is not None for tier in result.acceptance.values() for v in tier.values()):
        result.state = "met"
        return
    if not any_feasible and any_answered and n_dev >= INFEASIBLE_MIN_DEV:
        result.state = "infeasible"
        result.notes.append(
            f"No tier's error on the dev labels gets below {target:.3f} at any threshold: "
            "more labels will not certify this target. A better prompt or model, or a "
            "looser target, might.")
        return
    result.state = "insufficient"
    closest = [c["closest_dev_error"] for c in cells.values()
               if c.get("closest_dev_error") is not None]
    if closest and not projected:
        best = min(closest)
        result.notes.append(
            f"The lowest machine error on the dev labels is {best:.1%}, under the target "
            f"of {target:.1%} but above half of it ({target / 2:.1%}), where the test "
            "starts, so nothing was tested. More labels help only if the error turns out "
            f"lower; a better prompt or model, or a target of at least {2 * best:.1%}, "
            "would let the test start.")


def _statement(result: MethodResult, contract: MethodContract, view: MethodView,
               per_class: bool, target: float, look: int) -> None:
    """The guarantee in words; unmet, it is worded as a target so that, quoted alone,
    it never reads as established."""
    scope = "for each predicted class" if per_class else "overall"
    held_out = f"{view.n_cert} held-out labels, look {look}"
    if result.state == "met":
        result.statement = (
            f"With probability at least {contract.confidence:.2f}, at most {target:.1%} "
            f"of the labels accepted under this rule are wrong ({scope}; {held_out}).")
    else:
        result.statement = (
            f"Target, not established: at most {target:.1%} of accepted labels wrong, with "
            f"probability at least {contract.confidence:.2f} ({scope}). No machine label "
            f"on this scheme is accepted until it is met ({held_out}).")


def coverage(view: MethodView, acceptance: Acceptance, route: Route,
             per_class: bool) -> dict[str, Any]:
    """How much of the population the rule would give to machines, and to people.

    Each item walks the cascade: the first tier that answered with confidence at its
    routing threshold takes it, and accepts it if the certified threshold allows,
    otherwise it goes to people (a failed tier passes nothing on). An item no tier
    takes goes to people. ``accepted_by_tier`` holds counts, as Potato writes them.
    """
    if isinstance(view.population, PopulationTable):  # the columns, tier by tier
        by_tier, to_people = coverage_counts(view.population, view.tiers, acceptance, route,
                                             per_class, view.class_of)
        return _coverage(len(view.population), by_tier, to_people)
    by_tier = dict.fromkeys(view.tiers, 0)
    to_people = 0
    for item in view.population:
        taken = False
        for position, tier in enumerate(view.tiers):
            answer = item.tiers[position] if position < len(item.tiers) else None
            if answer is None or not answer.answered:
                continue
            key = cell_key(answer, per_class, view.class_of)
            keep = route.get(position, {}).get(key)
            if keep is None or answer.confidence < keep:
                continue
            accept = acceptance.get(tier, {}).get(key)
            if accept is not None and answer.confidence >= accept:
                by_tier[tier] += 1
            else:
                to_people += 1
            taken = True
            break
        if not taken:
            to_people += 1
    return _coverage(len(view.population), by_tier, to_people)


def _coverage(n: int, by_tier: dict[str, int], to_people: int) -> dict[str, Any]:
    accepted = sum(by_tier.values())
    return {"population": n, "accepted": accepted, "coverage": accepted / n if n else 0.0,
            "accepted_by_tier": by_tier, "to_humans": to_people}
