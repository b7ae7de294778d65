"""Simulated studies for ``no_worse_than_human``: how often the alternative annotator
test passes when the machine really is no worse than people, and when it is worse.

One study: ``n_items`` items with a true class out of ``classes``; ``n_people`` people,
each item labelled by ``overlap_k`` of them chosen at random; a person is right with
probability ``human_accuracy`` and otherwise picks one of the other classes uniformly;
the machine likewise with ``machine_accuracy``. The test is the one the contract runs
(:func:`~app.core.contracts.statistics.annotator_test.alternative_annotator_test` with exact match,
the contract's minimum of 3 people with 30 items each, BY at ``1 − confidence``), and a
study passes at a winning rate of at least 0.5 (:data:`PASSING_RATE`).

Shared by ``tests/core/test_no_worse_simulation.py`` (a few hundred studies) and
``tests/benchmarks/bench_no_worse_mc.py`` (more, printing the shares).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.core.contracts.kinds.no_worse_than_human import PASSING_RATE
from app.core.contracts.statistics.annotator_test import alternative_annotator_test, exact_match


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    machine_accuracy: float
    human_accuracy: float = 0.85
    n_items: int = 60
    n_people: int = 4
    overlap_k: int = 3
    classes: int = 3
    epsilon: float = 0.1
    confidence: float = 0.9


@dataclass(frozen=True, slots=True)
class Share:
    scenario: Scenario
    studies: int
    passed: int
    undefined: int

    @property
    def share(self) -> float:
        return self.passed / self.studies


def _noisy(rng: np.random.Generator, truth: int, accuracy: float, classes: int) -> int:
    if rng.random() < accuracy:
        return truth
    return int((truth + rng.integers(1, classes)) % classes)


def one_study(rng: np.random.Generator, s: Scenario) -> bool | None:
    """Whether the test passes on one simulated study (``None``: too few people tested)."""
    humans: dict[int, dict[int, int]] = {}
    machine: dict[int, int] = {}
    for item in range(s.n_items):
        truth = int(rng.integers(0, s.classes))
        people = rng.choice(s.n_people, size=s.overlap_k, replace=False)
        humans[item] = {int(p): _noisy(rng, truth, s.human_accuracy, s.classes)
                        for p in people}
        machine[item] = _noisy(rng, truth, s.machine_accuracy, s.classes)
    test = alternative_annotator_test(humans, machine, s.epsilon, s.confidence, exact_match)
    if test.winning_rate is None:
        return None
    return test.winning_rate >= PASSING_RATE


def pass_share(s: Scenario, studies: int, seed: int) -> Share:
    rng = np.random.default_rng(seed)
    passed = undefined = 0
    for _ in range(studies):
        verdict = one_study(rng, s)
        undefined += verdict is None
        passed += bool(verdict)
    return Share(s, studies, passed, undefined)


SCENARIOS = (
    Scenario("machine better than people (0.92 vs 0.85)", 0.92),
    Scenario("machine as good as people (0.85 vs 0.85)", 0.85),
    Scenario("machine slightly worse, within epsilon (0.80 vs 0.85)", 0.80),
    Scenario("machine clearly worse (0.65 vs 0.85)", 0.65),
    Scenario("machine much worse (0.50 vs 0.85)", 0.50),
)
"""From truly no worse to truly worse. "Within epsilon": the margin test's null is an
agreement deficit of at least ``epsilon`` against the remaining people, so a slightly
worse machine is meant to pass sometimes."""
