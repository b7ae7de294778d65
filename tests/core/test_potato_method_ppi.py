"""Accord's ppi (Potato's method) against Potato 2.12.1's own ``PPI`` contract class.

Every case is a seeded simulated study (:func:`simulated_study`, extended here: unknown
population probabilities, renormalised soft answers, incomplete later tiers, items
outside the population, unusable calibration items), evaluated by
:func:`evaluate_ppi` and by Potato's class on the same view and look; the results must
not differ (numbers to 1e-9, notes and statement word for word). A last test checks the
cases reach every estimator and both verdicts.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Callable
from typing import Any

import pytest

from app.core.contracts.potato_method.ppi import MIN_LABELS, evaluate_ppi, machine_term
from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodContract,
    MethodResult,
    MethodView,
    TierAnswer,
)
from tests.core.potato_method_oracle import differences, potato_result, simulated_study

KEYS = ("status", "acceptance", "metrics", "projection", "look", "alpha", "ran", "notes",
        "statement")

Case = tuple[MethodContract, MethodView, int]


# -- extending the simulated study --------------------------------------------------------

def _map_answers(view: MethodView, change: Callable[[TierAnswer], TierAnswer]) -> MethodView:
    """The view with every tier answer and routed output passed through ``change``
    (the same answer object gets the same new one, on calibration and population)."""
    memo: dict[int, TierAnswer] = {}

    def one(a: TierAnswer | None) -> TierAnswer | None:
        if a is None:
            return None
        if id(a) not in memo:
            memo[id(a)] = change(a)
        return memo[id(a)]

    cal = tuple(dataclasses.replace(c, tiers=tuple(one(t) for t in c.tiers),
                                    output=one(c.output)) for c in view.calibration)
    pop = tuple(dataclasses.replace(p, tiers=tuple(one(t) for t in p.tiers),
                                    output=one(p.output)) for p in view.population)
    return dataclasses.replace(view, calibration=cal, population=pop)


def _unnormalised(view: MethodView, rng: random.Random) -> MethodView:
    """Soft answers whose probabilities do not sum to 1 (Potato divides by the sum);
    some lose their distribution, a few get an all-zero one (the sum counts as 1)."""
    def change(a: TierAnswer) -> TierAnswer:
        if a.distribution is None:
            return a
        u = rng.random()
        if u < 0.1:
            return dataclasses.replace(a, distribution=None)
        if u < 0.15:
            return dataclasses.replace(a, distribution={k: 0.0 for k in a.distribution})
        scale = rng.choice([0.5, 1.0, 1.7, 3.0])
        return dataclasses.replace(
            a, distribution={k: v * scale for k, v in a.distribution.items()})
    return _map_answers(view, change)


def _unknown_population_pi(view: MethodView, rng: random.Random, share: float) -> MethodView:
    """Some population items without a probability (as in Accord's JSON Lines files,
    where only drawn items carry one): Potato then falls back to Horvitz–Thompson."""
    drawn = {c.item for c in view.calibration}
    pop = tuple(dataclasses.replace(p, pi=None)
                if p.item not in drawn and rng.random() < share else p
                for p in view.population)
    return dataclasses.replace(view, population=pop)


def _later_tier_partial(view: MethodView, rng: random.Random) -> MethodView:
    """Later tiers answer only the calibration sample and part of the rest, and the
    routed output is not complete: f must come from the deepest complete tier (the
    first tier when none is complete)."""
    drawn = {c.item for c in view.calibration}
    depth = len(view.tiers)
    missing = rng.randint(0, depth)  # how many trailing tiers are partial
    pop = []
    for p in view.population:
        tiers = list(p.tiers)
        if p.item not in drawn:
            for t in range(depth - missing, depth):
                if rng.random() < 0.5:
                    tiers[t] = None
        pop.append(dataclasses.replace(p, tiers=tuple(tiers)))
    return dataclasses.replace(view, population=tuple(pop), output_complete=False)


def _outside_and_unusable(view: MethodView, rng: random.Random) -> MethodView:
    """Some labelled items leave the population (dropped, with a note); some calibration
    items have pi 0, pi None or no truth (never labelled for ppi)."""
    drawn = [c.item for c in view.calibration]
    gone = {i for i in drawn if rng.random() < 0.1}
    pop = tuple(p for p in view.population if p.item not in gone)
    cal: list[CalibrationItem] = []
    for c in view.calibration:
        u = rng.random()
        if u < 0.04:
            c = dataclasses.replace(c, pi=0.0)
        elif u < 0.08:
            c = dataclasses.replace(c, pi=None)
        elif u < 0.12:
            c = dataclasses.replace(c, truth=None)
        cal.append(c)
    return dataclasses.replace(view, population=pop, calibration=tuple(cal))


def _off_stratum(view: MethodView, rng: random.Random) -> MethodView:
    """A few labelled items whose pi is no population stratum's (they drop out of the
    post-stratified estimator)."""
    cal = tuple(dataclasses.replace(c, pi=(c.pi or 0.0) * 0.9 + 0.01)
                if rng.random() < 0.1 else c for c in view.calibration)
    return dataclasses.replace(view, calibration=cal)


def _empty_stratum(view: MethodView, rng: random.Random) -> MethodView:
    """A few undrawn population items in a stratum of their own that nobody labelled:
    its whole range goes into the post-stratified variance."""
    drawn = {c.item for c in view.calibration}
    tiny = rng.choice([0.001, 0.002])
    pop = tuple(dataclasses.replace(p, pi=tiny)
                if p.item not in drawn and rng.random() < 0.05 else p
                for p in view.population)
    return dataclasses.replace(view, population=pop)


def _tiers(rng: random.Random) -> tuple[float, ...]:
    return tuple(rng.choice([0.5, 0.7, 0.85, 0.95, 1.0]) for _ in range(rng.randint(1, 3)))


def _contract(rng: random.Random, **params: Any) -> MethodContract:
    width = rng.choice([None, None, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 1.0])
    if width is not None:
        params.setdefault("max_width", width)
    return MethodContract(id="prev", kind="ppi", schema="s",
                          confidence=rng.choice([0.8, 0.9, 0.95, 0.99]), params=params)


# -- the scenarios ------------------------------------------------------------------------

def _equal(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    labels = rng.choice([("pos", "neg"), ("pos", "neg", "neu"), ("a", "b", "c", "d")])
    view = simulated_study(seed, n_items=rng.choice([60, 150, 300]), labels=labels,
                           tier_accuracy=_tiers(rng),
                           calibration_share=rng.choice([0.15, 0.4, 0.8]),
                           people=rng.choice([1, 3]))
    return _contract(rng), view


def _strata(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    view = simulated_study(seed, n_items=rng.choice([60, 150, 300]), tier_accuracy=_tiers(rng),
                           calibration_share=rng.choice([0.05, 0.1, 0.4, 0.9]),
                           unequal_pi=True)
    if rng.random() < 0.3:
        view = _off_stratum(view, rng)
    if rng.random() < 0.3:
        view = _empty_stratum(view, rng)
    return _contract(rng), view


def _ht(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    view = simulated_study(seed, n_items=rng.choice([80, 200, 300]), tier_accuracy=_tiers(rng),
                           calibration_share=rng.choice([0.2, 0.4, 0.7]),
                           unequal_pi=rng.random() < 0.8)
    return _contract(rng), _unknown_population_pi(view, rng, rng.choice([0.05, 0.5, 1.0]))


def _by(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    groups = rng.choice([("en", "fr"), ("a", "b", "c"), ("x", "y", "z", "w", "v")])
    view = simulated_study(seed, n_items=rng.choice([60, 150, 400]), tier_accuracy=_tiers(rng),
                           calibration_share=rng.choice([0.2, 0.5]), groups=groups,
                           unequal_pi=rng.random() < 0.4)
    if rng.random() < 0.3:
        view = _unknown_population_pi(view, rng, 0.5)
    return _contract(rng, by="by"), view


def _soft(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    view = simulated_study(seed, n_items=rng.choice([80, 200]), tier_accuracy=_tiers(rng),
                           calibration_share=rng.choice([0.2, 0.5]), distributions=True,
                           unequal_pi=rng.random() < 0.4, abstain=rng.choice([0.0, 0.1]))
    return _contract(rng), _unnormalised(view, rng)


def _mean(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    labels = rng.choice([("1", "2", "3", "4", "5"), ("0", "10"), ("0.5", "1.5", "2.5"),
                         ("3", "4")])
    view = simulated_study(seed, n_items=rng.choice([60, 200]), labels=labels,
                           tier_accuracy=_tiers(rng), calibration_share=rng.choice([0.2, 0.5]),
                           distributions=rng.random() < 0.5, unequal_pi=rng.random() < 0.5,
                           groups=rng.choice([(), ("g1", "g2")]))
    if rng.random() < 0.3:
        view = _unknown_population_pi(view, rng, 0.5)
    if rng.random() < 0.3:
        view = _unnormalised(view, rng)
    if labels == ("3", "4"):  # a scale spanning nothing: the floor's range counts as 1
        view = dataclasses.replace(view, labels=("3",))
    params: dict[str, Any] = {"estimand": "mean"}
    if view.item_fields:
        params["by"] = "by"
    return _contract(rng, **params), view


def _few(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    view = simulated_study(seed, n_items=rng.choice([10, 25, 40, 60]), tier_accuracy=_tiers(rng),
                           calibration_share=rng.choice([0.2, 0.4]),
                           groups=rng.choice([(), ("a", "b")]))
    params = {"by": "by"} if view.item_fields else {}
    return _contract(rng, **params), view


def _tier_key(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    view = simulated_study(seed, n_items=rng.choice([80, 200]),
                           tier_accuracy=(*_tiers(rng), 0.9),
                           calibration_share=0.4, abstain=rng.choice([0.0, 0.2]))
    if rng.random() < 0.5:
        view = _later_tier_partial(view, rng)
    tier = rng.choice([*view.tiers, "nope"])
    return _contract(rng, tier=tier), view


def _incomplete(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    view = simulated_study(seed, n_items=rng.choice([80, 200]),
                           tier_accuracy=(*_tiers(rng), 0.95), calibration_share=0.4,
                           abstain=rng.choice([0.0, 0.1]), distributions=rng.random() < 0.3)
    return _contract(rng), _later_tier_partial(view, rng)


def _outside(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    view = simulated_study(seed, n_items=rng.choice([60, 200]), tier_accuracy=_tiers(rng),
                           calibration_share=rng.choice([0.2, 0.5]),
                           unequal_pi=rng.random() < 0.5)
    return _contract(rng), _outside_and_unusable(view, rng)


def _edge(rng: random.Random, seed: int) -> tuple[MethodContract, MethodView]:
    """The rare branches: no tiers, a ``by`` field nobody has, a non-numeric mean, an
    empty population, a numeric estimand over non-numeric labels with numeric truths
    (and distributions over words)."""
    which = seed % 5
    if which == 0:
        view = simulated_study(seed, n_items=60, tier_accuracy=())
        return _contract(rng), view
    if which == 1:
        view = simulated_study(seed, n_items=100, tier_accuracy=_tiers(rng))
        return _contract(rng, by="language"), view
    if which == 2:
        view = simulated_study(seed, n_items=100, labels=("low", "mid", "high"),
                               tier_accuracy=_tiers(rng), groups=rng.choice([(), ("a", "b")]))
        params: dict[str, Any] = {"estimand": "mean"}
        if view.item_fields:
            params["by"] = "by"
        return _contract(rng, **params), view
    if which == 3:
        view = simulated_study(seed, n_items=100, tier_accuracy=_tiers(rng))
        return _contract(rng), dataclasses.replace(view, population=())
    view = simulated_study(seed, n_items=100, labels=("1", "2", "3"), tier_accuracy=_tiers(rng),
                           distributions=True)
    words = {"1": "one", "2": "two", "3": "three"}

    def worded(a: TierAnswer) -> TierAnswer:  # some distributions over words: f = value
        if a.distribution is None or rng.random() < 0.5:
            return a
        return dataclasses.replace(a, distribution={words[k]: v
                                                    for k, v in a.distribution.items()})
    view = _map_answers(dataclasses.replace(view, labels=tuple(words.values())), worded)
    return _contract(rng, estimand="mean"), view


SCENARIOS: dict[str, Callable[[random.Random, int], tuple[MethodContract, MethodView]]] = {
    "equal": _equal, "strata": _strata, "ht": _ht, "by": _by, "soft": _soft, "mean": _mean,
    "few": _few, "tier": _tier_key, "incomplete": _incomplete, "outside": _outside,
    "edge": _edge,
}
SEEDS = 20
CASES = [f"{name}-{seed}" for name in SCENARIOS for seed in range(SEEDS)]


def _case(case: str) -> Case:
    name, seed = case.rsplit("-", 1)
    rng = random.Random(f"ppi-{case}")
    contract, view = SCENARIOS[name](rng, 1000 + int(seed))
    return contract, view, rng.randint(1, 4)


@functools.cache
def _run(case: str) -> tuple[MethodResult, dict[str, Any]]:
    contract, view, look = _case(case)
    return evaluate_ppi(contract, view, look), potato_result(contract, view, look)


@pytest.mark.parametrize("case", CASES)
def test_same_as_potato(case: str) -> None:
    accord, potato = _run(case)
    assert differences(accord, potato, KEYS) == []


def _estimators(result: MethodResult) -> set[str]:
    found: set[str] = set()
    for group in result.metrics.get("estimates", {}).values():
        for entry in group.values():
            if isinstance(entry, dict) and "estimator" in entry:
                found.add(entry["estimator"])
    return found


def test_the_cases_reach_every_path() -> None:
    """At least 200 studies, reaching each estimator, both verdicts, every look, a group
    too small to estimate, a run that stopped before estimating, and each source of f."""
    assert len(CASES) >= 200
    estimators: set[str] = set()
    states: set[str] = set()
    looks: set[int] = set()
    tiers: set[str] = set()
    small_group = stopped = projected = False
    for case in CASES:
        accord, _ = _run(case)
        estimators |= _estimators(accord)
        states.add(accord.state)
        looks.add(accord.look)
        tiers.add(str(accord.metrics.get("tier")))
        stopped |= not accord.ran
        projected |= "note" in accord.projection
        small_group |= any("note" in g for g in accord.metrics.get("estimates", {}).values())
    assert estimators == {"ppi++", "stratified_difference", "ht_difference"}
    assert states == {"met", "insufficient"}
    assert looks == {1, 2, 3, 4}
    assert {"cascade output", "tier0", "tier1"} <= tiers
    assert stopped and projected and small_group


def test_the_machine_term() -> None:
    """f for one item: the class's share of an unnormalised distribution, 0/1 without
    one, the expectation for the mean, 0 for an abstention or no answer."""
    soft = TierAnswer("a", 0.8, "ok", {"a": 1.0, "b": 3.0})
    assert machine_term(soft, "b", numeric=False) == 0.75
    assert machine_term(TierAnswer("a", 0.8), "a", numeric=False) == 1.0
    assert machine_term(TierAnswer(None, 0.0, "abstain"), "a", numeric=False) == 0.0
    assert machine_term(None, "a", numeric=False) == 0.0
    scale = TierAnswer("2", 0.8, "ok", {"1": 1.0, "3": 1.0})
    assert machine_term(scale, None, numeric=True) == 2.0
    assert machine_term(TierAnswer("x", 0.8, "ok", {"x": 1.0}), None, numeric=True) == 0.0
    assert machine_term(TierAnswer("4.5"), None, numeric=True) == 4.5


def test_too_few_labels_projects_the_rest() -> None:
    view = simulated_study(3, n_items=12, calibration_share=0.3)
    contract = MethodContract(id="p", kind="ppi", schema="s")
    result = evaluate_ppi(contract, view)
    labelled = len(view.calibration)
    assert labelled < MIN_LABELS
    assert result.state == "insufficient" and not result.ran
    assert result.projection == {"more_calibration_labels": MIN_LABELS - labelled}
    assert differences(result, potato_result(contract, view), KEYS) == []


def test_a_group_called_all_replaces_the_overall_estimate() -> None:
    """Potato keys the overall estimate ``all`` in the same mapping as the groups, so a
    ``by`` value ``all`` overwrites it; Accord does the same, to stay equal."""
    view = simulated_study(5, n_items=300, groups=("all", "b"))
    contract = MethodContract(id="p", kind="ppi", schema="s", params={"by": "by"})
    result = evaluate_ppi(contract, view)
    assert set(result.metrics["estimates"]) == {"all", "b"}
    overall = len(view.calibration)
    assert result.metrics["estimates"]["all"]["pos"]["n"] < overall
    assert differences(result, potato_result(contract, view), KEYS) == []


def test_unequal_design_with_one_labelled_stratum_is_ppi_plus_plus() -> None:
    """Potato decides "equal probabilities" from the labelled items alone: an unequal
    design whose labels all fell in one stratum is estimated by PPI++ as if uniform."""
    view = simulated_study(8, n_items=300, unequal_pi=True)
    top = max(c.pi or 0.0 for c in view.calibration)
    view = dataclasses.replace(view, calibration=tuple(c for c in view.calibration
                                                       if c.pi == top))
    contract = MethodContract(id="p", kind="ppi", schema="s")
    result = evaluate_ppi(contract, view)
    assert result.metrics["estimates"]["all"]["pos"]["estimator"] == "ppi++"
    assert differences(result, potato_result(contract, view), KEYS) == []
