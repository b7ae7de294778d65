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

from app.core.contracts.potato_method.threshold_legacy import evaluate_threshold_legacy
from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodContract,
    MethodResult,
    MethodView,
)
from tests.core.potato_method_oracle import differences, potato_result, simulated_study

ALL_KEYS = ("status", "acceptance", "metrics", "projection", "look", "alpha", "ran",
            "statement", "notes")
STUDIES = 200


def compare(evaluate: Callable[[MethodContract, MethodView, int], MethodResult],
            contract: MethodContract, view: MethodView, look: int) -> str:
    """Run both; fail with the differences, return the state."""
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
        states[compare(evaluate_threshold_legacy, contract, view, look)] += 1
        mine = evaluate_threshold_legacy(contract, view, look)
        measured_none += mine.metrics.get("measured_error", 0) is None
    assert set(states) == {"met", "insufficient"}, states
    assert measured_none > 0
