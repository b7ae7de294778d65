"""Accord's Potato-method kinds against Potato 2.12.1's own classes, on seeded studies.

Each kind here (threshold_legacy, budget_first, distributional, no_worse_than_human) is
run on at least 200 simulated studies beside Potato's class of the same kind; results
must be equal to 1e-9 everywhere (numbers, states, acceptance, metrics, projection,
look, alpha, ran, and the words of notes and statement too), and each kind's studies
must reach every state that kind can return. The study variations (people per item,
annotator groups, label distributions, budgets, looks, too few labels) are built here
on top of :func:`tests.core.potato_method_oracle.simulated_study`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from app.core.contracts.potato_method.budget_first import evaluate_budget_first
from app.core.contracts.potato_method.distributional import evaluate_distributional
from app.core.contracts.potato_method.no_worse_than_human import evaluate_no_worse_than_human
from app.core.contracts.potato_method.threshold_legacy import evaluate_threshold_legacy
from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodContract,
    MethodResult,
    MethodView,
)
from tests.core import potato_method_oracle as oracle
from tests.core.potato_method_oracle import differences, potato_result, simulated_study

ALL_KEYS = ("status", "acceptance", "metrics", "projection", "look", "alpha", "ran",
            "statement", "notes")
STUDIES = 200


def compare(evaluate: Callable[[MethodContract, MethodView, int], MethodResult],
            contract: MethodContract, view: MethodView, look: int,
            mine: MethodResult | None = None) -> str:
    """Run both (ours unless given as ``mine``); fail with the differences, return the
    state."""
    if mine is None:
        mine = evaluate(contract, view, look)
    theirs = potato_result(contract, view, look)
    diff = differences(mine, theirs, ALL_KEYS)
    assert diff == [], (contract, look, diff[:10])
    return mine.state


def vary_people(view: MethodView, rng: random.Random, *, pool: int, low: int, high: int,
                person_accuracy: float) -> MethodView:
    """Each calibration item gets ``low``–``high`` people drawn from ``pool`` persons,
    labelling right with ``person_accuracy``; the truth is their majority (ties to the
    first person), as ``humans.truth`` makes it."""
    items: list[CalibrationItem] = []
    names = [f"u{k}" for k in range(pool)]
    for c in view.calibration:
        # The simulated truth is the study's human label; people err around it.
        k = rng.randint(low, high)
        chosen = rng.sample(names, min(k, pool))
        votes: dict[str, Any] = {}
        for person in chosen:
            if rng.random() < person_accuracy:
                votes[person] = c.truth
            else:
                votes[person] = rng.choice([x for x in view.labels if x != c.truth])
        counts = Counter(votes.values())
        best = max(counts.values()) if counts else 0
        truth = next((v for v in votes.values() if counts[v] == best), c.truth)
        items.append(replace(c, people=votes, truth=truth))
    return replace(view, calibration=tuple(items))


# --- threshold_legacy ------------------------------------------------------------------

def threshold_case(seed: int) -> tuple[MethodContract, MethodView, int]:
    rng = random.Random(1000 + seed)
    tiers = rng.choice([(0.7,), (0.6, 0.9), (0.5, 0.8, 0.95)])
    view = simulated_study(seed, n_items=rng.choice([0, 5, 40, 120]), tier_accuracy=tiers,
                           abstain=rng.choice([0.0, 0.2]),
                           calibration_share=rng.choice([0.1, 0.4]))
    if seed % 25 == 0:
        view = replace(view, tiers=())
    # Thresholds on the confidences' own grid (4 places) so some equal a confidence.
    threshold = rng.choice([0.0, 0.5, 0.65, 0.8, 0.9, 0.99, 1.0,
                            round(rng.random(), 4)])
    if view.calibration and rng.random() < 0.3:
        some = rng.choice(view.calibration).output
        if some is not None:
            threshold = some.confidence
    contract = MethodContract("legacy", "threshold_legacy", "s",
                              confidence=rng.choice([0.8, 0.9, 0.95]),
                              params={"threshold": threshold})
    return contract, view, rng.randint(1, 4)


def test_threshold_legacy_equals_potato() -> None:
    states: Counter[str] = Counter()
    measured_none = 0
    for seed in range(STUDIES):
        contract, view, look = threshold_case(seed)
        mine = evaluate_threshold_legacy(contract, view, look)
        states[compare(evaluate_threshold_legacy, contract, view, look, mine)] += 1
        measured_none += mine.metrics.get("measured_error", 0) is None
    assert set(states) == {"met", "insufficient"}, states
    assert measured_none > 0


# --- budget_first ----------------------------------------------------------------------

def potato_with(contract: MethodContract, view: MethodView, look: int,
                **attributes: Any) -> dict[str, Any]:
    """Potato's class with the attributes its engine sets on it (``dev_fraction``): a
    local adapter, since :func:`potato_result` builds the class without them."""
    cls = oracle.contracts.build_contract(oracle.potato_contract(contract, view.labels))
    for name, value in attributes.items():
        setattr(cls, name, value)
    result: dict[str, Any] = cls.evaluate(oracle.to_potato(view), look=look).to_dict()
    return result


def budget_case(seed: int) -> tuple[MethodContract, MethodView, int, float]:
    rng = random.Random(2000 + seed)
    tiers = rng.choice([(0.6,), (0.8, 0.95), (0.97,), (0.995,), (0.9, 0.99)])
    view = simulated_study(seed, n_items=rng.choice([10, 40, 60, 150, 300, 500]),
                           tier_accuracy=tiers, abstain=rng.choice([0.0, 0.1]),
                           calibration_share=rng.choice([0.2, 0.5]),
                           dev_fraction=rng.choice([0.3, 0.5, 0.8]))
    draw = rng.random()
    if draw < 0.08:
        # No calibration item with a known pi: no half-width at all.
        view = replace(view, calibration=tuple(replace(c, pi=None)
                                               for c in view.calibration))
    elif draw < 0.35:
        # Some calibration items without a known pi (or pi 0): Potato's half-width
        # counts them in the numerator but not the denominator.
        view = replace(view, calibration=tuple(
            replace(c, pi=rng.choice([None, 0.0, c.pi])) for c in view.calibration))
    params: dict[str, Any]
    choice = rng.random()
    if choice < 0.6:
        params = {"human_labels": rng.choice([0, 30, 200, 1000, 10000])}
    elif choice < 0.85:
        params = {"human_usd": rng.choice([0.0, 25.0, 400.0, 3000.0]),
                  "reward_per_label_usd": rng.choice([0.07, 0.15, 1.0])}
    else:
        params = {"human_usd": 500.0}
    contract = MethodContract("budget", "budget_first", "s",
                              confidence=rng.choice([0.8, 0.9, 0.95, 0.99]), params=params)
    return contract, view, rng.randint(1, 4), rng.choice([0.3, 0.5, 0.7])


def test_budget_first_equals_potato() -> None:
    states: Counter[str] = Counter()
    covered = no_width = 0
    for seed in range(STUDIES):
        contract, view, look, dev_fraction = budget_case(seed)
        mine = evaluate_budget_first(contract, view, look, dev_fraction=dev_fraction)
        theirs = potato_with(contract, view, look, dev_fraction=dev_fraction)
        diff = differences(mine, theirs, ALL_KEYS)
        assert diff == [], (seed, diff[:10])
        states[mine.state] += 1
        covered += any(f["coverage"] > 0 for f in mine.metrics.get("frontier", []))
        no_width += (mine.state == "met"
                     and "prevalence_halfwidth_after_budget" not in mine.metrics)
    assert set(states) == {"met", "insufficient"}, states
    assert no_width > 0
    assert 0 < covered < states["met"], (covered, states)


def test_budget_first_default_dev_fraction_is_potatos() -> None:
    """Without an engine to set it, both take half the budget as cert labels."""
    for seed in range(20):
        contract, view, look, _ = budget_case(seed)
        assert differences(evaluate_budget_first(contract, view, look),
                           potato_result(contract, view, look), ALL_KEYS) == []


# --- distributional --------------------------------------------------------------------

FIELDS = ("age_band", "region")


def person_groups(rng: random.Random, pool: int) -> dict[str, dict[str, str]]:
    """Attributes for most of the ``pool`` persons (some have none, some lack a field)."""
    out: dict[str, dict[str, str]] = {}
    for k in range(pool):
        if rng.random() < 0.15:
            continue
        attrs = {"age_band": rng.choice(["18-30", "31-50", "51+"])}
        if rng.random() < 0.7:
            attrs["region"] = rng.choice(["north", "south"])
        out[f"u{k}"] = attrs
    return out


def stray(view: MethodView, rng: random.Random, share: float) -> MethodView:
    """A ``share`` of routed outputs and people's labels outside the schema's labels."""
    items = []
    for c in view.calibration:
        output = c.output
        if output is not None and rng.random() < share:
            output = replace(output, value="zzz", distribution=None)
        people = {u: ("zzz" if rng.random() < share else v) for u, v in c.people.items()}
        items.append(replace(c, output=output, people=people))
    return replace(view, calibration=tuple(items))


def distributional_case(seed: int) -> tuple[MethodContract, MethodView, int]:
    rng = random.Random(3000 + seed)
    view = simulated_study(seed, n_items=rng.choice([30, 80, 200, 300]),
                           tier_accuracy=rng.choice([(0.5,), (0.7, 0.9), (0.95,)]),
                           calibration_share=rng.choice([0.3, 0.6]),
                           distributions=rng.random() < 0.5,
                           abstain=rng.choice([0.0, 0.1]))
    pool = rng.choice([5, 8, 12])
    view = vary_people(view, rng, pool=pool, low=1, high=5,
                       person_accuracy=rng.choice([0.5, 0.75, 0.95]))
    if rng.random() < 0.15:
        view = stray(view, rng, 0.1)
    view = replace(view, person_groups=person_groups(rng, pool))
    params: dict[str, Any] = {}
    target = rng.choice([None, 0.05, 0.2, 0.35, 0.5, 0.9, "near"])
    if target == "near":
        # Just at the measured distance, so the interval straddles it.
        probe = evaluate_distributional(
            MethodContract("d", "distributional", "s"), view).metrics["overall"]
        target = round(probe.get("machine_distance", 0.3), 3)
    if target is not None:
        params["max_distance"] = target
    if rng.random() < 0.6:
        params["groups_by"] = rng.choice([*FIELDS, "nobody_has_this"])
    contract = MethodContract("dist", "distributional", "s",
                              confidence=rng.choice([0.8, 0.9, 0.95]), params=params)
    return contract, view, rng.randint(1, 4)


def test_distributional_equals_potato() -> None:
    states: Counter[str] = Counter()
    grouped = small_group = 0
    for seed in range(STUDIES):
        contract, view, look = distributional_case(seed)
        mine = evaluate_distributional(contract, view, look)
        state = compare(evaluate_distributional, contract, view, look, mine)
        states[state if mine.ran else f"{state}, not ran"] += 1
        groups = mine.metrics.get("groups", {})
        grouped += any("interval" in g for g in groups.values())
        small_group += any("interval" not in g for g in groups.values())
    assert set(states) == {"met", "infeasible", "insufficient", "insufficient, not ran"}, \
        states
    assert grouped and small_group


# --- no_worse_than_human ---------------------------------------------------------------

def missing_labels(view: MethodView, rng: random.Random, share: float) -> MethodView:
    """A ``share`` of people's labels recorded as ``None`` (missing to the alt-test)."""
    return replace(view, calibration=tuple(
        replace(c, people={u: (None if rng.random() < share else v)
                           for u, v in c.people.items()}) for c in view.calibration))


