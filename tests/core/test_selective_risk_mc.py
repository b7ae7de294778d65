"""Monte-Carlo validity of ``selective_risk`` under Potato 2.12.1's method.

The promise (``potato-engine.md`` §4): with probability at least the contract's
confidence (0.9 here), at most ``error`` (0.1) of the labels accepted under a met rule
are wrong. On seeded simulated studies (:mod:`tests.core.selective_risk_simulation`:
500 items, 300 drawn for people, one or two tiers alternating with the seed) a study
falsely certifies when the result is ``met`` while the true error of the accepted labels
over the whole population is above 0.1. In every scenario (confidences that predict
correctness or a flat error; one look with every label in, or a test after every batch
of 30 labels at looks 1, 2, 3, … until the first met) the exact Clopper–Pearson 95%
lower bound of the false-certification share must lie below 1 − confidence. A power
check makes sure the studies certify often enough for that to mean something. The
benchmark ``tests/benchmarks/bench_selective_risk_mc.py`` runs 5,000 studies per
scenario and prints the shares.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.core.contracts.potato_method.selective_risk import evaluate_selective_risk
from app.core.contracts.potato_method.view import MethodResult, PopulationItem, TierAnswer
from tests.core.selective_risk_simulation import (
    CONFIDENCE,
    CONTRACT,
    Design,
    Share,
    accepted_labels,
    scenario_share,
    simulate,
    study,
    view_after,
)

STUDIES = 400
BOUND = 1 - CONFIDENCE

# Measured with these seeds, 400 studies each: (studies met, false certifications).
MEASURED = {
    ("calibrated", "one look"): (166, 0),      # met 0.415, false 0 [95% 0, 0.0092]
    ("calibrated", "every batch"): (115, 0),   # met 0.288, false 0 [95% 0, 0.0092]
    ("flat error", "one look"): (26, 0),       # met 0.065, false 0 [95% 0, 0.0092]
    ("flat error", "every batch"): (38, 0),    # met 0.095, false 0 [95% 0, 0.0092]
}


@pytest.mark.parametrize(("name", "schedule"), list(MEASURED))
def test_a_met_contract_is_wrong_at_most_one_minus_confidence_of_the_time(
        name: str, schedule: str) -> None:
    share = scenario_share(name, schedule, STUDIES)
    low, _ = share.interval()
    # The measured shares are in MEASURED; 5,000 studies (the benchmark) give false
    # shares of at most about 0.002, far under 0.1: Potato's dev start (1.5 times the
    # fewest labels that could pass) and fixed sequence are conservative here.
    assert low < BOUND, (name, schedule, share, MEASURED[name, schedule])
    if name == "calibrated":
        assert share.met / STUDIES > 0.15, share   # the test is not vacuous
    assert share.false <= 0.03 * STUDIES, share    # measured 0 in all four


def test_calibrated_confidences_with_enough_labels_are_met_in_most_studies() -> None:
    """2,000 items with 1,000 drawn for people, every label in, one look: the dev start
    sits where about 41 cert labels are expected, and a calibrated tier's top
    confidences are nearly error-free, so most studies certify."""
    design = Design(population=2000, calibration=1000)
    outcomes = [study("one look", 500_000 + seed, 1 + seed % 2, design=design)
                for seed in range(200)]
    met = sum(o.met for o in outcomes)
    false = sum(o.false_certification for o in outcomes)
    assert met >= 0.6 * len(outcomes), met      # measured 155 of 200 (0.775)
    low, _ = Share(len(outcomes), met, false).interval()
    assert low < BOUND, false                   # measured 3 of 200 (0.015)
    coverage = [o.coverage for o in outcomes if o.met]
    assert float(np.mean(coverage)) > 0.4, np.mean(coverage)   # measured 0.64


def test_the_simulation_sees_false_certifications_when_the_level_is_lenient() -> None:
    """The zero false certifications above are not the helper's blindness: the same
    studies (calibrated, one look) at confidence 0.1, a look level of 0.55, certify
    more often and some of them falsely — still within their own 1 − confidence."""
    design = Design(confidence=0.1)
    outcomes = [study("one look", seed, 1 + seed % 2, design=design)
                for seed in range(STUDIES)]
    met = sum(o.met for o in outcomes)
    false = sum(o.false_certification for o in outcomes)
    assert met > MEASURED["calibrated", "one look"][0], met   # measured 331 of 400
    assert false >= 20, false                                  # measured 42 (0.105)
    low, _ = Share(STUDIES, met, false).interval()
    assert low < 1 - design.confidence, false


def test_the_true_error_helper_reads_the_rule_as_potatos_delivery_does() -> None:
    """A check of the Monte-Carlo oracle itself, on a hand-made two-tier population:
    tier t0 accepts at 0.8 and routes at 0.8; t1 routes and accepts at 0.5."""
    def item(name: str, c0: float, c1: float) -> PopulationItem:
        answers = (TierAnswer("pos", c0), TierAnswer("neg", c1))
        return PopulationItem(name, answers, None, 0.5, answers[0])

    population = [item("a", 0.9, 0.1),     # t0 accepts
                  item("b", 0.3, 0.7),     # t0 passes it on, t1 accepts
                  item("c", 0.3, 0.2),     # nobody accepts
                  item("d", 0.95, 0.99)]   # t0 accepts; t1 is never read
    met = MethodResult("met", acceptance={"t0": {"*": 0.8}, "t1": {"*": 0.5}},
                       metrics={"route": {"t0": {"*": 0.8}, "t1": {"*": 0.5}}})
    accepted = accepted_labels(("t0", "t1"), population, met)
    assert {k: v.value for k, v in accepted.items()} == {"a": "pos", "b": "neg", "d": "pos"}
    # t0 failed its test: what it keeps goes to people, the rest still reaches t1.
    failed = MethodResult("met", acceptance={"t0": {"*": None}, "t1": {"*": 0.5}},
                          metrics={"route": {"t0": {"*": 0.8}, "t1": {"*": 0.5}}})
    assert set(accepted_labels(("t0", "t1"), population, failed)) == {"b"}
    assert accepted_labels(("t0", "t1"), population,
                           MethodResult("insufficient", acceptance=met.acceptance)) == {}


def test_the_helper_counts_what_the_result_says_it_accepts() -> None:
    """On simulated met studies the helper's accepted items are as many as the result's
    own coverage (``metrics.accepted``), computed by Accord's code independently."""
    checked = 0
    for seed in range(40):
        sim = simulate(np.random.default_rng(seed), 1 + seed % 2)
        result = evaluate_selective_risk(CONTRACT, view_after(sim, len(sim.order)), 1)
        if result.state != "met":
            continue
        checked += 1
        assert len(accepted_labels(sim.tiers, sim.population, result)) \
            == result.metrics["accepted"]
    assert checked >= 5, checked
