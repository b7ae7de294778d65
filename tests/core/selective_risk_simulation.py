"""Simulated studies for ``selective_risk`` under Potato 2.12.1's method: how often a met
contract is wrong about the population it certifies.

One study (:func:`simulate`, sizes in :class:`Design`: 500 items, 300 of them drawn for
people, unless told): a population of ``population`` items, each with a true
class out of :data:`LABELS`, and one or two cascade tiers. Each tier gives every item a
confidence ``c ~ U(0.5, 1)`` (3 decimals) and is wrong (another class, uniformly) with
probability

- ``min(1, s · (1 − c))``, ``s ~ U(0.1, 0.8)`` per study and tier (*calibrated*: the
  confidence predicts correctness, and the error of the labels above a threshold ``t``
  is about ``s (1 − t) / 2``, below 0.1 for some thresholds and above it for others), or
- ``e ~ U(0.04, 0.16)`` whatever the confidence (*flat*: the hard case, where only
  chance makes dev find a threshold and the cert tests alone stand between a bad rule
  and ``met``).

``calibration`` items are drawn uniformly without replacement, all with inclusion
probability ``pi = calibration / population``, in a random order (the order in which
people label them), and each goes to dev or cert with probability ``dev_fraction``.
One person labels each drawn item: the true class, or with ``person_accuracy`` below 1
a noisy person who gives another class otherwise.

The contract is ``error`` 0.1 at ``confidence`` 0.9 (:data:`CONTRACT`), evaluated by
:func:`~app.core.contracts.potato_method.selective_risk.evaluate_selective_risk`, which
spends the look's level ``(1 − confidence) · 6 / (π² k²)`` itself. A study **falsely
certifies** when the result is ``met`` while the true error (against the true class) of
the machine labels its rule accepts over the whole population is above 0.1.
:func:`accepted_labels` reads the rule as Potato's delivery does
(``service.py:1277-1370``): walking the tiers in order, a tier's answer is accepted when
its confidence reaches the certified threshold (``result.acceptance``), the item goes to
people when it reaches the tier's routing threshold (``metrics.route``) but not an
accepting one, and otherwise moves on to the next tier.

Two ways to test (:data:`SCHEDULES`):

- ``one look``: every label in, look 1;
- ``every batch``: a test after every batch of 30 labels, on the growing sample, at
  looks 1, 2, 3, … (a look is spent only by a test that ran), stopping at the first
  ``met``: what a user testing until it passes would run.

The person's label is what the cert tests count errors against; with a noisy person
the contract is about agreement with that person, not with the true class (a person
wrong 10% of the time leaves nothing certifiable at a target of 0.1), so the validity
scenarios use a person who gives the true class.

Shared by ``tests/core/test_selective_risk_mc.py`` (a few hundred studies per scenario)
and ``tests/benchmarks/bench_selective_risk_mc.py`` (5,000, printing the shares).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

from app.core.contracts.potato_method.selective_risk import evaluate_selective_risk
from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodContract,
    MethodResult,
    MethodView,
    PopulationItem,
    TierAnswer,
)

LABELS = ("pos", "neg", "neu")
TARGET = 0.1
CONFIDENCE = 0.9
DEV_FRACTION = 0.5
BATCH = 30
CONTRACT = MethodContract(id="accuracy", kind="selective_risk", schema="sentiment",
                          confidence=CONFIDENCE, params={"error": TARGET})
SCHEDULES = ("one look", "every batch")


@dataclass(frozen=True)
class Simulated:
    """One study: every item's tier answers, their truth, and the labelling order."""

    tiers: tuple[str, ...]
    population: tuple[PopulationItem, ...]
    truth: Mapping[str, str]
    order: tuple[str, ...]
    """The drawn calibration items, in the order people label them."""
    split: Mapping[str, str]
    """Drawn item → ``dev`` or ``cert``."""
    human: Mapping[str, str]
    """Drawn item → the person's label."""
    pi: float