def no_worse_case(seed: int) -> tuple[MethodContract, MethodView, int]:
    rng = random.Random(4000 + seed)
    numeric = rng.random() < 0.3
    labels = ("1", "2", "3", "4", "5") if numeric else ("pos", "neg", "neu")
    view = simulated_study(seed, n_items=rng.choice([20, 80, 200, 400]), labels=labels,
                           tier_accuracy=rng.choice([(0.3,), (0.6,), (0.8, 0.95), (0.99,)]),
                           calibration_share=rng.choice([0.3, 0.6, 0.9]),
                           abstain=rng.choice([0.0, 0.0, 0.1]))
    pool = rng.choice([2, 3, 5, 8])
    view = vary_people(view, rng, pool=pool, low=1, high=min(5, pool),
                       person_accuracy=rng.choice([0.6, 0.8, 0.95, 1.0]))
    if rng.random() < 0.2:
        view = missing_labels(view, rng, 0.1)
    if rng.random() < 0.3:
        view = replace(view, output_complete=False)
    params: dict[str, Any] = {}
    epsilon = rng.choice([None, 0.0, 0.05, 0.1, 0.2])
    if epsilon is not None:
        params["epsilon"] = epsilon
    if numeric or rng.random() < 0.1:
        params["metric"] = "neg_rmse" if numeric else "accuracy"
    needed = rng.choice([None, None, 10, 20, 30, 50])
    if needed is not None:
        params["min_items_per_annotator"] = needed
    contract = MethodContract("nwth", "no_worse_than_human", "s",
                              confidence=rng.choice([0.8, 0.9, 0.95]), params=params)
    return contract, view, rng.randint(1, 4)


