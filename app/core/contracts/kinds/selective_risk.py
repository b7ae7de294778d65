"""The ``selective_risk`` contract: a bound on the error rate among accepted machine labels.

The rule is a confidence threshold per cascade tier (per tier and predicted class with
``per_class``) on the grid 1.00, 0.99, …, 0.00; an item goes to the first tier whose
threshold accepts it. Dev labels choose the thresholds; cert labels test them with the
one-sided exact binomial test p = P(Binomial(n, error) ≤ k), at the look's level split
evenly over the groups tested. Every tier but the last is tested once at its dev choice;
the last tier runs a fixed sequence (Learn-then-Test) from its dev choice down the grid,
stopping at the first failure. See ``shared/spec/contracts.md`` (selective_risk and its
Precise rules); :mod:`app.core.contracts.kinds.selective_risk_groups` holds the counting and
the dev rules.

Choices where the spec is silent (each keeps the test valid; none helps a rule pass):

- **Several people on one item.** The item is the unit: its machine label is correct
  when correct against a strict majority of the people whose comparison is defined; a
  tie is an error. Items are the random draws, people are not, so counting each person
  as a unit would treat correlated labels as independent evidence. An item with no
  defined comparison (a trace sharing no step with anyone) is left out of n.
- **Groups and the level split.** A group is a tier, or a tier and a predicted class
  (the class is ``str(label)``, as the engine reads it). The dev choice uses the first
  look's level divided by the number of groups that have dev labels (ignoring the
  cascade's routing, so it depends on dev data alone and never on the choice itself);
  the tests use the look's level divided by the groups actually tested, which are never
  more, so the family-wise error of one look is at most the look's level.
- **Routing.** A tier's dev choice removes its accepted items from later tiers only if
  that group will be tested (a choice, a uniform sample, at least one cert verdict);
  a group that is not tested accepts nothing and its items flow on, exactly as the
  engine routes items of a tier absent from the rule.
- **A failed test on a tier other than the last** makes the contract ``unmet``: later
  tiers were chosen and tested on the items that tier would accept, and the engine's
  rule cannot send those items to people, so no part of the cascade's rule is certified.
  On the last tier a failure of the first threshold makes that group accept nothing
  (its items go to people) and the contract is ``met`` when another group passed.
- **Uniform sample.** A test reads the cert items its tier (and class) accepts at its
  threshold; they must carry equal recorded ``pi`` (relative 1e-9). A group whose dev
  choice fails this is not tested, accepts nothing, and a note names it; on the last
  tier the fixed sequence ends untested at the first threshold that fails it (decided by
  the draw's design, never by an outcome, so the sequence stays valid). With no group
  tested the state is ``insufficient``.
- **The dev choice checks infeasibility only when no threshold is chosen**, and a grid
  threshold that accepts no dev label has no dev error (it is neither selectable nor the
  "lowest dev error"). Lowest dev error above ``error``, or in (error/2, error], gives
  ``insufficient`` with a note naming it; nothing is projected then.
- **Infeasible** needs every group with dev labels to be infeasible; one group that more
  labels could still help keeps the contract ``insufficient``.
- **Pending** means no dev and no cert label on any item of the schema.
- **Projection.** One projection per result: among the candidates (every selectable
  threshold of each group still waiting for cert labels, or, after a failed test, the
  threshold that failed first in a group now accepting nothing, at the error rate dev
  and cert show together), the one needing the fewest calibration requests, the more
  permissive threshold on a tie. The level is the next look's (``look`` when this
  evaluation tests nothing, ``look + 1`` after a test) split like the last split.
  ``requests_needed`` counts the requests still to draw for the missing cert labels.
- **Notes** carry what the spec says "the result says/names" (untested groups, the dev
  error between error/2 and error): ``result`` keeps exactly the keys of ``cli.md``.
- ``rule`` in ``result`` is what the contract accepts with (empty unless ``met``);
  ``data["rule"]`` is the dev-chosen rule that was tested, for the ledger's hash.
- ``accepted_by_tier`` has every tier of the cascade, 0.0 where nothing is accepted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from app.core.contracts.config.contract_specs import (
    DEFAULT_CONFIDENCE,
    DEFAULT_TOLERANCE,
    ContractSpec,
)
from app.core.contracts.kinds.base import KindContext, KindOutcome, SchemaData
from app.core.contracts.kinds.selective_risk_groups import (
    GRID,
    Choice,
    Group,
    GroupKey,
    Projection,
    answer_json,
    build_groups,
    class_of,
    dev_choice,
    project,
)
from app.core.contracts.statistics.binomial import binomial_p_value
from app.core.contracts.statistics.looks import look_level


@dataclass(slots=True)
class _Planned:
    """One group with its dev verdict and whether it will be tested at this look."""

    group: Group
    choice: Choice
    last: bool
    testable: bool
    note: str | None


def _fraction_text(value: Fraction) -> str:
    return f"{float(value):.4g} ({value.numerator}/{value.denominator})"


def _dev_group_count(data: SchemaData, per_class: bool) -> int:
    """Groups that have dev labels, ignoring routing (the dev choice's level split)."""
    keys: set[GroupKey] = set()
    for tier in data.tiers:
        predictions = data.predictions.get(tier, {})
        for item, humans in data.dev.items():
            machine = predictions.get(item)
            if humans and machine is not None:
                keys.add((tier, class_of(machine.label) if per_class else None))
    return len(keys)


def _note(group: Group, choice: Choice, error: float, confidence: float) -> str | None:
    name = group.name()
    if choice.status == "no_dev":
        return f"{name}: no dev label reaches it yet, so it accepts nothing"
    lowest = "" if choice.lowest is None else _fraction_text(choice.lowest)
    if choice.status == "infeasible":
        return (f"{name}: infeasible: at every threshold accepting at least 10 dev labels the "
                f"dev error's lower bound at confidence {confidence:g} is above the target "
                f"error {error:g} (lowest dev error {lowest}); more labels cannot make it hold")
    if choice.status == "above":
        return (f"{name}: insufficient: the lowest dev error {lowest} is above the target "
                f"error {error:g}; it accepts nothing")
    if choice.status == "between":
        return (f"{name}: insufficient: the lowest dev error {lowest} is below the target "
                f"error {error:g} but above half of it ({error / 2:g}); nothing is tested "
                "or projected")
    if choice.status == "needs_labels":
        return (f"{name}: insufficient: dev error is at most {error / 2:g} at some threshold, "
                "but the cert labels present are too few for a first test")
    return None


def _plan_tier(data: SchemaData, tier: str, last: bool, reach: list[str], per_class: bool,
               error: float, confidence: float, tolerance: float, level: float,
               population: frozenset[str]) -> tuple[list[_Planned], list[str]]:
    """Dev choices of one tier's groups and the items that flow on to the next tier."""
    predictions = data.predictions.get(tier, {})
    groups = build_groups(data.scheme, tier, per_class, reach, predictions, data.dev,
                          data.cert, population, tolerance)
    planned: list[_Planned] = []
    taken: dict[GroupKey, float] = {}
    for key in sorted(groups, key=lambda k: (k[1] is not None, k[1] or "")):
        group = groups[key]
        choice = dev_choice(group, error, confidence, level)
        note = _note(group, choice, error, confidence)
        testable = False
        if choice.status == "chosen" and choice.index is not None:
            if not group.uniform_at(choice.index):
                note = (f"{group.name()}: its cert items were drawn with unequal inclusion "
                        "probabilities (pi), so they are not a uniform sample; not tested, "
                        "it accepts nothing")
            elif group.cert_test(choice.index)[0] == 0:
                note = (f"{group.name()}: no cert label at the dev choice has a defined "
                        "verdict; nothing to test, it accepts nothing")
            else:
                testable = True
                taken[key] = float(GRID[choice.index])
        planned.append(_Planned(group, choice, last, testable, note))
    if per_class:
        flow = [item for item in reach if not _accepted(data, tier, item, taken, per_class)]
    else:  # one threshold for the tier (or none): the same test as _accepted, inline
        threshold = taken.get((tier, None))
        flow = list(reach) if threshold is None else [
            item for item in reach
            if (m := predictions.get(item)) is None or not m.confidence >= threshold]
    return planned, flow


def _accepted(data: SchemaData, tier: str, item: str, rule: dict[GroupKey, float],
              per_class: bool) -> bool:
    machine = data.predictions.get(tier, {}).get(item)
    if machine is None:
        return False
    threshold = rule.get((tier, class_of(machine.label) if per_class else None))
    return threshold is not None and machine.confidence >= threshold


def _rule_json(rule: dict[GroupKey, float], per_class: bool) -> dict[str, Any]:
    """tier → threshold, or tier → class → threshold (the engine's ``accepts``)."""
    out: dict[str, Any] = {}
    for (tier, cls), threshold in rule.items():
        if per_class:
            out.setdefault(tier, {})[str(cls)] = threshold
        else:
            out[tier] = threshold
    return out


def _coverage(data: SchemaData, rule: dict[GroupKey, float], per_class: bool
              ) -> dict[str, float]:
    """Share of the population each tier accepts, routing items as the engine does."""
    counts = dict.fromkeys(data.tiers, 0)
    if not per_class:  # one threshold per tier: the same routing, without a lookup per tier
        plain = [(tier, data.predictions.get(tier, {}), threshold) for tier in data.tiers
                 if (threshold := rule.get((tier, None))) is not None]
        for item in data.items:
            for tier, predicted, threshold in plain:
                machine = predicted.get(item)
                if machine is not None and machine.confidence >= threshold:
                    counts[tier] += 1
                    break
        total = len(data.items)
        return {tier: (count / total if total else 0.0) for tier, count in counts.items()}
    for item in data.items:
        for tier in data.tiers:
            if _accepted(data, tier, item, rule, per_class):
                counts[tier] += 1
                break
    total = len(data.items)
    return {tier: (count / total if total else 0.0) for tier, count in counts.items()}


def _best(projections: Iterable[Projection | None]) -> Projection | None:
    found = [p for p in projections if p is not None]
    return min(found, key=lambda p: (p.requests_needed, p.threshold), default=None)


def _tested_data(data: SchemaData, planned: list[_Planned], per_class: bool) -> dict[str, Any]:
    """What the tests read, for the ledger's hash: cert labels, predictions, dev rule."""
    tested = [p for p in planned if p.testable]
    items = sorted({i for p in tested for i in p.group.cert_ids})
    tiers = sorted({p.group.tier for p in tested})
    cert_labels = {item: sorted(({"annotator": h.annotator, "label": answer_json(h.label)}
                                 for h in data.cert.get(item, ())),
                                key=lambda d: str(d["annotator"]))
                   for item in items}
    predictions: dict[str, dict[str, Any]] = {}
    for tier in tiers:
        by_item = data.predictions.get(tier, {})
        predictions[tier] = {item: {"label": answer_json(by_item[item].label),
                                    "confidence": float(by_item[item].confidence)}
                             for item in items if item in by_item}
    rule = {p.group.key: float(GRID[p.choice.index]) for p in tested
            if p.choice.index is not None}
    return {"cert_labels": cert_labels, "predictions": predictions,
            "rule": _rule_json(rule, per_class)}


def evaluate_selective_risk(spec: ContractSpec, data: SchemaData, look: int) -> KindOutcome:
    """Choose the rule on dev, test it on cert at look ``look``, and give the verdict.

    Pure: reads ``spec.params`` (``error``, ``confidence``, ``per_class``,
    ``tolerance``) and ``data``; ``look`` is the look number this test would be (its
    level is ``look_level(look, confidence)``). The dev choice always uses the first
    look's level, so the chosen rule depends on the data alone and re-evaluating
    unchanged data returns the same tests.

    Returns a :class:`KindOutcome` whose ``result`` holds ``rule``, ``accepted_by_tier``
    and ``tests`` (plus ``projection`` where one applies); ``tested`` is true only when
    a binomial test ran (a look is spent); ``accepts`` is the rule the engine applies,
    only when ``met``; ``data`` is what was tested (``cert_labels``, ``predictions``,
    ``rule``) for the ledger's data hash.
    """
    params = spec.params
    error = float(params["error"])
    confidence = float(params.get("confidence") or DEFAULT_CONFIDENCE)
    per_class = bool(params.get("per_class") or False)
    tolerance = params.get("tolerance")
    tolerance = DEFAULT_TOLERANCE if tolerance is None else float(tolerance)
    nothing = dict.fromkeys(data.tiers, 0.0)
    if not any(data.dev.values()) and not any(data.cert.values()):
        return KindOutcome("pending", {"rule": {}, "accepted_by_tier": nothing, "tests": []},
                           ["no dev or cert labels yet: nothing to test"])

    dev_groups = max(1, _dev_group_count(data, per_class))
    first_level = look_level(1, confidence) / dev_groups
    population = frozenset(data.items)
    reach = sorted(population | {i for i, h in data.dev.items() if h}
                   | {i for i, h in data.cert.items() if h})
    planned: list[_Planned] = []
    for index, tier in enumerate(data.tiers):
        tier_plan, reach = _plan_tier(data, tier, index == len(data.tiers) - 1, reach,
                                      per_class, error, confidence, tolerance, first_level,
                                      population)
        planned.extend(tier_plan)
    notes = [p.note for p in planned if p.note is not None]
    n_items = len(data.items)
    testable = [p for p in planned if p.testable]

    if not testable:
        with_dev = [p for p in planned if p.choice.status != "no_dev"]
        result: dict[str, Any] = {"rule": {}, "accepted_by_tier": nothing, "tests": []}
        if with_dev and all(p.choice.status == "infeasible" for p in with_dev):
            return KindOutcome("infeasible", result, notes)
        level = look_level(look, confidence) / dev_groups
        best = _best(
            project(p.group, j, int(k_dev[j]), int(n_dev[j]), error, level, n_items,
                    data.dev_fraction)
            for p in planned if p.choice.status == "needs_labels"
            for n_dev, k_dev in [p.group.dev_counts()] for j in p.choice.candidates)
        if best is not None:
            result["projection"] = best.to_json()
        return KindOutcome("insufficient", result, notes)

    level = look_level(look, confidence) / len(testable)
    tests: list[dict[str, Any]] = []
    accepted: dict[GroupKey, float] = {}
    failed_first: list[tuple[_Planned, int, int, int]] = []
    failed_early_tier = False
    for p in testable:
        assert p.choice.index is not None
        group = p.group
        passed: int | None = None
        for j in range(p.choice.index, len(GRID)):
            if not group.uniform_at(j):
                # Decided by the draw's design, not by any outcome: the fixed sequence
                # ends here, still valid; the threshold is not tested.
                notes.append(f"{group.name()}: the cert items at threshold {GRID[j]:.2f} were "
                             "drawn with unequal inclusion probabilities (pi), so they are "
                             "not a uniform sample; the sequence stops untested there")
                break
            n, k = group.cert_test(j)
            value = binomial_p_value(k, n, error)
            ok = value <= level
            entry: dict[str, Any] = {"tier": group.tier}
            if per_class:
                entry["class"] = group.cls
            entry.update(threshold=float(GRID[j]), n=n, errors=k, p=value, level=level,
                         passed=ok)
            tests.append(entry)
            if not ok:
                if passed is None:
                    failed_first.append((p, j, k, n))
                notes.append(f"{group.name()}: the test at threshold {GRID[j]:.2f} failed "
                             f"({k} errors in {n} cert labels, p {value:.6g} > level "
                             f"{level:.6g})" + ("" if p.last or passed is not None
                                                else "; the cascade's rule does not hold"))
                failed_early_tier = failed_early_tier or not p.last
                break
            passed = j
            if not p.last:
                break
        if passed is not None:
            accepted[group.key] = float(GRID[passed])

    tested_data = _tested_data(data, planned, per_class)
    if accepted and not failed_early_tier:
        rule = _rule_json(accepted, per_class)
        result = {"rule": rule, "accepted_by_tier": _coverage(data, accepted, per_class),
                  "tests": tests}
        return KindOutcome("met", result, notes, tested=True, accepts=rule, data=tested_data)
    next_level = look_level(look + 1, confidence) / len(testable)
    result = {"rule": {}, "accepted_by_tier": nothing, "tests": tests}
    best = None
    if failed_first:
        projections = []
        for p, j, k, n in failed_first:
            n_dev, k_dev = p.group.dev_counts()
            projections.append(project(p.group, j, int(k_dev[j]) + k, int(n_dev[j]) + n,
                                       error, next_level, n_items, data.dev_fraction))
        best = _best(projections)
    if best is not None:
        result["projection"] = best.to_json()
    return KindOutcome("unmet", result, notes, tested=True, data=tested_data)


def evaluate(spec: ContractSpec, data: SchemaData, context: KindContext) -> KindOutcome:
    """The registry's entry: the test at the context's look."""
    return evaluate_selective_risk(spec, data, context.look)


def claim(schema: str, params: dict[str, Any]) -> str:
    """What a ``selective_risk`` contract promises, in one sentence."""
    per = " (each predicted class separately)" if params.get("per_class") else ""
    return (f"the error among accepted machine labels on '{schema}' is at most "
            f"{float(params['error']) * 100:g}%{per}")