@dataclass(frozen=True, slots=True)
class Design:
    """The study's sizes and its person."""

    population: int = 500
    calibration: int = 300
    person_accuracy: float = 1.0
    dev_fraction: float = DEV_FRACTION
    confidence: float = CONFIDENCE
    """The contract's confidence (:data:`CONFIDENCE`; lower only to show that the
    simulation does catch a rule tested too leniently)."""

    def contract(self) -> MethodContract:
        return replace(CONTRACT, confidence=self.confidence)


def simulate(rng: np.random.Generator, tiers: int, *, flat: bool = False,
             design: Design = Design()) -> Simulated:
    """One seeded study (see the module docstring)."""
    population, calibration = design.population, design.calibration
    person_accuracy, dev_fraction = design.person_accuracy, design.dev_fraction
    names = tuple(f"t{k}" for k in range(tiers))
    items = [f"i{k:04d}" for k in range(population)]
    truth_index = rng.integers(0, len(LABELS), population)
    answers: list[list[TierAnswer]] = [[] for _ in items]
    for _ in names:
        scale = rng.uniform(0.1, 0.8)
        flat_error = rng.uniform(0.04, 0.16)
        conf = np.round(rng.uniform(0.5, 1.0, population), 3)
        p_wrong = np.full(population, flat_error) if flat \
            else np.minimum(1.0, scale * (1.0 - conf))
        wrong = rng.random(population) < p_wrong
        shift = rng.integers(1, len(LABELS), population)
        for k in range(population):
            value = LABELS[(truth_index[k] + (shift[k] if wrong[k] else 0)) % len(LABELS)]
            answers[k].append(TierAnswer(value, float(conf[k]), "ok"))
    pi = calibration / population
    truth = {item: LABELS[t] for item, t in zip(items, truth_index, strict=True)}
    pop = tuple(PopulationItem(item, tuple(a), None, pi, a[0])
                for item, a in zip(items, answers, strict=True))
    drawn = rng.permutation(population)[:calibration]
    order = tuple(items[k] for k in drawn)
    to_dev = rng.random(calibration) < dev_fraction
    split = {item: "dev" if d else "cert" for item, d in zip(order, to_dev, strict=True)}
    right = rng.random(calibration) < person_accuracy
    other = rng.integers(1, len(LABELS), calibration)
    human = {}
    for item, r, o in zip(order, right, other, strict=True):
        t = LABELS.index(truth[item])
        human[item] = LABELS[t if r else (t + o) % len(LABELS)]
    return Simulated(names, pop, truth, order, split, human, pi)


def view_after(sim: Simulated, count: int) -> MethodView:
    """The study as the contract sees it once the first ``count`` drawn items are
    labelled; the routed output is the first tier's answer (no stored rule yet)."""
    by_item = {p.item: p for p in sim.population}
    calibration = tuple(
        CalibrationItem(item, sim.human[item], sim.split[item], sim.pi,
                        by_item[item].tiers, by_item[item].output,
                        {"person": sim.human[item]})
        for item in sim.order[:count])
    return MethodView(scheme="sentiment", labels=LABELS, tiers=sim.tiers,
                      calibration=calibration, population=sim.population,
                      output_complete=True)


def _threshold(rule: Mapping[str, Mapping[str, float | None]], tier: str) -> float | None:
    return (rule.get(tier) or {}).get("*")


def accepted_labels(tiers: Sequence[str], population: Sequence[PopulationItem],
                    result: MethodResult) -> dict[str, TierAnswer]:
    """item → the machine answer the result's rule accepts, walking the cascade as
    Potato's delivery does (the module docstring); nothing unless ``met``."""
    if result.state != "met":
        return {}
    acceptance = result.acceptance
    route = result.metrics.get("route") or {}
    out: dict[str, TierAnswer] = {}
    for item in population:
        for position, tier in enumerate(tiers):
            answer = item.tiers[position] if position < len(item.tiers) else None
            if answer is None or not answer.answered:
                continue
            accept = _threshold(acceptance, tier)
            if accept is not None and answer.confidence >= accept:
                out[item.item] = answer
                break
            keep = _threshold(route, tier)
            if keep is not None and answer.confidence >= keep:
                break  # the tier keeps it but does not accept it: people label it
    return out