def test_no_worse_than_human_equals_potato() -> None:
    states: Counter[str] = Counter()
    tests: Counter[str] = Counter()
    for seed in range(STUDIES):
        contract, view, look = no_worse_case(seed)
        mine = evaluate_no_worse_than_human(contract, view, look)
        state = compare(evaluate_no_worse_than_human, contract, view, look, mine)
        states[state if mine.ran else f"{state}, not ran"] += 1
        alt = mine.metrics["alt_test"]
        if alt["passed"] is not None:
            tests[f"{alt['test']} {alt['metric']}"] += 1
            ps = [row["p_value"] for row in alt["per_annotator"]]
            tests["p 0 or 1"] += any(p in (0.0, 1.0) for p in ps)
            # scipy's Wilcoxon takes an exact permutation test at 13 items or fewer.
            tests["permutation"] += alt["test"] == "wilcoxon" and any(
                row["n_items"] <= 13 for row in alt["per_annotator"])
    assert set(states) == {"met", "violated", "insufficient", "insufficient, not ran"}, \
        states
    assert {"ttest accuracy", "wilcoxon accuracy", "ttest neg_rmse",
            "wilcoxon neg_rmse"} <= set(tests), tests
    assert tests["p 0 or 1"] > 0
    assert tests["permutation"] > 0


