"""``selective_risk``: hand-built studies with expected values worked out by hand or with
scipy (never by calling the function under test twice), and a Monte-Carlo check that a
met contract is wrong at most about 1 − confidence of the time.

Levels used below (confidence 0.9): look 1 → 0.1 · 6/π² = 0.0607927; split over two
groups → 0.0303964; look 2 → 0.0151982.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pytest
from scipy import stats as sps

from app.core.contracts.config.contract_specs import ContractKind, ContractSpec
from app.core.contracts.kinds.base import HumanLabel, KindOutcome, MachineLabel, SchemaData
from app.core.contracts.kinds.selective_risk import evaluate_selective_risk
from app.core.model import Kind, Scheme

SCHEME = Scheme("sentiment", "radio", Kind.NOMINAL, labels=("a", "b"))
LOOK1 = 0.1 * 6 / math.pi ** 2
LOOK2 = LOOK1 / 4


def contract(error: float = 0.1, confidence: float = 0.9, per_class: bool = False
             ) -> ContractSpec:
    params = {"error": error, "confidence": confidence, "per_class": per_class,
              "tolerance": 0.5}
    return ContractSpec("accuracy", ContractKind.SELECTIVE_RISK, "sentiment",
                        MappingProxyType(params))


@dataclass
class Study:
    """Items in buckets: one confidence per tier and a number of items whose label is
    wrong. Without ``predicted`` the truth is ``a`` and a wrong tier label is ``b``; with
    ``predicted`` (one tier, for ``per_class``) every item is predicted that class and
    the wrong ones have the other class as their truth."""

    tiers: tuple[str, ...]
    dev_fraction: float = 0.5
    items: list[str] = field(default_factory=list)
    predictions: dict[str, dict[str, MachineLabel]] = field(default_factory=dict)
    dev: dict[str, tuple[HumanLabel, ...]] = field(default_factory=dict)
    cert: dict[str, tuple[HumanLabel, ...]] = field(default_factory=dict)

    def add(self, name: str, count: int, split: str | None,
            tiers: Mapping[str, tuple[float, int]], *, pi: float = 0.5,
            predicted: str | None = None) -> None:
        for i in range(count):
            item = f"{name}-{i:03d}"
            self.items.append(item)
            truth = "a"
            for tier, (conf, wrong) in tiers.items():
                if predicted is None:
                    label = "b" if i < wrong else "a"
                else:
                    label = predicted
                    truth = ("b" if predicted == "a" else "a") if i < wrong else predicted
                self.predictions.setdefault(tier, {})[item] = MachineLabel(label, conf)
            if split is not None:
                getattr(self, split)[item] = (HumanLabel("ann", truth, pi),)

    def data(self) -> SchemaData:
        return SchemaData(SCHEME, self.tiers, tuple(sorted(self.items)),
                          {t: self.predictions.get(t, {}) for t in self.tiers},
                          dict(self.dev), dict(self.cert), self.dev_fraction)


def p_value(k: int, n: int, error: float = 0.1) -> float:
    return float(sps.binom.cdf(k, n, error))


# --------------------------------------------------------------------------- cascades


def two_tier_study() -> Study:
    """Tier ``fast`` is right at confidence 0.9 and poor at 0.3; tier ``big`` sees the
    rest with confidences 0.95 / 0.85 / 0.75 (dev errors 0/30, 1/30, 9/30)."""
    s = Study(("fast", "big"))
    # fast accepts these (conf 0.9); big's predictions on them are never read.
    s.add("hi-dev", 20, "dev", {"fast": (0.9, 0), "big": (0.5, 10)})
    s.add("hi-cert", 60, "cert", {"fast": (0.9, 1), "big": (0.5, 30)})
    s.add("hi-pop", 20, None, {"fast": (0.9, 0), "big": (0.5, 0)})
    # fast is poor on these (conf 0.3, half wrong): they go to big.
    s.add("b1-dev", 30, "dev", {"fast": (0.3, 15), "big": (0.95, 0)})
    s.add("b2-dev", 30, "dev", {"fast": (0.3, 15), "big": (0.85, 1)})
    s.add("b3-dev", 30, "dev", {"fast": (0.3, 15), "big": (0.75, 9)})
    s.add("b1-cert", 40, "cert", {"fast": (0.3, 20), "big": (0.95, 1)})
    s.add("b2-cert", 40, "cert", {"fast": (0.3, 20), "big": (0.85, 1)})
    s.add("b3-cert", 40, "cert", {"fast": (0.3, 20), "big": (0.75, 12)})
    s.add("b1-pop", 30, None, {"fast": (0.3, 0), "big": (0.95, 0)})
    return s


def test_two_tier_cascade_tests_tier_one_once_and_stops_the_last_tier_at_its_first_failure(
) -> None:
    out = evaluate_selective_risk(contract(), two_tier_study().data(), look=1)
    level = LOOK1 / 2
    # fast: dev error 0/20 at thresholds 0.90..0.31, 55/110 at 0.30 and below, so the
    # most permissive threshold with dev error ≤ 0.05 is 0.31; cert: 1 error in 60.
    # big: dev error 0/30 down to 0.86, 1/60 down to 0.76, 10/90 below: choice 0.76
    # (expected cert errors ⌊1·80/60⌋ = 1, P(Bin(80, .1) ≤ 1) = 0.00216 ≤ level);
    # cert 2 errors in 80 at 0.76 (pass), 14 in 120 at 0.75 (fail, stop).
    tests = out.result["tests"]
    assert [(t["tier"], t["threshold"], t["n"], t["errors"], t["passed"]) for t in tests] == [
        ("fast", 0.31, 60, 1, True),
        ("big", 0.76, 80, 2, True),
        ("big", 0.75, 120, 14, False),
    ]
    expected_p = [0.9 ** 60 + 60 * 0.1 * 0.9 ** 59, p_value(2, 80), p_value(14, 120)]
    assert [t["p"] for t in out.result["tests"]] == pytest.approx(expected_p, rel=1e-9)
    assert expected_p[0] == pytest.approx(0.0137771, abs=1e-7)
    assert all(t["level"] == pytest.approx(level) for t in out.result["tests"])
    assert level == pytest.approx(0.0303964, abs=1e-7)
    assert "class" not in out.result["tests"][0]
    assert out.state == "met" and out.tested
    assert out.result["rule"] == {"fast": 0.31, "big": 0.76}
    assert out.accepts == {"fast": 0.31, "big": 0.76}
    # 340 items: fast accepts the 100 at 0.9; big the 100 at 0.95 and 70 at 0.85.
    assert out.result["accepted_by_tier"] == pytest.approx({"fast": 100 / 340,
                                                            "big": 170 / 340})
    assert set(out.result) == {"rule", "accepted_by_tier", "tests"}
    # What was tested, for the ledger's hash: the cert items of both tiers and the rule.
    assert out.data["rule"] == {"fast": 0.31, "big": 0.76}
    assert len(out.data["cert_labels"]) == 180
    assert out.data["cert_labels"]["b1-cert-000"] == [{"annotator": "ann", "label": "a"}]
    assert out.data["predictions"]["big"]["b3-cert-000"] == {"label": "b",
                                                             "confidence": 0.75}


def test_a_later_look_tests_at_its_stricter_level_and_the_dev_choice_is_unchanged() -> None:
    out = evaluate_selective_risk(contract(), two_tier_study().data(), look=2)
    # The dev choice still uses look 1's level: same thresholds tested, at LOOK2 / 2.
    # fast: p 0.013777 > 0.0075991; big: P(Bin(80, .1) ≤ 2) = 0.010684 > 0.0075991.
    # A failed tier before the last one → unmet.
    assert p_value(2, 80) == pytest.approx(0.0106837, abs=1e-7)
    assert [(t["tier"], t["threshold"], t["passed"]) for t in out.result["tests"]] == [
        ("fast", 0.31, False), ("big", 0.76, False)]
    assert out.result["tests"][0]["level"] == pytest.approx(LOOK2 / 2)
    assert out.state == "unmet" and out.tested and out.accepts is None
    assert out.result["rule"] == {}
    assert out.result["accepted_by_tier"] == {"fast": 0.0, "big": 0.0}


def test_a_failed_last_tier_accepts_nothing_and_is_present_with_zero() -> None:
    s = two_tier_study()
    s.add("bad-cert", 30, "cert", {"fast": (0.3, 0), "big": (0.99, 10)})
    out = evaluate_selective_risk(contract(), s.data(), look=1)
    # big at 0.76 now sees 110 cert labels with 12 errors: P(Bin(110, .1) ≤ 12) fails.
    assert out.result["tests"][-1] == {"tier": "big", "threshold": 0.76, "n": 110,
                                       "errors": 12, "p": pytest.approx(p_value(12, 110)),
                                       "level": pytest.approx(LOOK1 / 2), "passed": False}
    assert p_value(12, 110) > LOOK1 / 2
    assert out.state == "met"
    assert out.accepts == {"fast": 0.31}
    assert out.result["accepted_by_tier"]["big"] == 0.0
    assert out.result["accepted_by_tier"]["fast"] == pytest.approx(100 / 370)


def test_per_class_splits_the_level_over_classes_and_each_class_has_its_own_sequence(
) -> None:
    s = Study(("judge",))
    s.add("a-dev", 20, "dev", {"judge": (0.9, 0)}, predicted="a")
    s.add("a-lo-dev", 10, "dev", {"judge": (0.2, 5)}, predicted="a")
    s.add("a-cert", 50, "cert", {"judge": (0.9, 1)}, predicted="a")
    s.add("a-lo-cert", 10, "cert", {"judge": (0.2, 5)}, predicted="a")
    s.add("b-dev", 20, "dev", {"judge": (0.9, 0)}, predicted="b")
    s.add("b-cert", 60, "cert", {"judge": (0.9, 1)}, predicted="b")
    out = evaluate_selective_risk(contract(per_class=True), s.data(), look=1)
    level = LOOK1 / 2
    # a: dev 0/20 down to 0.21, 5/30 below → choice 0.21; cert 1 error in 50:
    # p = 0.9^50 + 50·0.1·0.9^49 = 0.033786, above LOOK1/2 = 0.030396 (it would pass at
    # the unsplit LOOK1 = 0.060793): fails, the sequence stops at once.
    # b: every dev label at 0.9, no errors → choice 0.00 (end of the grid); 1 error in 60.
    p_a = 0.9 ** 50 + 50 * 0.1 * 0.9 ** 49
    assert p_a == pytest.approx(0.033786, abs=1e-6) and level < p_a < LOOK1
    assert out.result["tests"] == [
        {"tier": "judge", "class": "a", "threshold": 0.21, "n": 50, "errors": 1,
         "p": pytest.approx(p_a), "level": pytest.approx(level), "passed": False},
        {"tier": "judge", "class": "b", "threshold": 0.0, "n": 60, "errors": 1,
         "p": pytest.approx(0.0137771, abs=1e-7), "level": pytest.approx(level),
         "passed": True},
    ]
    assert out.state == "met"
    assert out.result["rule"] == {"judge": {"b": 0.0}}
    assert out.accepts == {"judge": {"b": 0.0}}
    assert out.result["accepted_by_tier"] == {"judge": pytest.approx(80 / 170)}


# --------------------------------------------------------------------------- no test


def always_confident(dev: int, dev_errors: int, cert: int = 0) -> Study:
    """The seed's LLM judge: confidence 1.0 on every trace."""
    s = Study(("judge",))
    s.add("dev", dev, "dev", {"judge": (1.0, dev_errors)})
    s.add("cert", cert, "cert", {"judge": (1.0, cert // 5)})
    s.add("pop", 100, None, {"judge": (1.0, 20)})
    return s


def test_an_always_confident_judge_with_a_fifth_wrong_is_infeasible() -> None:
    out = evaluate_selective_risk(contract(), always_confident(100, 20, 100).data(), look=1)
    # Lower 90% Clopper–Pearson bound of 20/100 = Beta(20, 81) quantile 0.1 > 0.1.
    assert sps.beta.ppf(0.1, 20, 81) == pytest.approx(0.14875, abs=1e-5)
    assert out.state == "infeasible"
    assert not out.tested and out.accepts is None and out.data == {}
    assert out.result == {"rule": {}, "accepted_by_tier": {"judge": 0.0}, "tests": []}
    assert any("infeasible" in n and "0.2" in n for n in out.notes)


def test_few_dev_labels_above_the_target_are_insufficient_with_a_note() -> None:
    # 2 errors in 10: lower bound Beta(2, 9) quantile 0.1 = 0.0545 < 0.1, not infeasible.
    assert sps.beta.ppf(0.1, 2, 9) < 0.1
    out = evaluate_selective_risk(contract(), always_confident(10, 2, 10).data(), look=1)
    assert out.state == "insufficient" and not out.tested
    assert "projection" not in out.result
    assert any("above the target error 0.1" in n for n in out.notes)


def test_dev_error_between_half_the_target_and_the_target_names_it_and_projects_nothing(
) -> None:
    s = Study(("judge",))
    s.add("dev", 100, "dev", {"judge": (0.8, 8)})
    s.add("cert", 100, "cert", {"judge": (0.8, 8)})
    out = evaluate_selective_risk(contract(), s.data(), look=1)
    assert out.state == "insufficient" and not out.tested
    assert "projection" not in out.result and out.result["tests"] == []
    assert any("0.08" in n and "nothing is tested or projected" in n for n in out.notes)


def brute_force_labels(errors: int, labels: int, error: float, level: float) -> int:
    n = 1
    while sps.binom.cdf(errors * n // labels, n, error) > level:
        n += 1
    return n


@pytest.mark.parametrize("look", [1, 3])
def test_too_few_cert_labels_project_the_labels_and_requests_needed(look: int) -> None:
    s = Study(("judge",))
    s.add("dev", 40, "dev", {"judge": (0.9, 1)})       # dev error 1/40 at 0.90..0.41
    s.add("dev-lo", 40, "dev", {"judge": (0.4, 20)})   # 21/80 at 0.40 and below
    s.add("cert", 5, "cert", {"judge": (0.9, 0)})
    s.add("pop", 155, None, {"judge": (0.9, 0)})
    s.add("pop-lo", 160, None, {"judge": (0.4, 0)})
    out = evaluate_selective_risk(contract(), s.data(), look=look)
    assert out.state == "insufficient" and not out.tested and out.accepts is None
    # Nothing was tested, so the next test is this look, one group: its whole level.
    level = 0.1 * 6 / (math.pi ** 2 * look ** 2)
    needed = brute_force_labels(1, 40, 0.1, level)
    # Coverage at 0.41: 200 of 400 items; half the requests go to cert.
    requests = math.ceil((needed - 5) / (200 / 400) / 0.5)
    assert out.result["projection"] == {"threshold": 0.41, "cert_labels_needed": needed,
                                        "requests_needed": requests}
    assert set(out.result) == {"rule", "accepted_by_tier", "tests", "projection"}
    if look == 1:
        # ⌊27/40⌋ = 0 errors: 0.9^27 = 0.05815 ≤ 0.06079 (26 labels: 0.06461 >).
        assert needed == 27 and 0.9 ** 27 <= LOOK1 < 0.9 ** 26


def test_after_a_failed_test_the_projection_uses_dev_and_cert_together() -> None:
    s = Study(("judge",))
    s.add("dev", 40, "dev", {"judge": (0.9, 0)})
    s.add("cert", 40, "cert", {"judge": (0.9, 3)})
    s.add("pop", 120, None, {"judge": (0.9, 0)})
    out = evaluate_selective_risk(contract(), s.data(), look=1)
    # 3 errors in 40 cert labels: P(Bin(40, .1) ≤ 3) = 0.4231 > level: unmet.
    assert out.state == "unmet" and out.tested and out.accepts is None
    assert out.result["tests"][0]["p"] == pytest.approx(p_value(3, 40))
    needed = brute_force_labels(3, 80, 0.1, LOOK2)
    assert out.result["projection"] == {
        "threshold": 0.0, "cert_labels_needed": needed,
        "requests_needed": math.ceil((needed - 40) / 1.0 / 0.5)}


def test_a_group_drawn_with_unequal_probabilities_is_not_tested_and_named() -> None:
    s = Study(("judge",))
    s.add("dev", 40, "dev", {"judge": (0.9, 0)})
    s.add("cert", 30, "cert", {"judge": (0.9, 0)}, pi=0.5)
    s.add("cert-rare", 30, "cert", {"judge": (0.9, 0)}, pi=0.1)
    out = evaluate_selective_risk(contract(), s.data(), look=1)
    assert out.state == "insufficient" and not out.tested and out.result["tests"] == []
    assert any("tier 'judge'" in n and "unequal inclusion probabilities" in n
               for n in out.notes)


def test_an_unequal_group_is_skipped_while_a_uniform_one_is_tested() -> None:
    s = two_tier_study()
    for item in list(s.cert):
        if item.startswith("b"):
            s.cert[item] = (HumanLabel("ann", "a", 0.2 if item.endswith("1") else 0.5),)
    out = evaluate_selective_risk(contract(), s.data(), look=1)
    # Only fast is tested, at the whole level of look 1.
    assert [(t["tier"], t["level"]) for t in out.result["tests"]] == [
        ("fast", pytest.approx(LOOK1))]
    assert out.state == "met" and out.accepts == {"fast": 0.31}
    assert any("tier 'big'" in n and "unequal" in n for n in out.notes)


def test_no_labels_is_pending_and_spends_nothing() -> None:
    s = Study(("fast", "big"))
    s.add("pop", 50, None, {"fast": (0.9, 0), "big": (0.9, 0)})
    out = evaluate_selective_risk(contract(), s.data(), look=1)
    assert out.state == "pending" and not out.tested and out.accepts is None
    assert out.result == {"rule": {}, "accepted_by_tier": {"fast": 0.0, "big": 0.0},
                          "tests": []}


def test_several_people_on_an_item_count_once_by_majority_and_a_tie_is_an_error() -> None:
    s = Study(("judge",))
    s.add("dev", 40, "dev", {"judge": (0.9, 0)})
    s.add("cert", 60, "cert", {"judge": (0.9, 0)})
    s.cert["cert-000"] = (HumanLabel("x", "a", 0.5), HumanLabel("y", "b", 0.5),
                          HumanLabel("z", "b", 0.5))   # majority says b: an error
    s.cert["cert-001"] = (HumanLabel("x", "a", 0.5), HumanLabel("y", "b", 0.5))  # tie
    s.cert["cert-002"] = (HumanLabel("x", "a", 0.5), HumanLabel("y", "a", 0.5),
                          HumanLabel("z", "b", 0.5))   # majority agrees
    out = evaluate_selective_risk(contract(), s.data(), look=1)
    assert (out.result["tests"][0]["n"], out.result["tests"][0]["errors"]) == (60, 2)


# --------------------------------------------------------------------------- Monte Carlo


@dataclass(frozen=True)
class Simulated:
    data: SchemaData
    wrong: Mapping[str, Mapping[str, bool]]
    """tier → item → the machine label is wrong (the simulation's truth)."""
    order: tuple[str, ...]
    """Calibration items in the order they are labelled."""


def simulate_study(rng: np.random.Generator, tiers: int, population: int = 500,
                   calibration: int = 300, flat: bool = False) -> Simulated:
    """A study whose error among accepted labels varies around 0.1 with the threshold.

    Confidence c ~ U(0.5, 1); a label is wrong with probability min(1, s · (1 − c)),
    s ~ U(0.1, 0.8) per study and tier, so the error of the labels above a threshold t
    is about s · (1 − t) / 2: below 0.1 for some thresholds, above it for others.
    ``flat``: the confidence says nothing, every label is wrong with the same
    probability e ~ U(0.04, 0.16): the hard case, where only chance makes dev choose a
    threshold and the cert test alone stands between a bad rule and ``met``.
    """
    names = tuple(f"t{k}" for k in range(tiers))
    items = [f"i{k:04d}" for k in range(population)]
    predictions: dict[str, dict[str, MachineLabel]] = {}
    wrong: dict[str, dict[str, bool]] = {}
    for tier in names:
        scale = rng.uniform(0.1, 0.8)
        flat_error = rng.uniform(0.04, 0.16)
        conf = np.round(rng.uniform(0.5, 1.0, population), 3)
        p_wrong = np.full(population, flat_error) if flat else np.minimum(1.0, scale * (1 - conf))
        bad = rng.random(population) < p_wrong
        predictions[tier] = {i: MachineLabel("b" if b else "a", float(c))
                             for i, c, b in zip(items, conf, bad, strict=True)}
        wrong[tier] = {i: bool(b) for i, b in zip(items, bad, strict=True)}
    drawn = rng.permutation(population)[:calibration]
    order = tuple(items[k] for k in drawn)
    data = SchemaData(SCHEME, names, tuple(items), predictions, {}, {}, 0.5)
    return Simulated(data, wrong, order)


def labelled(sim: Simulated, count: int, rng_split: np.ndarray) -> SchemaData:
    """The study after ``count`` calibration labels (the dev/cert split is fixed)."""
    pi = len(sim.order) / len(sim.data.items)
    dev: dict[str, tuple[HumanLabel, ...]] = {}
    cert: dict[str, tuple[HumanLabel, ...]] = {}
    for k, item in enumerate(sim.order[:count]):
        (dev if rng_split[k] else cert)[item] = (HumanLabel("ann", "a", pi),)
    d = sim.data
    return SchemaData(d.scheme, d.tiers, d.items, d.predictions, dev, cert, d.dev_fraction)


def true_error(sim: Simulated, outcome: KindOutcome) -> float:
    """Error among the labels the rule accepts on the whole population, from the truth."""
    rule = outcome.accepts or {}
    accepted = errors = 0
    for item in sim.data.items:
        for tier in sim.data.tiers:
            threshold = rule.get(tier)
            machine = sim.data.predictions[tier][item]
            if threshold is not None and machine.confidence >= threshold:
                accepted += 1
                errors += sim.wrong[tier][item]
                break
    return errors / accepted if accepted else 0.0


def one_look_study(seed: int, tiers: int, flat: bool = False) -> tuple[bool, bool]:
    """(met, met and the true error exceeds 0.1) with every label in, at look 1."""
    rng = np.random.default_rng(seed)
    sim = simulate_study(rng, tiers, flat=flat)
    split = rng.random(len(sim.order)) < 0.5
    out = evaluate_selective_risk(contract(), labelled(sim, len(sim.order), split), look=1)
    met = out.state == "met"
    return met, met and true_error(sim, out) > 0.1


def sequential_study(seed: int, tiers: int, batch: int = 30, flat: bool = False
                     ) -> tuple[bool, bool, int]:
    """Evaluate after every batch; after an unmet test wait until the cert labels grew
    by a quarter and by at least ten (the scheduler's rule); stop once met.

    Returns (met, met with true error above 0.1, looks spent).
    """
    rng = np.random.default_rng(seed)
    sim = simulate_study(rng, tiers, flat=flat)
    split = rng.random(len(sim.order)) < 0.5
    looks = 0
    cert_at_last_test: int | None = None
    for count in range(batch, len(sim.order) + 1, batch):
        data = labelled(sim, count, split)
        cert = len(data.cert)
        if cert_at_last_test is not None and (
                cert < cert_at_last_test * 1.25 or cert < cert_at_last_test + 10):
            continue
        out = evaluate_selective_risk(contract(), data, look=looks + 1)
        if not out.tested:
            continue
        looks += 1
        cert_at_last_test = cert
        if out.state == "met":
            return True, true_error(sim, out) > 0.1, looks
    return False, False, looks


def violation_share(outcomes: list[tuple[bool, bool]]) -> tuple[float, float]:
    met = sum(m for m, _ in outcomes)
    bad = sum(v for _, v in outcomes)
    return bad / len(outcomes), met / len(outcomes)


def test_monte_carlo_a_met_contract_is_wrong_at_most_about_one_minus_confidence() -> None:
    outcomes = [one_look_study(seed, tiers=1 + seed % 2) for seed in range(400)]
    bad, met = violation_share(outcomes)
    assert met > 0.2, f"the simulation should certify often enough to mean something: {met}"
    assert bad <= 0.13, f"violation share {bad:.3f} at one look"


def test_monte_carlo_testing_after_every_batch_keeps_the_bound() -> None:
    outcomes = [sequential_study(10_000 + seed, tiers=1 + seed % 2)[:2] for seed in range(200)]
    bad, met = violation_share(outcomes)
    assert met > 0.2, f"the simulation should certify often enough to mean something: {met}"
    assert bad <= 0.13, f"violation share {bad:.3f} over sequential looks"


def test_the_true_error_helper_reads_the_rule_as_the_engine_does() -> None:
    """A check of the Monte-Carlo oracle itself, on a hand-made two-tier population."""
    s = Study(("t0", "t1"))
    s.add("x", 4, None, {"t0": (0.9, 1), "t1": (0.2, 0)})   # t0 accepts, 1 wrong
    s.add("y", 6, None, {"t0": (0.1, 0), "t1": (0.8, 3)})   # t1 accepts, 3 wrong
    data = s.data()
    wrong = {t: {i: data.predictions[t][i].label == "b" for i in data.items}
             for t in data.tiers}
    sim = Simulated(data, wrong, ())
    outcome = KindOutcome("met", {}, accepts={"t0": 0.5, "t1": 0.5})
    assert true_error(sim, outcome) == pytest.approx(4 / 10)
    assert isinstance(outcome.accepts, dict) and all(
        isinstance(v, float) for v in outcome.accepts.values())