def true_error(sim: Simulated, result: MethodResult) -> float:
    """Error against the true class among the labels the rule accepts on the whole
    population (0 when it accepts nothing)."""
    accepted = accepted_labels(sim.tiers, sim.population, result)
    if not accepted:
        return 0.0
    wrong = sum(1 for item, answer in accepted.items() if answer.value != sim.truth[item])
    return wrong / len(accepted)


@dataclass(frozen=True, slots=True)
class Outcome:
    met: bool
    false_certification: bool
    """``met`` with the true error among accepted labels above :data:`TARGET`."""
    looks: int
    """Looks spent (tests that ran)."""
    error: float
    """True error among the accepted labels (0 when not met)."""
    coverage: float
    """Share of the population accepted (0 when not met)."""


def _outcome(sim: Simulated, result: MethodResult, looks: int) -> Outcome:
    met = result.state == "met"
    error = true_error(sim, result) if met else 0.0
    coverage = len(accepted_labels(sim.tiers, sim.population, result)) \
        / len(sim.population) if met else 0.0
    return Outcome(met, met and error > TARGET, looks, error, coverage)


def one_look_study(seed: int, tiers: int, *, flat: bool = False,
                   design: Design = Design()) -> Outcome:
    """Every label in, one test at look 1."""
    sim = simulate(np.random.default_rng(seed), tiers, flat=flat, design=design)
    result = evaluate_selective_risk(design.contract(), view_after(sim, len(sim.order)), 1,
                                     dev_fraction=design.dev_fraction)
    return _outcome(sim, result, int(result.ran))


def every_batch_study(seed: int, tiers: int, *, flat: bool = False,
                      design: Design = Design(), batch: int = BATCH) -> Outcome:
    """A test after every ``batch`` labels at the next look, stopping at the first met
    (a test that did not run spends no look)."""
    sim = simulate(np.random.default_rng(seed), tiers, flat=flat, design=design)
    looks = 0
    result: MethodResult | None = None
    counts = list(range(batch, len(sim.order) + 1, batch))
    if not counts or counts[-1] != len(sim.order):
        counts.append(len(sim.order))
    for count in counts:
        result = evaluate_selective_risk(design.contract(), view_after(sim, count), looks + 1,
                                         dev_fraction=design.dev_fraction)
        looks += int(result.ran)
        if result.state == "met":
            break
    assert result is not None
    return _outcome(sim, result, looks)


def study(schedule: str, seed: int, tiers: int, *, flat: bool = False,
          design: Design = Design()) -> Outcome:
    """One study of ``schedule`` (one of :data:`SCHEDULES`)."""
    if schedule == "one look":
        return one_look_study(seed, tiers, flat=flat, design=design)
    if schedule == "every batch":
        return every_batch_study(seed, tiers, flat=flat, design=design)
    raise ValueError(f"unknown schedule {schedule!r}")


@dataclass(frozen=True, slots=True)
class Share:
    studies: int
    met: int
    false: int

    def interval(self) -> tuple[float, float]:
        """Exact (Clopper–Pearson) 95% interval of the false-certification share."""
        n, k = self.studies, self.false
        low = 0.0 if k == 0 else float(stats.beta.ppf(0.025, k, n - k + 1))
        high = 1.0 if k == n else float(stats.beta.ppf(0.975, k + 1, n - k))
        return low, high


SEED_BASE = {("calibrated", "one look"): 0, ("calibrated", "every batch"): 100_000,
             ("flat error", "one look"): 200_000, ("flat error", "every batch"): 300_000}
"""Where each scenario's seeds start (one or two tiers alternate with the seed)."""


def scenario_share(name: str, schedule: str, studies: int, start: int = 0) -> Share:
    """The share over ``studies`` seeded studies of a scenario (``calibrated`` or
    ``flat error``), tiers alternating 1, 2 with the seed."""
    base = SEED_BASE[(name, schedule)] + start
    met = false = 0
    for seed in range(base, base + studies):
        outcome = study(schedule, seed, 1 + seed % 2, flat=name == "flat error")
        met += outcome.met
        false += outcome.false_certification
    return Share(studies, met, false)
