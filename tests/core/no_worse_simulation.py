"""Simulated studies for ``no_worse_than_human`` under Potato 2.12.1's method: how often
the contract is met when the machine really is no worse than people, and when it is
worse.

One study: ``n_items`` calibration items with a true class out of ``classes``;
``n_people`` people, each item labelled by ``overlap_k`` of them chosen at random; a
person is right with probability ``human_accuracy`` and otherwise picks one of the
other classes uniformly; the machine (one cascade tier, whose answer is the routed
output) likewise with ``machine_accuracy``. Each item goes to dev or cert with
probability one half (the kind reads both alike), its truth being the people's majority
(ties to the first person), as ``humans.truth`` makes it. The study is a
:class:`~app.core.contracts.potato_method.view.MethodView` and the verdict is
:func:`~app.core.contracts.potato_method.no_worse_than_human.evaluate_no_worse_than_human`
at look 1: the alternative annotator test with exact-match alignment, ties a win for
both sides, a one-sided t-test per person against ``epsilon``, Benjamini–Yekutieli at
the look's level ``(1 − confidence) · 6 / π²`` (0.0608 at confidence 0.9), at least 3
people with 30 usable items each; **met** when the test is won against at least half
of the people. Not met is ``violated`` only when the mean machine advantage is below
the people's by more than ``epsilon``, otherwise ``insufficient``.

Shared by ``tests/core/test_no_worse_simulation.py`` (a hundred studies per scenario)
and ``tests/benchmarks/bench_no_worse_mc.py`` (more, printing the shares).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.core.contracts.potato_method.no_worse_than_human import evaluate_no_worse_than_human
from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodContract,
    MethodView,
    PopulationItem,
    TierAnswer,
)


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
    """Studies where the test could not run (fewer than 3 people with 30 items)."""
    violated: int = 0

    @property
    def share(self) -> float:
        return self.passed / self.studies

    @property
    def violated_share(self) -> float:
        return self.violated / self.studies


def _noisy(rng: np.random.Generator, truth: int, accuracy: float, classes: int) -> int:
    if rng.random() < accuracy:
        return truth
    return int((truth + rng.integers(1, classes)) % classes)


def _majority(votes: dict[str, str]) -> str:
    counts: dict[str, int] = {}
    for label in votes.values():
        counts[label] = counts.get(label, 0) + 1
    best = max(counts.values())
    return next(label for label in votes.values() if counts[label] == best)


def simulated_view(rng: np.random.Generator, s: Scenario) -> MethodView:
    """One study as the contract reads it."""
    labels = tuple(f"c{k}" for k in range(s.classes))
    calibration: list[CalibrationItem] = []
    population: list[PopulationItem] = []
    pi = 1.0
    for index in range(s.n_items):
        item = f"i{index:04d}"
        truth = int(rng.integers(0, s.classes))
        people = rng.choice(s.n_people, size=s.overlap_k, replace=False)
        votes = {f"p{int(p)}": labels[_noisy(rng, truth, s.human_accuracy, s.classes)]
                 for p in people}
        answer = TierAnswer(labels[_noisy(rng, truth, s.machine_accuracy, s.classes)],
                            float(rng.uniform(0.5, 1.0)), "ok")
        split = "dev" if rng.random() < 0.5 else "cert"
        calibration.append(CalibrationItem(item, _majority(votes), split, pi, (answer,),
                                           answer, votes))
        population.append(PopulationItem(item, (answer,), None, pi, answer))
    return MethodView(scheme="verdict", labels=labels, tiers=("machine",),
                      calibration=tuple(calibration), population=tuple(population),
                      output_complete=True)


def contract(s: Scenario) -> MethodContract:
    return MethodContract(id="replaces-a-person", kind="no_worse_than_human",
                          schema="verdict", confidence=s.confidence,
                          params={"epsilon": s.epsilon})


def one_study(rng: np.random.Generator, s: Scenario) -> str | None:
    """The state at look 1 on one simulated study (``None``: the test could not run)."""
    result = evaluate_no_worse_than_human(contract(s), simulated_view(rng, s), 1)
    return result.state if result.ran else None


def pass_share(s: Scenario, studies: int, seed: int) -> Share:
    rng = np.random.default_rng(seed)
    passed = undefined = violated = 0
    for _ in range(studies):
        state = one_study(rng, s)
        undefined += state is None
        passed += state == "met"
        violated += state == "violated"
    return Share(s, studies, passed, undefined, violated)


SCENARIOS = (
    Scenario("machine better than people (0.92 vs 0.85)", 0.92),
    Scenario("machine as good as people (0.85 vs 0.85)", 0.85),
    Scenario("machine slightly worse, within epsilon (0.80 vs 0.85)", 0.80),
    Scenario("machine clearly worse (0.65 vs 0.85)", 0.65),
    Scenario("machine much worse (0.50 vs 0.85)", 0.50),
)
"""From truly no worse to truly worse. "Within epsilon": the margin test's null is a
winning-rate deficit (``W^h − W^f``, ties a win for both) of at least ``epsilon``, so a
slightly worse machine is meant to pass sometimes."""
