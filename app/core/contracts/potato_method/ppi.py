"""Potato 2.12.1's ppi contract: prevalences (or a mean) corrected by the people's sample.

A prevalence counted from machine labels carries the machine's bias, with an interval
too narrow to show it. Prediction-powered inference corrects the machine's estimate by
its error on the items people labelled, so the interval is valid however good the
machine is. :func:`evaluate_ppi` gives the numbers and the verdict Potato's
``PPI(cfg).evaluate(view, look)`` gives (``potato-engine.md`` §4, ``contracts/ppi.py``):

- **labelled set**: every calibration item, dev *and* cert, with a positive inclusion
  probability and a truth, that is in the population (the others are dropped, with a
  note);
- **machine term** ``f``: the ``tier`` key's tier when it names one; else the routed
  cascade output when every item has one; else the deepest tier that answered (or
  abstained on) every population item, so ``f`` is the same function of an item
  whether it was sampled or not. For a class, ``f`` is the normalised probability of the
  class where the answer carries a distribution, else 0/1; for the mean, the
  distribution's expectation (or the value as a number);
- **level**: ``1 − look_alpha(1 − confidence, look)``, so re-estimating as labels arrive
  keeps the overall coverage;
- **estimator** per group and label (:mod:`.ppi_estimators`): PPI++ when the labelled
  probabilities are equal, the post-stratified difference estimator when they differ
  and every population item's is known, Horvitz–Thompson otherwise;
- **groups**: ``all`` plus one per value of the item field ``by``; a group with fewer
  than :data:`MIN_LABELS` labels gets a note instead of estimates;
- **verdict**: ``met`` without ``max_width`` or when the widest interval fits it, else
  ``insufficient`` with the labels a ``1/√n`` shrinkage would need;
- **labels of each class** (Accord's addition, ``accord["class_labels"]``: group → class
  → the labelled items whose truth is that class): Potato's number stays as it is, but
  an interval resting on fewer than 3 labels of its class does not keep its stated
  coverage (``tests/benchmarks/bench_ppi_mc.py``), so the status says so beside it
  (:mod:`.names`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any

import numpy as np

from app.core.contracts.potato_method.population.table import PopulationTable
from app.core.contracts.potato_method.ppi_estimators import (
    Estimate,
    Vector,
    horvitz_thompson_difference,
    people_only,
    post_stratified_difference,
    tuned_ppi,
)
from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodContract,
    MethodResult,
    MethodView,
    PopulationItem,
    TierAnswer,
)
from app.core.contracts.statistics.looks import look_level
from app.core.slices import array_in_slices

MIN_LABELS = 10
"""Labels a group needs before it is estimated (Potato's ``MIN_LABELS``)."""

ROUTED = "cascade output"
"""``metrics.tier`` when ``f`` is the cascade's routed answer."""


def machine_tier(contract: MethodContract, view: MethodView) -> int | None:
    """The tier index whose answers are ``f``, or ``None`` for the routed output.

    A later tier labels the calibration sample but only part of the rest, so its
    answers exist for sampled items and few others: using them would make ``f`` depend
    on the sampling and bias the estimate. A tier "labels everything" when every
    population item has an answer from it, even an abstention (which counts as 0).
    """
    wanted = contract.params.get("tier")
    if wanted in view.tiers:
        return view.tiers.index(wanted)
    if view.output_complete:
        return None
    table = view.population if isinstance(view.population, PopulationTable) else None
    for t in reversed(range(len(view.tiers))):
        if table is not None and t < len(table.tiers):
            if bool(table.present(t).all()):
                return t
        elif all(t < len(p.tiers) and p.tiers[t] is not None for p in view.population):
            return t
    return 0


def _answer(item: CalibrationItem | PopulationItem, tier: int | None) -> TierAnswer | None:
    if tier is None:
        return item.output
    return item.tiers[tier] if tier < len(item.tiers) else None


def machine_term(answer: TierAnswer | None, label: str | None, numeric: bool) -> float:
    """``f`` for one item: 0 without an answer; for the mean the distribution's
    expectation over numeric keys (else the value as a number, else 0); for a class its
    share of the distribution (else 1 when the value is the class)."""
    if answer is None or not answer.answered:
        return 0.0
    dist = answer.distribution
    if numeric:
        if dist:
            total = sum(dist.values()) or 1.0
            try:
                return sum(float(k) * v for k, v in dist.items()) / total
            except ValueError:
                pass
        try:
            return float(answer.value)
        except (TypeError, ValueError):
            return 0.0
    if dist:
        total = sum(dist.values()) or 1.0
        return float(dist.get(str(label), 0.0)) / total
    return 1.0 if str(answer.value) == label else 0.0


class MachineAnswers:
    """A population's answers of one tier, with each plain answer's class name computed
    once for every label's :func:`machine_terms` (a million items, three labels).

    Built from a :class:`PopulationTable`'s columns (:meth:`of_table`), the names and
    ``plain`` come from the columns and the answers are made only if a term needs them
    (a distribution, or the mean)."""

    def __init__(self, answers: list[TierAnswer | None] | None,
                 make: Callable[[], list[TierAnswer | None]] | None = None,
                 names: Vector | None = None, plain: bool | None = None) -> None:
        self._answers, self._make = answers, make
        self.plain = plain if plain is not None else not any(
            a is not None and a.distribution for a in self.answers)
        """No answer has a distribution: each term is the value being the class."""
        self._names: Vector | None = names

    @classmethod
    def of_table(cls, table: PopulationTable, tier: int | None) -> MachineAnswers:
        names, plain = table.class_names(tier)
        return cls(None, lambda: [_answer(p, tier) for p in table], names, plain)

    @property
    def answers(self) -> list[TierAnswer | None]:
        if self._answers is None:
            assert self._make is not None
            self._answers = self._make()
        return self._answers

    def names(self) -> Vector:
        if self._names is None:
            self._names = np.array([str(a.value) if a is not None and a.answered else None
                                    for a in self.answers], dtype=object)
        return self._names


def machine_terms(answers: MachineAnswers, label: str | None, numeric: bool) -> Vector:
    """:func:`machine_term` of each answer, as floats; for a class with no distribution
    anywhere, one numpy comparison of the class names (the same 1.0 and 0.0)."""
    if numeric or not answers.plain or label is None:
        return np.array([machine_term(a, label, numeric) for a in answers.answers])
    same: Vector = (answers.names() == label).astype(float)
    return same


def _score_range(view: MethodView) -> float:
    """The range of the numeric scale (its labels), 1 when they are not all numbers or
    span nothing: the residual floor is scaled by it."""
    try:
        values = [float(x) for x in view.labels]
        return (max(values) - min(values)) or 1.0
    except ValueError:  # a label is not a number, or there are no labels
        return 1.0


def _estimate_group(labelled: Sequence[CalibrationItem], population: Sequence[PopulationItem],
                    targets: Sequence[str | None], tier: int | None, numeric: bool,
                    value_range: float, level: float) -> dict[str, Any] | None:
    """Every label's estimate for one group, or ``None`` when a truth is not a number
    under the mean estimand."""
    pis: Vector = np.array([c.pi for c in labelled], dtype=float)
    equal_pi = float(pis.max() - pis.min()) < 1e-12
    table = population if isinstance(population, PopulationTable) else None
    population_pis = table.pi if table is not None else [p.pi for p in population]
    strata_known = None not in population_pis  # a C loop over a million
    big_n = len(population)
    population_answers = MachineAnswers.of_table(table, tier) if table is not None \
        else MachineAnswers([_answer(p, tier) for p in population])
    out: dict[str, Any] = {}
    for label in targets:
        if numeric:
            try:
                y: Vector = np.array([float(c.truth) for c in labelled])
            except (TypeError, ValueError):
                return None
        else:
            y = np.array([1.0 if str(c.truth) == label else 0.0 for c in labelled])
        f_lab: Vector = np.array([machine_term(_answer(c, tier), label, numeric)
                                  for c in labelled])
        f_pop = machine_terms(population_answers, label, numeric)
        estimate: Estimate
        if equal_pi:
            estimate = tuned_ppi(y, f_lab, f_pop, level, value_range)
            name, human = "ppi++", people_only(y, None, big_n, level)
        elif strata_known:
            estimate = post_stratified_difference(
                y, f_lab, pis, f_pop, np.array(population_pis, dtype=float), level,
                value_range)
            name, human = "stratified_difference", people_only(y, pis, big_n, level)
        else:
            estimate = horvitz_thompson_difference(y, f_lab, pis, f_pop, level, value_range)
            name, human = "ht_difference", people_only(y, pis, big_n, level)
        entry = estimate.as_metrics(name)
        if not numeric:  # a prevalence lies in [0, 1]; the interval is cut there
            entry["lo"], entry["hi"] = max(0.0, entry["lo"]), min(1.0, entry["hi"])
        entry["machine_only"] = float(np.mean(f_pop))
        entry["human_only"] = human
        out["mean" if numeric else str(label)] = entry
    return out


def evaluate_ppi(contract: MethodContract, view: MethodView, look: int = 1) -> MethodResult:
    """Potato 2.12.1's ppi evaluation of ``view`` at look ``look`` (see the module)."""
    alpha = look_level(max(1, look), contract.confidence)
    level = 1.0 - alpha
    result = MethodResult(state="insufficient", look=look, alpha=alpha)
    if not view.tiers:
        result.notes.append("The cascade has no machine tiers.")
        result.ran = False
        return result
    tier = machine_tier(contract, view)
    numeric = contract.params.get("estimand", "prevalence") == "mean"
    targets: list[str | None] = [None] if numeric else list(view.labels)
    by = contract.params.get("by")

    def group_of(item: str) -> str | None:
        return (view.item_fields.get(item) or {}).get(by) if by else None

    table = view.population if isinstance(view.population, PopulationTable) else None
    fields = table.field_column(by) if table is not None and by else None
    groups: list[str | None] = [None]
    if by:
        found = sorted({g for g in (fields if fields is not None else
                                    (group_of(p.item) for p in view.population))
                        if g is not None})
        groups += found
        if not found:
            result.notes.append(f"by: no item has a {by!r} field, so only the overall "
                                "estimate is reported.")

    in_population = table.members() if table is not None \
        else {p.item for p in view.population}
    usable = [c for c in view.calibration
              if c.pi is not None and c.pi > 0 and c.truth is not None]
    labelled = [c for c in usable if c.item in in_population]
    if len(labelled) < len(usable):
        result.notes.append(f"{len(usable) - len(labelled)} labeled item(s) are outside "
                            "the population and were not used.")

    value_range = _score_range(view) if numeric else 1.0
    estimates: dict[str, Any] = {}
    class_labels: dict[str, dict[str, int]] = {}
    widths: list[float] = []
    group_lab: dict[str | None, list[CalibrationItem]] = {g: [] for g in groups}
    group_pop: dict[str | None, Sequence[PopulationItem]] = {g: [] for g in groups}
    group_lab[None] = labelled
    group_pop[None] = table if table is not None else list(view.population)
    if by:  # each item's group looked up once (the same lists as filtering per group)
        for c in labelled:
            if (g := group_of(c.item)) is not None and g in group_lab:
                group_lab[g].append(c)
        if table is not None and fields is not None:  # the columns: one take per group
            # each item's group as a number (-1: none), made a slice at a time: an object
            # array compared with each group held the interpreter lock 30 ms per group
            number = {g: k for k, g in enumerate(groups[1:])}
            codes = array_in_slices(map(number.get, fields, repeat(-1)), np.int64, len(fields))
            for k, g in enumerate(groups[1:]):
                group_pop[g] = table.take(np.flatnonzero(codes == k))
        else:
            members: dict[str | None, list[PopulationItem]] = {g: [] for g in groups[1:]}
            for p in view.population:
                if (g := group_of(p.item)) is not None and g in members:
                    members[g].append(p)
            group_pop.update(members)
    for g in groups:
        lab, pop = group_lab[g], group_pop[g]
        key = "all" if g is None else g
        if len(lab) < MIN_LABELS or not pop:
            estimates[key] = {"n": len(lab), "N": len(pop),
                              "note": f"needs at least {MIN_LABELS} labels"}
            continue
        entries = _estimate_group(lab, pop, targets, tier, numeric, value_range, level)
        if entries is None:
            result.notes.append("A human label is not a number; the mean estimand needs "
                                "numeric labels.")
            result.ran = False
            return result
        widths.extend(e["hi"] - e["lo"] for e in entries.values())
        estimates[key] = entries
        if not numeric:
            truths = [str(c.truth) for c in lab]
            class_labels[key] = {str(label): truths.count(str(label)) for label in targets}

    result.metrics = {"estimates": estimates, "level": level,
                      "tier": ROUTED if tier is None else view.tiers[tier]}
    if class_labels:
        result.accord["class_labels"] = class_labels
    if not widths:
        result.projection = {"more_calibration_labels": max(0, MIN_LABELS - len(labelled))}
        result.ran = False
        return result
    return _verdict(result, contract, widths, len(labelled), numeric, level, look)


def _verdict(result: MethodResult, contract: MethodContract, widths: Sequence[float],
             n: int, numeric: bool, level: float, look: int) -> MethodResult:
    """``met`` when the widest interval fits ``max_width`` (or there is none); else
    ``insufficient``, projecting the labels at which an interval shrinking like
    ``1/√n`` would fit (counted over the whole labelled set, not the widest group's)."""
    widest = max(widths)
    result.metrics["widest_interval"] = widest
    target = contract.params.get("max_width")
    if target is None or widest <= float(target):
        result.state = "met"
    else:
        need = math.ceil(n * (widest / float(target)) ** 2) - n
        result.projection = {"more_calibration_labels": max(1, need),
                             "note": "Projected from the current interval width."}
    what = "the mean" if numeric else "each label's prevalence"
    result.statement = (f"{level:.1%} intervals for {what}, corrected for the machine's "
                        f"error on {n} randomly sampled human labels (look {look}).")
    return result