# --- edge cases, every kind ------------------------------------------------------------

def edge_views() -> list[MethodView]:
    """Studies at the corners: nothing labelled, one person per item, no machine answer,
    every person's label missing, no tiers at all."""
    base = vary_people(simulated_study(7, n_items=150), random.Random(7), pool=4, low=3,
                       high=4, person_accuracy=0.8)
    no_answer = replace(base, calibration=tuple(replace(c, output=None)
                                                for c in base.calibration))
    return [
        replace(base, calibration=()),
        vary_people(base, random.Random(8), pool=4, low=1, high=1, person_accuracy=0.8),
        no_answer,
        missing_labels(base, random.Random(9), 1.0),
        replace(base, calibration=tuple(replace(c, people={}) for c in base.calibration)),
        replace(base, tiers=()),
        base,
    ]


EDGE_CONTRACTS = [
    (evaluate_threshold_legacy, MethodContract("t", "threshold_legacy", "s",
                                               params={"threshold": 0.7})),
    (evaluate_budget_first, MethodContract("b", "budget_first", "s",
                                           params={"human_labels": 100})),
    (evaluate_distributional, MethodContract("d", "distributional", "s",
                                             params={"max_distance": 0.3})),
    (evaluate_no_worse_than_human, MethodContract("n", "no_worse_than_human", "s")),
]


@pytest.mark.parametrize(("evaluate", "contract"), EDGE_CONTRACTS,
                         ids=[c.kind for _, c in EDGE_CONTRACTS])
def test_edge_studies_equal_potato(evaluate: Callable[..., MethodResult],
                                   contract: MethodContract) -> None:
    reasons = set()
    for view in edge_views():
        for look in (1, 3):
            compare(evaluate, contract, view, look)
        if contract.kind == "no_worse_than_human":
            reasons.add(evaluate(contract, view).metrics["alt_test"]["insufficient"])
    if contract.kind == "no_worse_than_human":
        assert "no human annotations" in reasons
        assert any(r and r.startswith("no items have both") for r in reasons), reasons
